// fagnou.prop4.2 — decode cost g(i) and whole-sequence work of translation-invariant patterns.
#include <cmath>

#include "claim_util.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"

namespace mixgraph::claims {
namespace {

std::string expected_class(const std::string& spec) {
  if (spec == "pow2" || spec.rfind("pow:", 0) == 0 || spec == "fib") return "O(n log n)";
  if (spec == "sq1" || spec == "sq") return "O(n^1.5)";
  if (spec == "dense") return "O(n^2)";
  if (spec.rfind("window:", 0) == 0 || spec == "ssm" || spec.rfind("offsets:", 0) == 0) return "O(n)";
  return "";
}

ClaimOutcome check(const ClaimContext& ctx) {
  const auto pats = patterns_or(ctx, {"pow2", "sq1", "fib", "pow:3", "window:4", "ssm", "dense"});
  const std::uint64_t nmax = n_max_or(ctx, 1 << 16);
  Counterexamples cex;
  std::string fits;
  std::uint32_t worst_cost = 0;
  std::string worst_at;
  bool first = true;
  std::vector<ClaimSkip> na;
  std::uint64_t instances = 0;
  for (const auto& spec : pats) {
    const PatternSpec& tree = tree_of(ctx, spec);  // parsed once: every n builds the tree
    const std::uint64_t n = spec == "dense" ? std::min<std::uint64_t>(nmax, 4096) : nmax;
    const auto p = make_pattern(tree, n_for(tree, n));
    if (!p.translation_invariant()) {
      na.push_back({spec, "not translation-invariant"});
      continue;
    }
    instances += p.n;
    auto prof = cache_profile(p);
    if (ctx.perturb && first && n > 1) prof.decode_cost[n - 1] += 1;
    first = false;
    // The statement: token i reads i - f(k) for every k with f(k) < i: #{k : f(k) < i} positions.
    for (pos_t i = 1; i <= p.n; ++i) {
      std::uint32_t count = 0;
      for (auto f : p.f_values) count += f < i;
      if (prof.decode_cost[i - 1] != count)
        cex.add(spec + " n=" + std::to_string(n) + " i=" + std::to_string(i) + ": decode cost " +
                std::to_string(prof.decode_cost[i - 1]) + " != #{k : f(k) < i} = " + std::to_string(count));
      if (prof.decode_cost[i - 1] > worst_cost) {
        worst_cost = prof.decode_cost[i - 1];
        worst_at = spec + " at i = " + std::to_string(i);
      }
    }
    // Whole-sequence work over a sweep: reported beside the result (a fit decides nothing).
    std::vector<double> xs, ys;
    for (std::uint64_t m = 256; m <= n; m *= 2) {
      xs.push_back(static_cast<double>(m));
      ys.push_back(static_cast<double>(cache_profile(make_pattern(tree, m), {0, false}).total_decode_cost));
    }
    add_growth_fit(fits, spec + ": total work", xs, ys, ", stated " + expected_class(spec));
  }
  return outcome_of(cex,
                    {.checked = join(pats) + "; every i in 1..n, n = " + std::to_string(nmax) +
                                " (dense: " + std::to_string(std::min<std::uint64_t>(nmax, 4096)) + ")",
                     .worst = "largest decode cost " + std::to_string(worst_cost) + " (" + worst_at + ")",
                     .detail = "paper's g(i) = max{k : f(k) < i} = decode cost - 1. " + fits,
                     .instances = instances,
                     .not_applicable = na});
}

ClaimRegistrar reg(
    {"fagnou.prop4.2", "Fagnou et al., arXiv 2605.31367", "Prop. 4.2",
     "Token i of a translation-invariant pattern reads #{k : f(k) < i} past positions (decode cost "
     "g(i) + 1); whole-sequence work is O(n) for a fixed offset set, O(n log n) for 2^k, "
     "O(n^1.5) for k^2+1, O(n^2) dense",
     "translation-invariant patterns; every position up to n", check, 1 << 20});

}  // namespace
}  // namespace mixgraph::claims
