// fagnou.prop4.4 — distances of translation-invariant patterns are the coin-change profile delta(i - j).
// Split into instances, one per pattern: each runs alone (a shard under MPI) and they merge in order.
#include <cmath>

#include "claim_util.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::claims {
namespace {

std::vector<std::string> list(const ClaimContext& ctx) {
  return patterns_or(ctx, {"pow2", "sq1", "fib", "pow:3", "window:3", "offsets:3,5", "offsets:2", "ssm"});
}

ClaimPart run(const ClaimContext& ctx, std::size_t k) {
  const auto spec = list(ctx).at(k);
  const std::uint64_t n = n_max_or(ctx, 2048);
  ClaimPart part;
  const auto p = pattern_at(ctx, spec, n_for(spec, n));
  if (!p.translation_invariant()) {
    part.not_applicable.push_back({spec, "not translation-invariant"});
    return part;
  }
  const auto prof = distance_profile(p);
  // Every source (BFS on the pattern, implicit offsets) against the profile read at i - j.
  for (pos_t j = 0; j < p.n; ++j) {
    auto d = single_source_distances(p, j);
    if (ctx.perturb && j == 0) d[p.n - 1] = d[p.n - 1] == UNREACHABLE ? 0 : d[p.n - 1] + 1;
    for (pos_t i = j; i < p.n; ++i) {
      ++part.checked;
      const auto want = prof[i - j];
      if (d[i] != want)
        part.add_counterexample(spec + " d(" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
                                ") = " + (d[i] == UNREACHABLE ? std::string("inf") : std::to_string(d[i])) +
                                " but delta(" + std::to_string(i - j) +
                                ") = " + (want == UNREACHABLE ? std::string("inf") : std::to_string(want)));
      if (d[i] != UNREACHABLE && d[i] > part.worst) {
        part.worst = d[i];
        part.worst_at = spec + " at i - j = " + std::to_string(i - j);
      }
    }
  }
  return part;
}

ClaimOutcome finish(const ClaimContext& ctx, const ClaimPart& all) {
  const std::uint64_t n = n_max_or(ctx, 2048);
  ClaimOutcome o;
  o.checked = join(list(ctx)) + "; every pair j <= i of n = " + std::to_string(n) + " (" +
              std::to_string(all.checked) + " pairs)";
  o.worst = all.worst_at.empty()
                ? "no pair checked"
                : "largest finite distance " + std::to_string(static_cast<std::uint32_t>(all.worst)) + " (" +
                      all.worst_at + ")";
  o.instances = all.checked;
  o.not_applicable = all.not_applicable;
  o.counterexample = counterexample_text(all);
  o.detail = "BFS distances from every source compared with the coin-change profile";
  return o;
}

/// Seconds on one thread: every source's BFS, n^2 / 2 pairs, at n = 512 from measured instance times
/// (docs/scaling.md, "per-shard costs"): cheap for the sparse offset sets, up to 40x more for windows/ssm.
double cost(const ClaimContext& ctx, std::size_t k) {
  const auto spec = list(ctx).at(k);
  const double x = static_cast<double>(n_max_or(ctx, 2048)) / 512.0;
  const double c = value_for(spec,
                             {{"ssm", 1.3},
                              {"offsets:2", 0.66},
                              {"window:3", 0.47},
                              {"offsets:3,5", 0.33},
                              {"pow2", 0.04},
                              {"sq1", 0.04},
                              {"fib", 0.04},
                              {"pow:3", 0.04}},
                             0.5);
  return c * x * x;
}

ClaimRegistrar reg({"fagnou.prop4.4", "Fagnou et al., arXiv 2605.31367", "Prop. 4.4",
                    "For a translation-invariant pattern, d(i, j) = delta(i - j), the fewest offsets f(k) "
                    "(repetition allowed) summing to i - j",
                    "translation-invariant patterns; all pairs up to n-max", nullptr, 2048,
                    ClaimInstances{list, run, finish, cost}});

}  // namespace
}  // namespace mixgraph::claims
