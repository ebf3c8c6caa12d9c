// Exact cut ranks over the prime field GF(p), p = 2^61 - 1 (docs/math.md, "Interaction rank").
//
// Every nonzero alpha_ij, beta_ij gets an independent uniform weight in GF(p) from (seed, matrix, row,
// column); M = (I - B)^{-1} A is never formed. For cut K, the columns of Y = M[:, 1..K] G (G uniform in
// GF(p)) come from a sparse forward substitution, and rows K+1..n of each new column are reduced against an
// echelon basis of the columns kept so far; the first column that reduces to zero stops the cut.
//
// Why this cannot exceed the Menger rank: rank(M[K+1..n, 1..K] G) <= rank(M[K+1..n, 1..K]) over any field,
// and M[K+1..n, 1..K] factors through any vertex separator of the layered DAG, so its rank over any field is
// at most the max-flow (Menger) rank. Every answer is therefore <= the flow rank, deterministically.
//
// Why it equals it with high probability (Schwartz-Zippel): let R be the generic (= Menger) rank at cut K.
// Some R x R minor of the first R columns of Y is, by Cauchy-Binet and the Lindstrom-Gessel-Viennot lemma, a
// nonzero polynomial in the weights and G of total degree <= n + R (a vertex-disjoint path system enters at
// most n nodes y_i, plus one G entry per column). If it does not vanish at the random point, the first R
// columns are independent and the cut reports R. So P(r(K) < R) <= (n + min(K, n-K)) / p, and the
// probability that any reported cut is low is at most the sum of that over the cuts (reported).
//
// Layers in sequence (a stack, M = M_L ... M_1): Y is pushed through one forward substitution per layer,
// each layer with its own independent weights. M's entries are the path sums of the stacked graph (L + 1
// copies of the positions), which is again a DAG, so the same two arguments hold with the stacked graph's
// Menger rank, and a path system enters at most L n nodes: P(r(K) < R) <= (L n + min(K, n-K)) / p.
#include <algorithm>
#include <cstdio>

#include "mixgraph/cancel.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/rank.hpp"
#include "rank/cut_loop.hpp"

