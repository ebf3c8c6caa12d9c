// fagnou.weight-sharing — App. B.3: with A = B D + D', (I-B)^{-1}(BD + D') x = (I-B)^{-1}(D + D') x - D x.
#include <cmath>
#include <stdexcept>

#include "claim_util.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph::claims {
namespace {

constexpr double kMargin = 100;  // tolerance = kMargin x the a-priori bound

/// The most products in a row of the solve: A's reads plus B's reads.
std::uint64_t row_terms(const WeightedPattern& w) {
  std::uint64_t m = 1;
  for (pos_t i = 0; i < w.a.n; ++i) m = std::max<std::uint64_t>(m, w.a.row(i).size() + w.b.row(i).size());
  return m;
}

ClaimOutcome check(const ClaimContext& ctx) {
  const auto pats = patterns_or(ctx, {"pow2", "sq1", "fib", "window:3", "dense", "pow2+cache", "sq1+cache"});
  const std::uint64_t nmax = n_max_or(ctx, 1 << 16);
  constexpr std::size_t d = 3;
  Counterexamples cex;
  std::vector<std::string> skipped;
  double worst = 0, worst_bound = 0, min_margin = INFINITY;
  std::string worst_at;
  bool first = true;
  std::vector<std::string> done;
  std::vector<ClaimSkip> na;
  for (const auto& spec : pats) {
    const auto p =
        pattern_at(ctx, spec, n_for(spec, spec == "dense" ? std::min<std::uint64_t>(nmax, 2048) : nmax));
    const std::uint64_t n = p.n;
    if (p.a_mode != AMode::Shared) {  // A = B D + D' needs A's pattern to be B's plus the diagonal
      skipped.push_back(spec);
      na.push_back({spec, "A is not B's pattern plus the diagonal"});
      continue;
    }
    check_memory(mixer_weights_bytes(p, 1, sizeof(double)) * 6, 0, "verify: weights for App. B.3");
    const auto w = random_weights(p, 3);
    std::vector<double> D(n), Dp(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      D[i] = 2 * hash_uniform(5, 0xd1a9, i, 0) - 1;
      Dp[i] = 2 * hash_uniform(5, 0xd1a9, i, 1) - 1;
    }
    // A = B D + D' on the shared pattern (row i: B's reads of i, then i), and A2 = D + D'.
    WeightedPattern lhs{w.a, w.b}, rhs{w.a, w.b};
    for (pos_t i = 0; i < p.n; ++i) {
      auto ar = w.a.row(i);
      auto br = w.b.row(i);
      auto bv = w.b.row_values(i);
      std::size_t k = 0;
      for (std::size_t e = 0; e < ar.size(); ++e) {
        const auto j = ar[e];
        const nnz_t at = w.a.ptr[i] + e;
        if (j == i) {
          lhs.a.val[at] = Dp[i];
          rhs.a.val[at] = D[i] + Dp[i];
          continue;
        }
        while (k < br.size() && br[k] < j) ++k;
        if (k == br.size() || br[k] != j)
          throw std::runtime_error(spec + ": A's pattern is not B's plus the diagonal");
        lhs.a.val[at] = bv[k] * D[j];
        rhs.a.val[at] = 0.0;
      }
    }
    std::vector<double> x(n * d), y1(n * d), y2(n * d);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = 2 * hash_uniform(7, 0x5eed, k / d, k % d) - 1;
    solve_mixer(mixer_weights_from<double>(p, {lhs}), x.data(), y1.data(), d, ctx.threads);
    solve_mixer(mixer_weights_from<double>(p, {rhs}), x.data(), y2.data(), d, ctx.threads);
    for (std::size_t k = 0; k < y2.size(); ++k) y2[k] -= D[k / d] * x[k];
    if (ctx.perturb && first) y1[y1.size() / 2] += 1.0;
    first = false;
    // Bound: each side's solve is within substitution_error_bound of its exact value (one more rounding per
    // row for the products b D and the sum D + D' of its A); the right side's - D x adds at most
    // 3 u (||y2|| + ||D|| ||x||) (a product and a subtraction).
    double norm_x = 0, norm_d = 0;
    for (double v : x) norm_x = std::max(norm_x, std::fabs(v));
    for (double v : D) norm_d = std::max(norm_d, std::fabs(v));
    const double nb = inf_norm(w.b);
    const double e1 = substitution_error_bound(inf_norm(lhs.a), nb, norm_x, row_terms(w) + 1);
    const double e2 = substitution_error_bound(inf_norm(rhs.a), nb, norm_x, row_terms(w) + 1);
    const double y2_norm = inf_norm(rhs.a) * norm_x / (1 - nb) + e2;
    const double bound = e1 + e2 + 3 * kUnitRoundoff * (y2_norm + norm_d * norm_x);
    const double e = max_abs_diff(y1, y2);
    const auto where = spec + " n=" + std::to_string(n);
    done.push_back(where);
    if (e > worst || worst_at.empty()) worst = e, worst_bound = bound, worst_at = where;
    min_margin = std::min(min_margin, bound / std::max(e, 1e-300));
    if (!(e <= kMargin * bound))
      cex.add(where + ": max |difference| " + fmt_g(e) + " > 100 x bound " + fmt_g(bound));
  }
  return outcome_of(
      cex,
      {.checked = join(done) + "; d = " + std::to_string(d) + ", fp64, mixgraph's solver on both sides",
       .worst = done.empty() ? "nothing compared"
                             : "largest max |difference| " + fmt_g(worst) + " (" + worst_at + ", bound " +
                                   fmt_g(worst_bound) + "); every difference at least " + fmt_g(min_margin) +
                                   "x below its bound (tolerance: 100 x the bound)",
       .detail =
           "B from random_weights (seed 3), D and D' diagonal uniform in [-1, 1); tolerance: 100 "
           "x the a-priori bound e1 + e2 + 3 u (||y2|| + ||D|| ||x||), e = the forward-substitution "
           "bound of fagnou.eq1-eq2 for each side (m = A's plus B's reads per row, plus one "
           "rounding of A's values), u = 2^-53" +
           (skipped.empty() ? ""
                            : "; not applicable (A is not B's pattern plus the diagonal): " + join(skipped)),
       .instances = done.size(),
       .not_applicable = na});
}

ClaimRegistrar reg(
    {"fagnou.weight-sharing", "Fagnou et al., arXiv 2605.31367", "App. B.3",
     "Weight sharing: with A = B D + D' (D, D' diagonal), (I-B)^{-1}(B D + D') x = "
     "(I-B)^{-1}(D + D') x - D x, so a shared-pattern mixer reduces to a diagonal-A one (both sides in fp64 "
     "within 100 x the a-priori rounding-error bound of forward substitution, as in fagnou.eq1-eq2)",
     "patterns whose A is B's pattern plus the diagonal; n = n-max (default 65536; dense 2048)", check,
     1 << 16});

}  // namespace
}  // namespace mixgraph::claims
