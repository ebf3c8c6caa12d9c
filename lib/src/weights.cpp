#include "mixgraph/weights.hpp"

#include "mixgraph/commgraph.hpp"

namespace mixgraph {

namespace {
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double signed_draw(std::uint64_t seed, std::uint64_t stream, std::uint64_t r, std::uint64_t c) {
  const double u = hash_uniform(seed, stream, r, c);                    // [0, 1)
  const double mag = 0.5 + 0.5 * hash_uniform(seed, stream + 7, r, c);  // [0.5, 1)
  return u < 0.5 ? -mag : mag;
}

void fill(Csr& m, std::uint64_t seed, std::uint64_t stream, double total) {
  m.val.resize(m.idx.size());
  for (pos_t i = 0; i < m.n; ++i) {
    const nnz_t lo = m.ptr[i], hi = m.ptr[i + 1];
    const double scale = hi > lo ? total / static_cast<double>(hi - lo) : 0.0;
    for (nnz_t k = lo; k < hi; ++k) m.val[k] = scale * signed_draw(seed, stream, i, m.idx[k]);
  }
}
}  // namespace

double hash_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t row, std::uint64_t col) {
  std::uint64_t h = splitmix64(seed ^ splitmix64(stream * 0x632be59bd9b4e019ULL));
  h = splitmix64(h ^ row);
  h = splitmix64(h ^ (col * 0xd6e8feb86659fd93ULL));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

WeightedPattern random_weights(const Pattern& p, std::uint64_t seed) {
  WeightedPattern w;
  w.b = b_csr(p);
  if (!(p.family == PatternFamily::Matrix && w.b.has_values())) fill(w.b, seed, 1, 0.9);
  w.a = a_csr(p);
  if (!(p.family == PatternFamily::Matrix && p.a_mode == AMode::Explicit && w.a.has_values()))
    fill(w.a, seed, 2, 1.0);
  return w;
}

}  // namespace mixgraph
