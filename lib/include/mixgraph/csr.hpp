#pragma once
// Compressed sparse rows over positions. Rows and columns are 0-indexed internally
// (row r is position r + 1); every output of mixgraph converts to 1-indexed positions.
#include <cstdint>
#include <span>
#include <vector>

namespace mixgraph {

using pos_t = std::uint32_t;  ///< a 0-indexed position; n fits in 32 bits
using nnz_t = std::uint64_t;  ///< edge counts need 64 bits

struct Csr {
  pos_t n = 0;
  std::vector<nnz_t> ptr;   ///< size n + 1 (empty when n == 0 and never built)
  std::vector<pos_t> idx;   ///< column indices, sorted ascending within each row
  std::vector<double> val;  ///< optional weights, parallel to idx (empty: pattern only)

  nnz_t nnz() const { return ptr.empty() ? 0 : ptr.back(); }
  std::span<const pos_t> row(pos_t r) const { return {idx.data() + ptr[r], idx.data() + ptr[r + 1]}; }
  std::span<const double> row_values(pos_t r) const { return {val.data() + ptr[r], val.data() + ptr[r + 1]}; }
  pos_t row_size(pos_t r) const { return static_cast<pos_t>(ptr[r + 1] - ptr[r]); }
  bool has_values() const { return !val.empty(); }
  /// Bytes held by the arrays.
  std::size_t bytes() const {
    return ptr.size() * sizeof(nnz_t) + idx.size() * sizeof(pos_t) + val.size() * sizeof(double);
  }
};

/// The transpose (rows become columns); values follow. O(n + nnz).
Csr transpose(const Csr& a);

}  // namespace mixgraph
