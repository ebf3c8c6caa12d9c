// fagnou.cache-chain — cache sizes of cache-efficient patterns: |C_i| <= |S_i| <= #{k : f(k) < i} + 1.
#include <cmath>

#include "claim_util.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  const auto pats = patterns_or(
      ctx, {"pow2+cache", "sq1+cache", "fib+cache", "pow:3+cache", "window:4+cache", "offsets:5,7+cache"});
  const std::uint64_t nmax = n_max_or(ctx, 1 << 16);
  Counterexamples cex;
  std::string fits;
  double worst_ratio = 0;
  std::string worst;
  bool first = true;
  std::vector<ClaimSkip> na;
  std::uint64_t instances = 0;
  for (const auto& spec : pats) {
    const PatternSpec& tree = tree_of(ctx, spec);  // parsed once: every n builds the tree
    make_pattern(tree, n_for(tree, 64));  // an unknown pattern is a usage error (ERROR), not out of scope
    if (tree.kind != SpecKind::Cache) {
      na.push_back({spec, "not a cache-efficient pattern (no +cache)"});
      continue;
    }
    const bool pow2_cache = tree.parts.at(0).kind == SpecKind::Family && tree.parts[0].family == "pow2";
    std::vector<double> xs, ys;
    for (std::uint64_t n = 16; n <= nmax; n *= 2) {
      const auto p = make_pattern(tree, n);
      auto prof = cache_profile(p);
      ++instances;
      if (ctx.perturb && first) prof.cache_size[0] = prof.kept_set[0] + 1;
      first = false;
      for (pos_t i = 1; i <= p.n; ++i) {
        std::uint32_t bound = 1;
        for (auto f : p.f_values) bound += f < i;
        const auto c = prof.cache_size[i - 1], s = prof.kept_set[i - 1];
        if (c > s || s > bound)
          cex.add(spec + " n=" + std::to_string(n) + " i=" + std::to_string(i) +
                  ": |C_i| = " + std::to_string(c) + ", |S_i| = " + std::to_string(s) +
                  ", #{k : f(k) < i} + 1 = " + std::to_string(bound));
      }
      if (pow2_cache) {  // hence max cache <= ceil(log2 n) + 1
        const auto lim = static_cast<std::uint32_t>(std::ceil(std::log2(static_cast<double>(n)))) + 1;
        if (prof.max_cache > lim)
          cex.add("pow2+cache n=" + std::to_string(n) + ": max cache " + std::to_string(prof.max_cache) +
                  " > ceil(log2 n) + 1 = " + std::to_string(lim));
        const double r = prof.max_cache / static_cast<double>(lim);
        if (r > worst_ratio) {
          worst_ratio = r;
          worst = "pow2+cache n=" + std::to_string(n) + ": max cache " + std::to_string(prof.max_cache) +
                  " vs ceil(log2 n) + 1 = " + std::to_string(lim);
        }
      }
      xs.push_back(static_cast<double>(n));
      ys.push_back(prof.max_cache);
    }
    add_growth_fit(fits, spec + ": max cache", xs, ys);
  }
  return outcome_of(
      cex, {.checked = join(pats) + "; every position, n = 16, 32, ..., " + std::to_string(nmax) + " (" +
                       std::to_string(instances) + " pattern lengths)",
            .worst = worst.empty() ? "chain held everywhere" : worst,
            .detail = "growth fits (reported, never deciding): " +
                      (fits.empty() ? "none (fewer than 3 lengths)" : fits),
            .instances = instances,
            .not_applicable = na});
}

ClaimRegistrar reg(
    {"fagnou.cache-chain", "Fagnou et al., arXiv 2605.31367", "Def. 4.10 / Sec. 4.3",
     "Cache of a cache-efficient pattern: |C_i| <= |S_i| <= #{k : f(k) < i} + 1 for every i, so "
     "max cache <= ceil(log2 n) + 1 for pow2+cache (O(log n)) and O(sqrt n) for sq1+cache",
     "cache-efficient patterns; every position, n a power of two up to n-max", check, 1 << 18});

}  // namespace
}  // namespace mixgraph::claims
