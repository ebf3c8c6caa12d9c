#pragma once
// Shifted dot products per column on the device, the weight gradients of per-offset mixers
// (dB_k = sum_i <Z_i, Y_{i - o_k}>, dA_k = sum_i <Z_i, X_{i - o_k}>, summed over a head's columns after):
//
//   part[k d + c] += sum over b, and i = o_k .. n - 1 of z[b, i, c] v[b, i - o_k, c]
//
// z and v row-major (batch, n, d), contiguous; part (K x d, double) is added to, so the caller zeroes it.
// One pass over z and K over v (rows at small offsets were read just before, so they may come from the
// cache; not measured yet), one kernel for every offset; partial sums per block of rows, then one atomic
// add per (k, column) and block (the order of those adds varies, so part varies in its last bits between
// runs). Plain C++17 (builds without CUDA).
//
//   std::string err = mixgraph::gpu::shift_dots(s, z, v, part, stream);  // queued on stream
#include <cstdint>
#include <string>
#include <vector>

namespace mixgraph::gpu {

struct ShiftDots {
  std::uint32_t batch = 1, n = 0, d = 0;
  bool fp64 = false;
  std::vector<std::uint32_t> offsets;  ///< at most kShiftDotsMaxOffsets
  std::uint32_t rows = 0;              ///< rows per thread (0: chosen)
  /// z holds each sequence's rows in reverse order (row i of the sums is z[b, n - 1 - i]), as the adjoint
  /// solve on the reversed sequence leaves them: no flip of z first. v is always in natural order.
  bool z_reversed = false;
};
constexpr std::uint32_t kShiftDotsMaxOffsets = 32;

/// Device pointers on the current device; `stream` a cudaStream_t. Returns "" or what was wrong.
std::string shift_dots(const ShiftDots& s, const void* z, const void* v, double* part,
                       void* stream = nullptr);
/// The same sums on host arrays (row by row, in double).
std::string shift_dots_reference(const ShiftDots& s, const void* z, const void* v, double* part);

}  // namespace mixgraph::gpu
