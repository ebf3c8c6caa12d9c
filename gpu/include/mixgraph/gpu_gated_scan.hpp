#pragma once
// Per-channel gated first-order recurrences on the device, forward and adjoint, batched (plain C++17 types
// and pointers, so this header builds with or without CUDA):
//
//   forward:  y[b,t,c] = g[b,t,c] y[b,t-1,c] + u[b,t,c] x[b,t,c]      (y[b,-1] = 0; g[b,0] is not read)
//   adjoint:  z[b,t,c] = dy[b,t,c] + g[b,t+1,c] z[b,t+1,c]            (z[b,n] = 0), then in the same pass
//             dx = u z (z without u), dg[t] = z[t] y[t-1] (0 at t = 0), du = x z.
//
// Every tensor is row-major (batch, n, d), contiguous: element (b, t, c) at (b n + t) d + c; heads layouts
// (batch, n, heads, d_head) are the same memory with d = heads d_head. u absent means u = 1. Each runs as
// a three-pass segment scan (per-segment affine maps, a pass over the segments of each column, a replay of
// each segment from its carry), in the anti-causal direction for the adjoint: no reversed copy of any input.
//
//   mixgraph::gpu::GatedScan s{batch, n, d, false};
//   float* work;  cudaMalloc(&work, gated_scan_workspace(s) * sizeof(float));
//   std::string err = gated_scan_forward(s, {x, g, nullptr, y, work}, stream);   // queued on stream
//
// Work O(batch n d), device traffic: the forward reads x, g (u) twice and writes y once; the adjoint reads
// dy, g twice and y (x, u) once and writes the gradients asked for. Nothing is allocated and nothing waits
// for the device: the calls queue kernels on `stream` (a cudaStream_t; nullptr = the default stream) and
// return. gated_scan_reference_* compute the same three passes on host arrays (any build).
#include <cstddef>
#include <cstdint>
#include <string>

namespace mixgraph::gpu {

struct GatedScan {
  std::uint32_t batch = 1, n = 0, d = 0;
  bool fp64 = false;      ///< double, else float
  std::uint32_t seg = 0;  ///< rows per segment (0: gated_scan_segment chooses)
};

struct GatedScanForward {
  const void* x = nullptr;
  const void* g = nullptr;
  const void* u = nullptr;  ///< optional (1)
  void* y = nullptr;
  void* work = nullptr;  ///< gated_scan_workspace(s) elements of the scan's type
};

struct GatedScanBackward {
  const void* dy = nullptr;
  const void* g = nullptr;
  const void* y = nullptr;  ///< needed for dg
  const void* x = nullptr;  ///< needed for du
  const void* u = nullptr;  ///< optional (1)
  void* dx = nullptr;       ///< each output optional (nullptr: not written)
  void* dg = nullptr;
  void* du = nullptr;
  void* work = nullptr;
};

/// Rows per segment: s.seg if set, else the largest power of two in [32, 256] that still gives about 2^18
/// threads (one per segment and group of columns).
std::uint32_t gated_scan_segment(const GatedScan& s);
/// Elements of workspace (the scan's type) both directions need: 2 batch ceil(n / seg) d.
std::size_t gated_scan_workspace(const GatedScan& s);

/// Device pointers on the current device. Returns "" or what was wrong (checked before any launch).
std::string gated_scan_forward(const GatedScan& s, const GatedScanForward& a, void* stream = nullptr);
std::string gated_scan_backward(const GatedScan& s, const GatedScanBackward& a, void* stream = nullptr);

/// The same three passes on host arrays, same segments (a reference for the kernels' stages).
std::string gated_scan_reference_forward(const GatedScan& s, const GatedScanForward& a);
std::string gated_scan_reference_backward(const GatedScan& s, const GatedScanBackward& a);

}  // namespace mixgraph::gpu
