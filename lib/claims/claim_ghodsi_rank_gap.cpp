// ghodsi.rank-gap — the rotation example: Abar = [[0,-1],[1,0]], Bbar = C = I has interaction rank k = 2,
// and one head leaves a Frobenius error >= 1 for every n >= 2.
#include <cmath>
#include <stdexcept>

#include "claim_util.hpp"
#include "mixgraph/interaction.hpp"

namespace mixgraph::claims {
namespace {

// The SVD's error bound, as in ghodsi.heads: the computed singular values of the n x 4 stack S are those of
// S + dS with ||dS||_2 <= f = u max(n, 4) sigma_1 (u = 2^-53), so each is within f of the exact one (Weyl)
// and the residual after two heads, zero in exact arithmetic, is at most ||dS||_F <= 2 f (Mirsky; 4 columns).
// Decisions keep a 100x margin: a singular value counts as nonzero above 100 f, the two-head residual must
// be below 100 (2 f), and a single head fails only with an error below 1 - 100 f.
constexpr double kMargin = 100.0;

ClaimOutcome check(const ClaimContext& ctx) {
  if (auto na = patterns_not_applicable(ctx, "the statement is about the rotation SSM, not a mixer pattern"))
    return *na;  // no pattern is in scope
  const std::uint64_t nmax = n_max_or(ctx, 1 << 16);
  if (nmax < 2)
    throw std::runtime_error("the rank-gap statement needs n >= 2 (got n-max " + std::to_string(nmax) + ")");
  std::vector<std::uint64_t> ns;
  for (std::uint64_t n = 2; n <= nmax; n = n < 16 ? n + 1 : n * 2) ns.push_back(n);
  if (ns.empty() || ns.back() != nmax) ns.push_back(nmax);
  const auto m = rotation_ssm();
  Counterexamples cex;
  double min_err = INFINITY, max_rel_exact = 0, max_bound_ratio = 0;
  std::uint64_t min_at = 0;
  bool first = true;
  for (auto n : ns) {
    auto r = ssm_interaction_rank(m, n, 0);
    if (ctx.perturb && first && r.residual_by_heads.size() > 1) r.residual_by_heads[1] = 0.5;
    if (r.singular_values.size() < 2 || r.residual_by_heads.size() < 3)
      throw std::runtime_error("the lag stack has fewer than 2 singular values at n = " + std::to_string(n));
    first = false;
    const double e1 = r.residual_by_heads.size() > 1 ? r.residual_by_heads[1] : 0.0;
    const double total = r.residual_by_heads.empty() ? 0.0 : r.residual_by_heads[0];
    const double e2 = r.residual_by_heads.size() > 2 ? r.residual_by_heads[2] : 0.0;
    const double sigma1 = r.singular_values.empty() ? 0.0 : r.singular_values[0];
    const double f = kUnitRoundoff * static_cast<double>(std::max<std::uint64_t>(n, 4)) * sigma1;
    std::uint32_t k = 0;
    for (double s : r.singular_values) k += s > kMargin * f;
    if (k != 2) cex.add("n=" + std::to_string(n) + ": interaction rank " + std::to_string(k) + " != 2");
    if (!(e1 >= 1.0 - kMargin * f))
      cex.add("n=" + std::to_string(n) + ": best single head leaves error " + fmt_g(e1) + " < 1");
    if (e2 > kMargin * 2 * f)
      cex.add("n=" + std::to_string(n) + ": two heads leave error " + fmt_g(e2) + " > 100 x the bound " +
              fmt_g(2 * f));
    max_bound_ratio = std::max(max_bound_ratio, f > 0 ? e2 / (2 * f) : 0.0);
    if (total > 0) max_rel_exact = std::max(max_rel_exact, e2 / total);
    if (e1 < min_err) min_err = e1, min_at = n;
  }
  return outcome_of(
      cex,
      {.checked = "rotation SSM, n = 2..16, then powers of two up to " + std::to_string(nmax) + " (" +
                  std::to_string(ns.size()) + " lengths)",
       .worst =
           "smallest single-head Frobenius error " + fmt_g(min_err) + " (n = " + std::to_string(min_at) + ")",
       .detail =
           "k = 2 at every n; two heads exact to relative " + fmt_g(max_rel_exact) + " (at most " +
           fmt_g(max_bound_ratio) +
           " x the SVD's error bound 2 f, f = u max(n, 4) sigma_1; tolerance 100 x the bound; Eckart-Young "
           "residuals of the lag stack, interaction.hpp)",
       .instances = ns.size()});
}

ClaimRegistrar reg(
    {"ghodsi.rank-gap", "Ghodsi, How Many Heads Make an SSM?", "rank-gap theorem (rotation example)",
     "The rotation SSM Abar = [[0,-1],[1,0]], Bbar = C = I has interaction rank k = 2, and any "
     "single head approximates it with Frobenius error >= 1 for every n >= 2",
     "the rotation SSM; n = 2..n-max (default 65536)", check, 1 << 20});

}  // namespace
}  // namespace mixgraph::claims
