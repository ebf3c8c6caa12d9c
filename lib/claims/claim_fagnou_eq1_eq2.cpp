// fagnou.eq1-eq2 — Eq. 1 (the sequential recurrence) == Eq. 2 (Y = (I-B)^{-1} A X) in fp64, every difference
// within the a-priori rounding-error bound of forward substitution (substitution_error_bound).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "claim_util.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph::claims {
namespace {

constexpr double kMargin = 100;  // tolerance = kMargin x the a-priori bound

/// The bound on one computed solution's error, over the heads, for rows of at most m(head) products.
template <class M>
double heads_bound(const std::vector<WeightedPattern>& heads, double norm_x, M&& m) {
  double e = 0;
  for (const auto& w : heads)
    e = std::max(e, substitution_error_bound(inf_norm(w.a), inf_norm(w.b), norm_x, m(w)));
  return e;
}

/// The most products in a row of Eq. 1: A's reads plus B's reads.
std::uint64_t row_terms(const WeightedPattern& w) {
  std::uint64_t m = 1;
  for (pos_t i = 0; i < w.a.n; ++i) m = std::max<std::uint64_t>(m, w.a.row(i).size() + w.b.row(i).size());
  return m;
}

Eigen::MatrixXd dense_of(const Csr& m) {
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(m.n, m.n);
  for (pos_t i = 0; i < m.n; ++i) {
    auto r = m.row(i);
    auto v = m.row_values(i);
    for (std::size_t e = 0; e < r.size(); ++e) d(i, r[e]) = v[e];
  }
  return d;
}

ClaimOutcome check(const ClaimContext& ctx) {
  const auto pats = patterns_or(
      ctx, {"pow2", "sq1", "fib", "window:3", "ssm", "dense", "local:4", "pow2+cache", "sq1+cache"});
  const std::uint64_t nmax = n_max_or(ctx, 1 << 16);
  const std::uint64_t n_dense = std::min<std::uint64_t>(nmax, 1024);
  constexpr std::size_t d = 4;
  constexpr int H = 2;
  Counterexamples cex;
  double worst = 0, worst_bound = 0, min_margin = INFINITY;
  std::string worst_at;
  bool first = true;
  std::vector<std::uint64_t> ns = {n_dense};
  if (nmax > n_dense) ns.push_back(nmax);
  std::uint64_t solves = 0;
  for (const auto& spec : pats) {
    const PatternSpec& tree = tree_of(ctx, spec);  // parsed once: every n builds the tree
    for (std::size_t t = 0; t < ns.size(); ++t) {
      const std::uint64_t n =
          spec == "dense" ? std::min<std::uint64_t>(ns[t], 4096) : ns[t];  // n^2/2 nonzeros
      if (t > 0 && n == n_dense) continue;
      ++solves;
      const auto p = make_pattern(tree, n);
      check_memory(mixer_weights_bytes(p, H, sizeof(double)) * 3, 0, "verify: weights for Eq. 1 / Eq. 2");
      std::vector<WeightedPattern> heads;
      for (int h = 0; h < H; ++h) heads.push_back(random_weights(p, 1 + h));
      std::vector<double> x(n * d), y1(n * d), y2(n * d);
      for (std::size_t k = 0; k < x.size(); ++k) x[k] = 2 * hash_uniform(7, 0x5eed, k / d, k % d) - 1;
      solve_recurrence(heads, static_cast<pos_t>(n), x.data(), y1.data(), d);  // Eq. 1
      const auto W = mixer_weights_from<double>(p, heads);
      solve_mixer(W, x.data(), y2.data(), d, ctx.threads);  // Eq. 2, the solver
      if (ctx.perturb && first) y2[0] += 1.0;
      first = false;
      const auto where = spec + " n=" + std::to_string(n);
      double norm_x = 0;
      for (double v : x) norm_x = std::max(norm_x, std::fabs(v));
      // each computed solution is within e_sparse (rows of A's plus B's reads) or e_dense (n + n products:
      // A X, then the triangular solve) of the exact Y; two of them differ by at most the sum
      const double e_sparse = heads_bound(heads, norm_x, row_terms);
      const double e_dense = heads_bound(heads, norm_x, [&](const WeightedPattern&) { return 2 * n; });
      auto note = [&](double e, double bound, const std::string& what) {
        if (e > worst) worst = e, worst_bound = bound, worst_at = where + " (" + what + ")";
        min_margin = std::min(min_margin, bound / std::max(e, 1e-300));
        if (!(e <= kMargin * bound))
          cex.add(where + ": " + what + " max |difference| " + fmt_g(e) + " > 100 x bound " + fmt_g(bound));
      };
      note(max_abs_diff(y1, y2), 2 * e_sparse, "recurrence vs solve_mixer");
      if (n <= n_dense) {  // Eq. 2 by dense Eigen: (I - B_h) Y_h = A_h X_h per head
        std::vector<double> y3(n * d);
        const std::size_t dh = d / H;
        for (int h = 0; h < H; ++h) {
          const Eigen::MatrixXd A = dense_of(heads[h].a), B = dense_of(heads[h].b);
          Eigen::MatrixXd X(n, dh);
          for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < dh; ++c) X(i, c) = x[i * d + h * dh + c];
          const Eigen::MatrixXd IB = Eigen::MatrixXd::Identity(n, n) - B;
          const Eigen::MatrixXd Y = IB.triangularView<Eigen::Lower>().solve(A * X);
          for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < dh; ++c) y3[i * d + h * dh + c] = Y(i, c);
        }
        note(max_abs_diff(y3, y1), e_dense + e_sparse, "recurrence vs dense Eigen");
        note(max_abs_diff(y3, y2), e_dense + e_sparse, "solve_mixer vs dense Eigen");
      }
    }
  }
  return outcome_of(
      cex,
      {.checked =
           join(pats) + "; " + std::to_string(H) + " heads, d = " + std::to_string(d) +
           ", fp64; n = " + std::to_string(n_dense) + " (with dense Eigen)" +
           (nmax > n_dense ? " and n = " + std::to_string(nmax) + " (the dense pattern: at most 4096)" : ""),
       .worst = "largest max |difference| " + fmt_g(worst) + " (" + worst_at + ", bound " +
                fmt_g(worst_bound) + "); every difference at least " + fmt_g(min_margin) +
                "x below its bound (tolerance: 100 x the bound)",
       .detail =
           "tolerance: 100 x the a-priori bound of fp64 forward substitution, per pair e1 + e2 with e = k g "
           "(||A|| ||x|| + (1 + ||B||) k ||A|| ||x||) / (1 - k g (1 + ||B||)), k = 1 / (1 - ||B||), g = m u "
           "/ (1 - m u), u = 2^-53, infinity norms measured on the weights, m = the most products in a row "
           "(A's plus B's reads; 2n for dense Eigen); weights random_weights (seeds 1, 2), x uniform in "
           "[-1, 1)",
       .instances = solves});
}

ClaimRegistrar reg(
    {"fagnou.eq1-eq2", "Fagnou et al., arXiv 2605.31367", "Eq. 1 = Eq. 2",
     "The sequential recurrence y_i = sum_j alpha_ij x_j + sum_{j<i} beta_ij y_j (Eq. 1) computes "
     "Y = (I - B)^{-1} A X (Eq. 2): in fp64 the recurrence, mixgraph's solver and dense Eigen agree within "
     "100 x the a-priori rounding-error bound of forward substitution (Higham, Thm. 8.5: max |difference| <= "
     "e1 + e2, e = k g (||A|| ||x|| + (1 + ||B||) k ||A|| ||x||) / (1 - k g (1 + ||B||)), k = 1 / (1 - "
     "||B||), "
     "g = m u / (1 - m u), m = products per row)",
     "any pattern; n up to n-max (default 65536), dense Eigen at n <= 1024", check, 1 << 16});

}  // namespace
}  // namespace mixgraph::claims
