// ghodsi.rank-gap — the rotation example: Abar = [[0,-1],[1,0]], Bbar = C = I has interaction rank k = 2,
// and one head leaves a Frobenius error >= 1 for every n >= 2.
#include <cmath>
#include <stdexcept>

#include "claim_util.hpp"
#include "mixgraph/interaction.hpp"

namespace mixgraph::claims {
namespace {

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
  double min_err = INFINITY, max_rel_exact = 0;
  std::uint64_t min_at = 0;
  bool first = true;
  for (auto n : ns) {
    auto r = ssm_interaction_rank(m, n, 0);
    if (ctx.perturb && first && r.residual_by_heads.size() > 1) r.residual_by_heads[1] = 0.5;
    first = false;
    const double e1 = r.residual_by_heads.size() > 1 ? r.residual_by_heads[1] : 0.0;
    const double total = r.residual_by_heads.empty() ? 0.0 : r.residual_by_heads[0];
    const double e2 = r.residual_by_heads.size() > 2 ? r.residual_by_heads[2] : 0.0;
    if (r.rank != 2)
      cex.add("n=" + std::to_string(n) + ": interaction rank " + std::to_string(r.rank) + " != 2");
    if (!(e1 >= 1.0))
      cex.add("n=" + std::to_string(n) + ": best single head leaves error " + fmt_g(e1) + " < 1");
    if (total > 0 && e2 / total > 1e-12)
      cex.add("n=" + std::to_string(n) + ": two heads leave relative error " + fmt_g(e2 / total));
    if (total > 0) max_rel_exact = std::max(max_rel_exact, e2 / total);
    if (e1 < min_err) min_err = e1, min_at = n;
  }
  ClaimOutcome o;
  o.passed = !cex.any();
  o.checked = "rotation SSM, n = 2..16, then powers of two up to " + std::to_string(nmax) + " (" +
              std::to_string(ns.size()) + " lengths)";
  o.worst =
      "smallest single-head Frobenius error " + fmt_g(min_err) + " (n = " + std::to_string(min_at) + ")";
  if (cex.any()) o.counterexample = cex.text();
  o.instances = ns.size();
  o.detail = "k = 2 at every n; two heads exact to relative " + fmt_g(max_rel_exact) +
             " (Eckart-Young residuals of the lag stack, interaction.hpp)";
  return o;
}

ClaimRegistrar reg(
    {"ghodsi.rank-gap", "Ghodsi, How Many Heads Make an SSM?", "rank-gap theorem (rotation example)",
     "The rotation SSM Abar = [[0,-1],[1,0]], Bbar = C = I has interaction rank k = 2, and any "
     "single head approximates it with Frobenius error >= 1 for every n >= 2",
     "the rotation SSM; n = 2..n-max (default 65536)", check, 1 << 20});

}  // namespace
}  // namespace mixgraph::claims
