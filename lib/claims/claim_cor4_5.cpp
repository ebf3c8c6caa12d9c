// fagnou.cor4.5 — 2^k: delta(m) = popcount(m); k^2+1: delta(m) <= 4, reached (first at m = 58).
#include <algorithm>
#include <bit>

#include "claim_util.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  const std::uint64_t n = n_max_or(ctx, 1 << 24);
  std::vector<ClaimSkip> na;
  const auto pats = fixed_patterns(ctx, {"pow2", "sq1"}, "the corollary is about pow2 and sq1 only", na);
  const bool do_pw = std::find(pats.begin(), pats.end(), "pow2") != pats.end();
  const bool do_sq = std::find(pats.begin(), pats.end(), "sq1") != pats.end();
  Counterexamples cex;
  std::vector<std::uint32_t> pw;
  if (do_pw) pw = distance_profile(pattern_at(ctx, "pow2", n)).to_vector();
  if (ctx.perturb && do_pw) pw[n - 1] += 1;
  std::uint32_t maxpw = 0;
  for (std::uint64_t m = 0; do_pw && m < n; ++m) {
    const auto want = static_cast<std::uint32_t>(std::popcount(m));
    if (pw[m] != want)
      cex.add("pow2: delta(" + std::to_string(m) + ") = " + std::to_string(pw[m]) +
              " != popcount = " + std::to_string(want));
    maxpw = std::max(maxpw, pw[m]);
  }
  std::vector<std::uint32_t> sq;
  if (do_sq) sq = distance_profile(pattern_at(ctx, "sq1", n)).to_vector();
  std::uint32_t maxsq = 0;
  std::uint64_t first4 = 0;
  for (std::uint64_t m = 0; do_sq && m < n; ++m) {
    const auto d = sq[m];
    if (d > 4) cex.add("sq1: delta(" + std::to_string(m) + ") = " + std::to_string(d) + " > 4");
    if (d > maxsq) maxsq = d;
    if (d == 4 && first4 == 0) first4 = m;
  }
  if (do_sq && n > 58 && maxsq < 4) cex.add("sq1: 4 is never reached below n = " + std::to_string(n));
  return outcome_of(
      cex,
      {.checked = join(pats) + " profiles, every m < " + std::to_string(n),
       .worst = (do_pw ? "pow2 max delta " + std::to_string(maxpw) : std::string()) +
                (do_pw && do_sq ? "; " : "") +
                (do_sq ? "sq1 max delta " + std::to_string(maxsq) : std::string()) +
                (first4 ? " (first 4 at m = " + std::to_string(first4) + ")" : std::string()),
       .detail =
           "popcount and Lagrange's four-square bound are the references; the profiles come from the generic "
           "coin-change computation",
       .instances = (do_pw + do_sq) * n,
       .not_applicable = na});
}

ClaimRegistrar reg({"fagnou.cor4.5", "Fagnou et al., arXiv 2605.31367", "Cor. 4.5",
                    "For 2^k, delta(m) = popcount(m); for k^2+1, delta(m) <= 4 and 4 is reached",
                    "pow2 and sq1; every offset m below n-max", check});

}  // namespace
}  // namespace mixgraph::claims
