#pragma once
// Per-entry dot products on the device, the weight gradients of per-position mixers
// (dA_e = <Z_i, X_j>, dB_e = <Z_i, Y_j> for the entry e = (i, j), per head, summed over the batch):
//
//   out[h nnz + e] = sum over b < batch, c < dh of z[rows[e], (b heads + h) dh + c] v[cols[e], (b heads + h)
//   dh + c]
//
// z and v row-major n x (batch heads dh), contiguous (the batch as columns: column (b heads + h) dh + c is
// column h dh + c of sequence b); rows and cols int64 entry indices (< n); out (heads x nnz, double) is
// written, not added to. One block per entry and head, its threads over the head's batch x dh columns, so
// the two rows of an entry are read once (every head's columns by its own block); products and sums in
// double whatever the input precision, in a fixed order (the same bits on every run). Plain C++17 (builds
// without CUDA).
//
//   std::string err = mixgraph::gpu::entry_dots(s, z, v, rows, cols, out, stream);  // queued on stream
#include <cstdint>
#include <string>

namespace mixgraph::gpu {

struct EntryDots {
  std::uint32_t n = 0;      ///< rows of z and v
  std::uint32_t batch = 1;  ///< sequences side by side in the columns
  std::uint32_t heads = 1;  ///< heads per sequence
  std::uint32_t dh = 0;     ///< columns per head (z and v have batch heads dh columns)
  std::uint64_t nnz = 0;    ///< entries
  bool fp64 = false;        ///< z and v float64 (else float32)
};

/// Device pointers on the current device; `stream` a cudaStream_t. Returns "" or what was wrong.
std::string entry_dots(const EntryDots& s, const void* z, const void* v, const std::int64_t* rows,
                       const std::int64_t* cols, double* out, void* stream = nullptr);
/// The same sums on host arrays (entry by entry, in double); rows and cols are checked against n.
std::string entry_dots_reference(const EntryDots& s, const void* z, const void* v, const std::int64_t* rows,
                                 const std::int64_t* cols, double* out);
/// The argument checks both make (sizes, null pointers): "" or what is wrong.
std::string entry_dots_check(const EntryDots& s, const void* z, const void* v, const std::int64_t* rows,
                             const std::int64_t* cols, const double* out);

}  // namespace mixgraph::gpu
