#pragma once
// A CPU reference of gpu-scan1's stages, in plain C++17 (no CUDA), so it builds and is tested everywhere.
//
// gpu-scan1 (gpu/src/scan.cuh), first-order patterns (B reads only i - 1), three passes over segments of
// `seg` rows (the kernel's kSeg = 128), per column c of head h = c / (d / heads):
//   pass 1 (scan_maps):  segment s as an affine map of the y entering it, y_out = pm * y_in + qm: from
//                        p = 1, q = 0 over its rows i, q = fma(b_i, q, (A X)_i), p = p * b_i;
//   pass 2 (scan_carry): carry[s] = the true y entering segment s: carry[0] = 0,
//                        carry[s + 1] = fma(pm[s], carry[s], qm[s]);
//   pass 3 (scan_apply): replay segment s from carry[s]: y = fma(b_i, y, (A X)_i), Y[i] = y.
// (A X)_i = fma chain over A's offsets ascending (those <= i), b_i = B's coefficient at offset 1 (0 at
// i = 0). The same floating-point operations in the same order as the kernels (FUSED = false), so the GPU's
// arrays can be compared bit for bit (scan_stages_gpu, gpu/src/stage_debug.cu, runs the kernels alone).
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/gpu_solve.hpp"

namespace mixgraph::gpu {

/// The arrays of gpu-scan1's three passes for one problem: pm, qm, carry at [s * d + c] (segment s, column
/// c), y row-major n x d.
template <class T>
struct ScanStages {
  std::uint32_t seg = 128, nseg = 0;
  std::vector<T> pm, qm, carry, y;
};

/// The rows per segment of gpu-scan1 (kSeg).
inline constexpr std::uint32_t kScanSegment = 128;

/// Whether gpu-scan1's decomposition applies: implicit A and B with Values coefficients (any strides), B's
/// offsets exactly {1} (the planner's first-order test); else the reason, for a test's message. O(1).
bool scan_reference_applies(const SolveProblem& p, std::string* why = nullptr);

/// The three passes on the CPU (T = float for a problem with fp64 = false, double for fp64 = true; the
/// coefficients are read from p's host arrays). x is row-major n x d. Throws std::invalid_argument where
/// scan_reference_applies is false, seg = 0 or T does not match p.fp64. O(n d (k_A + 1)) time, O(n d)
/// memory.
template <class T>
ScanStages<T> scan_stages_reference(const SolveProblem& p, const T* x, std::uint32_t seg = kScanSegment);

/// gpu-scan1's three passes run on the GPU with p as given (FUSED = false, seg rows per segment = 128),
/// their arrays copied back (tests compare them with scan_stages_reference). Without CUDA or a GPU, or
/// where scan_reference_applies is false: ran = false and a note.
template <class T>
struct ScanStagesRun {
  bool ran = false;
  std::string note;
  ScanStages<T> stages;
};
template <class T>
ScanStagesRun<T> scan_stages_gpu(const SolveProblem& p, const T* x);

}  // namespace mixgraph::gpu
