#include "mixgraph/weights.hpp"

#include "mixgraph/cancel.hpp"
#include "mixgraph/commgraph.hpp"
#include "mixgraph/weight_gen.hpp"

namespace mixgraph {

namespace {

void fill(Csr& m, std::uint64_t seed, std::uint64_t matrix, double total) {
  const std::uint64_t key = wgen::stream_key(seed, 0, matrix);
  // reserved, not resized: the values' pages are first written inside the loop that looks at the cancel
  // flag (zero-filling nnz values up front took a second at 10^8 entries, with Ctrl-C waiting for it)
  m.val.clear();
  m.val.reserve(m.idx.size());
  const std::atomic<bool>* stop = cancel_flag();  // O(nnz): a look every 1024 rows
  for (pos_t i = 0; i < m.n; ++i) {
    if ((i & 1023) == 0) throw_if_cancelled(stop);
    const nnz_t lo = m.ptr[i], hi = m.ptr[i + 1];
    for (nnz_t k = lo; k < hi; ++k)
      m.val.push_back(wgen::weight(key, total, static_cast<std::uint32_t>(hi - lo), i, m.idx[k]));
  }
}
}  // namespace

double hash_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t row, std::uint64_t col) {
  return wgen::uniform(seed, stream, row, col);  // one definition, host and device (weight_gen.hpp)
}

WeightedPattern random_weights(const Pattern& p, std::uint64_t seed) {
  WeightedPattern w;
  w.b = b_csr(p);
  if (!(p.family == PatternFamily::Matrix && w.b.has_values()))
    fill(w.b, seed, wgen::kMatrixB, wgen::kTotalB);
  w.a = a_csr(p);
  if (!(p.family == PatternFamily::Matrix && p.a_mode == AMode::Explicit && w.a.has_values()))
    fill(w.a, seed, wgen::kMatrixA, wgen::kTotalA);
  return w;
}

}  // namespace mixgraph
