// fagnou.eq1-eq2 — Eq. 1 (the sequential recurrence) == Eq. 2 (Y = (I-B)^{-1} A X) in fp64.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "claim_util.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph::claims {
namespace {

constexpr double kTol = 1e-12;

double rel_frobenius(const std::vector<double>& ref, const std::vector<double>& y) {
  double num = 0, den = 0;
  for (std::size_t k = 0; k < ref.size(); ++k)
    num += (ref[k] - y[k]) * (ref[k] - y[k]), den += ref[k] * ref[k];
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
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
  double worst = 0;
  std::string worst_at;
  bool first = true;
  std::vector<std::uint64_t> ns = {n_dense};
  if (nmax > n_dense) ns.push_back(nmax);
  std::uint64_t solves = 0;
  for (const auto& spec : pats)
    for (std::size_t t = 0; t < ns.size(); ++t) {
      const std::uint64_t n =
          spec == "dense" ? std::min<std::uint64_t>(ns[t], 4096) : ns[t];  // n^2/2 nonzeros
      if (t > 0 && n == n_dense) continue;
      ++solves;
      const auto p = make_pattern(spec, n);
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
      auto note = [&](double e, const std::string& what) {
        if (e > worst) worst = e, worst_at = where + " (" + what + ")";
        if (!(e <= kTol)) cex.add(where + ": " + what + " relative Frobenius difference " + fmt_g(e));
      };
      note(rel_frobenius(y1, y2), "recurrence vs solve_mixer");
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
        note(rel_frobenius(y3, y1), "recurrence vs dense Eigen");
        note(rel_frobenius(y3, y2), "solve_mixer vs dense Eigen");
      }
    }
  ClaimOutcome o;
  o.passed = !cex.any();
  o.checked =
      join(pats) + "; " + std::to_string(H) + " heads, d = " + std::to_string(d) +
      ", fp64; n = " + std::to_string(n_dense) + " (with dense Eigen)" +
      (nmax > n_dense ? " and n = " + std::to_string(nmax) + " (the dense pattern: at most 4096)" : "");
  o.worst = "largest relative Frobenius difference " + fmt_g(worst) + " (" + worst_at + ")";
  if (cex.any()) o.counterexample = cex.text();
  o.instances = solves;
  o.detail = "tolerance " + fmt_g(kTol) + "; weights random_weights (seeds 1, 2), x uniform in [-1, 1)";
  return o;
}

ClaimRegistrar reg(
    {"fagnou.eq1-eq2", "Fagnou et al., arXiv 2605.31367", "Eq. 1 = Eq. 2",
     "The sequential recurrence y_i = sum_j alpha_ij x_j + sum_{j<i} beta_ij y_j (Eq. 1) computes "
     "Y = (I - B)^{-1} A X (Eq. 2): equal to 1e-12 relative Frobenius in fp64 (recurrence, "
     "mixgraph's solver, dense Eigen)",
     "any pattern; n up to n-max (default 65536), dense Eigen at n <= 1024", check, 1 << 16});

}  // namespace
}  // namespace mixgraph::claims