namespace mixgraph {

namespace {
__extension__ typedef unsigned __int128 u128;
constexpr std::uint64_t kP = (std::uint64_t{1} << 61) - 1;

std::uint64_t mulmod(std::uint64_t a, std::uint64_t b) {
  const u128 z = static_cast<u128>(a) * b;
  std::uint64_t r = (static_cast<std::uint64_t>(z) & kP) + static_cast<std::uint64_t>(z >> 61);
  return r >= kP ? r - kP : r;
}
std::uint64_t addmod(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t r = a + b;
  return r >= kP ? r - kP : r;
}
std::uint64_t submod(std::uint64_t a, std::uint64_t b) {
  return a >= b ? a - b : a + kP - b;
}
std::uint64_t powmod(std::uint64_t a, std::uint64_t e) {
  std::uint64_t r = 1;
  for (; e; e >>= 1, a = mulmod(a, a))
    if (e & 1) r = mulmod(r, a);
  return r;
}
std::uint64_t invmod(std::uint64_t a) {
  return powmod(a, kP - 2);
}

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
/// Uniform in GF(p) (rejection sampling of 61-bit draws; the rejected value p has probability 2^-61).
std::uint64_t field_draw(std::uint64_t seed, std::uint64_t stream, std::uint64_t row, std::uint64_t col) {
  std::uint64_t x = splitmix(splitmix(splitmix(seed ^ 0x6d1f6d1f) ^ stream) ^ row) ^ col;
  for (;;) {
    x = splitmix(x);
    const std::uint64_t v = x >> 3;
    if (v < kP) return v;
  }
}

struct FieldCsr {
  const Csr* s = nullptr;
  std::vector<std::uint64_t> val;
};
FieldCsr field_weights(const Csr& c, std::uint64_t seed, std::uint64_t stream) {
  FieldCsr f;
  f.s = &c;
  f.val.resize(c.nnz());
  for (pos_t i = 0; i < c.n; ++i)
    for (nnz_t q = c.ptr[i]; q < c.ptr[i + 1]; ++q) f.val[q] = field_draw(seed, stream, i, c.idx[q]);
  return f;
}

/// One layer's weights over GF(p).
struct FieldLayer {
  FieldCsr a, b;
};

/// out (n x s, row-major) = (I - B)^{-1} A in, where `in` has `rows` rows (row j read for j < rows only;
/// the rows at and past `rows` count as zero).
void field_apply(const FieldLayer& l, const std::vector<std::uint64_t>& in, pos_t rows, std::uint32_t s,
                 std::vector<std::uint64_t>& out, const std::atomic<bool>* stop) {
  const pos_t n = l.a.s->n;
  out.assign(static_cast<std::size_t>(n) * s, 0);
  for (pos_t i = 0; i < n; ++i) {
    if ((i & 63) == 0) throw_if_cancelled(stop);  // a row is s * (its reads) products
    std::uint64_t* row = out.data() + static_cast<std::size_t>(i) * s;
    for (nnz_t q = l.a.s->ptr[i]; q < l.a.s->ptr[i + 1]; ++q) {
      const pos_t j = l.a.s->idx[q];
      if (j >= rows) continue;
      const std::uint64_t w = l.a.val[q];
      const std::uint64_t* src = in.data() + static_cast<std::size_t>(j) * s;
      for (std::uint32_t c = 0; c < s; ++c) row[c] = addmod(row[c], mulmod(w, src[c]));
    }
    for (nnz_t q = l.b.s->ptr[i]; q < l.b.s->ptr[i + 1]; ++q) {
      const std::uint64_t w = l.b.val[q];
      const std::uint64_t* src = out.data() + static_cast<std::size_t>(l.b.s->idx[q]) * s;
      for (std::uint32_t c = 0; c < s; ++c) row[c] = addmod(row[c], mulmod(w, src[c]));
    }
  }
}

/// Y (n x s, row-major) = M_L ... M_1 [:, 1..K] G[:, c0..c0+s) over GF(p); `tmp` is scratch.
void field_solve(const std::vector<FieldLayer>& layers, pos_t k, std::uint64_t seed, std::uint32_t c0,
                 std::uint32_t s, std::vector<std::uint64_t>& g, std::vector<std::uint64_t>& y,
                 std::vector<std::uint64_t>& tmp, const std::atomic<bool>* stop) {
  g.assign(static_cast<std::size_t>(k) * s, 0);
  for (pos_t j = 0; j < k; ++j)
    for (std::uint32_t c = 0; c < s; ++c)
      g[static_cast<std::size_t>(j) * s + c] = field_draw(seed, 3, j, c0 + c);
  field_apply(layers[0], g, k, s, y, stop);
  for (std::size_t l = 1; l < layers.size(); ++l) {
    field_apply(layers[l], y, layers[l].a.s->n, s, tmp, stop);
    y.swap(tmp);
  }
}

/// stop: the calling thread's cancel flag (cancel.hpp; this runs on OpenMP threads), looked at per row of
/// the solves and per column of the elimination: Cancelled within milliseconds, inside one cut too.
std::uint32_t exact_one_cut(const std::vector<FieldLayer>& layers, pos_t k, const NumericRankOptions& opt,
                            std::uint32_t& used, const std::atomic<bool>* stop) {
  const pos_t n = layers[0].a.s->n;
  const std::uint64_t vectors = layers.size() > 1 ? 3 : 2;  // G and Y, and the previous layer's Y
  const pos_t m = n - k;
  const std::uint32_t maxr = std::min<pos_t>(k, m);
  // basis[t]: a vector of length m with 1 at piv[t] and 0 at piv[u] for every u < t
  std::vector<std::vector<std::uint64_t>> basis;
  std::vector<pos_t> piv;
  std::vector<std::uint64_t> g, y, tmp, v(m);
  used = 0;
  std::uint32_t s = std::max<std::uint32_t>(1, opt.first_block);
  for (;;) {
    const auto r = static_cast<std::uint32_t>(basis.size());
    s = std::min<std::uint32_t>(s, maxr - r);
    if (opt.mem_limit != ~std::uint64_t{0})
      check_memory(
          static_cast<std::uint64_t>(detail::loop_threads()) * 8ull *
              (static_cast<std::uint64_t>(m) * (r + s + 1) + vectors * n * s),
          opt.mem_limit,
          "exact rank at cut K = " + std::to_string(k) + " with " + std::to_string(r + s) + " columns");
    field_solve(layers, k, opt.seed, used, s, g, y, tmp, stop);
    used += s;
    for (std::uint32_t c = 0; c < s; ++c) {
      throw_if_cancelled(stop);
      for (pos_t i = 0; i < m; ++i) v[i] = y[static_cast<std::size_t>(k + i) * s + c];
      for (std::size_t t = 0; t < basis.size(); ++t) {
        const std::uint64_t f = v[piv[t]];
        if (f == 0) continue;
        const auto& bt = basis[t];
        for (pos_t i = 0; i < m; ++i)
          if (bt[i]) v[i] = submod(v[i], mulmod(f, bt[i]));
      }
      pos_t p = 0;
      while (p < m && v[p] == 0) ++p;
      if (p == m) return static_cast<std::uint32_t>(basis.size());  // a dependent random column: done
      const std::uint64_t inv = invmod(v[p]);
      for (pos_t i = p; i < m; ++i) v[i] = mulmod(v[i], inv);
      basis.push_back(v);
      piv.push_back(p);
      if (basis.size() >= maxr) return maxr;  // full rank: no deficit can show
    }
    s = static_cast<std::uint32_t>(basis.size());  // the next block doubles the basis
  }
}
}  // namespace

std::uint64_t exact_rank_prime() {
  return kP;
}

NumericCutRanks cut_ranks_exact(const WeightedPattern& w, const std::vector<pos_t>& cuts,
                                const NumericRankOptions& opt) {
  return cut_ranks_exact_product({&w}, cuts, opt);
}

NumericCutRanks cut_ranks_exact_product(const std::vector<const WeightedPattern*>& layers,
                                        const std::vector<pos_t>& cuts, const NumericRankOptions& opt) {
  if (layers.empty()) throw UsageError("the exact product rank needs at least one layer");
  const pos_t n = layers[0]->a.n;
  for (const auto* w : layers)
    if (w->a.n != n || w->b.n != n) throw UsageError("the exact product rank needs layers of equal n");
  const auto depth = static_cast<double>(layers.size());
  NumericCutRanks r;
  r.cuts = cuts;
  r.tolerance = 0.0;
  r.rule =
      layers.size() == 1
          ? "exact: r(K) = rank over GF(2^61-1) of M[K+1..n, 1..K] G (Gaussian elimination), with "
            "independent "
            "uniform weights in GF(2^61-1) on every nonzero of A and B and a random G, columns added until "
            "one is dependent; r(K) <= the Menger rank always, and equals it except with probability <= "
            "(n + min(K, n-K)) / (2^61-1) per cut (Schwartz-Zippel)"
          : "exact: r(K) = rank over GF(2^61-1) of M[K+1..n, 1..K] G, M = M_L ... M_1 (Gaussian "
            "elimination), with independent uniform weights in GF(2^61-1) on every nonzero of every layer's "
            "A and B and a random G, columns added until one is dependent; r(K) <= the Menger rank of the "
            "stacked graph always, and equals it except with probability <= (L n + min(K, n-K)) / "
            "(2^61-1) per cut (Schwartz-Zippel)";
  r.rank.assign(cuts.size(), 0);
  r.columns.assign(cuts.size(), 0);
  for (pos_t k : cuts)
    if (k < 1 || k >= n)
      throw UsageError("cut " + std::to_string(k) + " is outside 1.." + std::to_string(n - 1));
  std::vector<FieldLayer> fl;  // layer l's weights from seed + l (one layer: seed, as before)
  for (std::size_t l = 0; l < layers.size(); ++l)
    fl.push_back(
        {field_weights(layers[l]->a, opt.seed + l, 1), field_weights(layers[l]->b, opt.seed + l, 2)});
  double bound = 0.0;
  for (pos_t k : cuts)
    bound += (depth * static_cast<double>(n) + static_cast<double>(std::min<pos_t>(k, n - k))) /
             static_cast<double>(kP);
  r.failure_bound = bound;
  const auto nc = static_cast<std::int64_t>(cuts.size());
  const std::atomic<bool>* stop = cancel_flag();  // read here: the cuts run on OpenMP threads
  detail::for_each_cut_guarded(nc, "cut ranks: exact", stop, [&](std::size_t ci) {
    // the columns used so far stay in r.columns[ci] when the cut fails
    r.rank[ci] = exact_one_cut(fl, cuts[ci], opt, r.columns[ci], stop);
  });
  return r;
}

}  // namespace mixgraph
