#pragma once
// Shifted sums per column on the device, dX = A^T Z of per-offset mixers (A_{i, i - o_k} = a_k for every
// row i, so (A^T Z)_i = sum_k a_k Z_{i + o_k}):
//
//   out[i, c] = sum over k with i + o_k < n of table[h, k] z[src(i + o_k), c],   h = c / (d / heads)
//
// src(j) = j, or n - 1 - j with z_reversed (z holds the rows in reverse order, as the adjoint solve on the
// reversed sequence leaves them: no flip of z first). z, out row-major n x d, contiguous, not overlapping;
// table (heads, K) contiguous, in device memory, of z's type. A table entry that is zero is skipped (its
// rows of z are not read), so a table with one non-zero offset costs one read of z and one write of out:
// the table is read on the device, nothing crosses the bus. Every output is written (no accumulation).
// O(n d K) work at most; one kernel. Plain C++17 (builds without CUDA).
//
//   std::string err = mixgraph::gpu::shift_add(s, table, z, out, stream);  // queued on stream
#include <cstdint>
#include <string>
#include <vector>

namespace mixgraph::gpu {

struct ShiftAdd {
  std::uint32_t n = 0, d = 0, heads = 1;  ///< d a multiple of heads
  bool fp64 = false;
  bool z_reversed = false;
  std::vector<std::uint32_t> offsets;  ///< at most kShiftAddMaxOffsets, any order
};
constexpr std::uint32_t kShiftAddMaxOffsets = 32;

/// Device pointers on the current device; `stream` a cudaStream_t. Returns "" or what was wrong.
std::string shift_add(const ShiftAdd& s, const void* table, const void* z, void* out, void* stream = nullptr);
/// The same sums on host arrays (row by row, in z's type, offsets in the order given).
std::string shift_add_reference(const ShiftAdd& s, const void* table, const void* z, void* out);

}  // namespace mixgraph::gpu
