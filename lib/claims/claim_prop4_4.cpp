// fagnou.prop4.4 — distances of translation-invariant patterns are the coin-change profile delta(i - j).
#include "claim_util.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  const auto pats =
      patterns_or(ctx, {"pow2", "sq1", "fib", "pow:3", "window:3", "offsets:3,5", "offsets:2", "ssm"});
  const std::uint64_t n = n_max_or(ctx, 2048);
  Counterexamples cex;
  std::uint32_t worst = 0;
  std::string worst_at;
  bool first = true;
  std::uint64_t pairs = 0;
  std::vector<ClaimSkip> na;
  for (const auto& spec : pats) {
    const auto p = make_pattern(spec, n_for(spec, n));
    if (!p.translation_invariant()) {
      na.push_back({spec, "not translation-invariant"});
      continue;
    }
    const auto prof = distance_profile(p);
    // Every source (BFS on the pattern, implicit offsets) against the profile read at i - j.
    for (pos_t j = 0; j < p.n; ++j) {
      auto d = single_source_distances(p, j);
      if (ctx.perturb && first) d[p.n - 1] = d[p.n - 1] == UNREACHABLE ? 0 : d[p.n - 1] + 1;
      first = false;
      for (pos_t i = j; i < p.n; ++i) {
        ++pairs;
        const auto want = prof[i - j];
        if (d[i] != want)
          cex.add(spec + " d(" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
                  ") = " + (d[i] == UNREACHABLE ? std::string("inf") : std::to_string(d[i])) + " but delta(" +
                  std::to_string(i - j) +
                  ") = " + (want == UNREACHABLE ? std::string("inf") : std::to_string(want)));
        if (d[i] != UNREACHABLE && d[i] > worst) {
          worst = d[i];
          worst_at = spec + " at i - j = " + std::to_string(i - j);
        }
      }
    }
  }
  ClaimOutcome o;
  o.passed = !cex.any();
  o.checked = join(pats) + "; every pair j <= i of n = " + std::to_string(n) + " (" + std::to_string(pairs) +
              " pairs)";
  o.worst = worst_at.empty() ? "no pair checked"
                             : "largest finite distance " + std::to_string(worst) + " (" + worst_at + ")";
  o.instances = pairs;
  o.not_applicable = na;
  if (cex.any()) o.counterexample = cex.text();
  o.detail = "BFS distances from every source compared with the coin-change profile";
  return o;
}

ClaimRegistrar reg({"fagnou.prop4.4", "Fagnou et al., arXiv 2605.31367", "Prop. 4.4",
                    "For a translation-invariant pattern, d(i, j) = delta(i - j), the fewest offsets f(k) "
                    "(repetition allowed) summing to i - j",
                    "translation-invariant patterns; all pairs up to n-max", check, 2048});

}  // namespace
}  // namespace mixgraph::claims
