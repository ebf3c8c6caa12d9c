#include "mixgraph/csr.hpp"

namespace mixgraph {

Csr transpose(const Csr& a) {
  Csr t;
  t.n = a.n;
  t.ptr.assign(static_cast<std::size_t>(a.n) + 1, 0);
  for (pos_t j : a.idx) ++t.ptr[j + 1];
  for (pos_t r = 0; r < a.n; ++r) t.ptr[r + 1] += t.ptr[r];
  t.idx.resize(a.idx.size());
  if (a.has_values()) t.val.resize(a.val.size());
  std::vector<nnz_t> fill(t.ptr.begin(), t.ptr.end() - 1);
  for (pos_t r = 0; r < a.n; ++r) {
    for (nnz_t k = a.ptr[r]; k < a.ptr[r + 1]; ++k) {
      const nnz_t dst = fill[a.idx[k]]++;
      t.idx[dst] = r;  // rows visited in order, so each output row stays sorted
      if (a.has_values()) t.val[dst] = a.val[k];
    }
  }
  return t;
}

}  // namespace mixgraph
