// fagnou.cache-rank-bound — r(K) <= 2|C_K| (<= |C_K| when A is diagonal) on every cut.
#include <algorithm>
#include <cmath>

#include "claim_util.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph::claims {
namespace {

std::string contrast() {
  CutRankParams dp;
  dp.method = CutRankMethod::Both;
  const auto a = cut_rank_profile(make_pattern("pow2", 256), dp);
  const auto b = cut_rank_profile(make_pattern("pow2+cache", 256), dp);
  std::uint32_t r128 = 0;
  for (std::size_t c = 0; c < a.cuts.size(); ++c)
    if (a.cuts[c] == 128) r128 = a.flow[c];
  return "contrast at n = 256: pow2 r(128) = " + std::to_string(r128) +
         ", max r = " + std::to_string(a.max_cut_rank) + " (K = " + std::to_string(a.argmax_cut) +
         "); pow2+cache max r = " + std::to_string(b.max_cut_rank) + " (K = " + std::to_string(b.argmax_cut) +
         "), max cache " + std::to_string(b.max_cache) +
         " (numeric == flow: " + (a.agree && b.agree ? "yes" : "no") + ")";
}

ClaimOutcome check(const ClaimContext& ctx) {
  const auto pats = patterns_or(
      ctx, {"pow2+cache", "sq1+cache", "fib+cache", "pow:3+cache", "window:3+cache", "ssm", "window:4"});
  const std::uint64_t nmax = n_max_or(ctx, 3000);
  const std::uint64_t n_numeric = std::min<std::uint64_t>(nmax, 256);
  Counterexamples cex;
  double worst_ratio = 0;
  std::string worst;
  std::uint64_t cuts_checked = 0;
  bool first = true;
  std::vector<std::uint64_t> ns = {n_numeric};
  if (nmax > n_numeric) ns.push_back(nmax);
  for (const auto& spec : pats)
    for (auto n : ns) {
      CutRankParams params;
      params.method = n <= 256 ? CutRankMethod::Both : CutRankMethod::Flow;  // flow = generic rank (Menger)
      params.cuts = all_cuts(static_cast<pos_t>(n));
      auto prof = cut_rank_profile(make_pattern(spec, n), params);
      auto& r = prof.flow_done ? prof.flow : prof.numeric;
      if (ctx.perturb && first && !r.empty()) r[r.size() / 2] = 2 * prof.cache_at_cut[r.size() / 2] + 1;
      first = false;
      // exact numeric ranks never exceed the flow (Menger) rank; below it they are either file weights (not
      // generic: legitimate) or a Schwartz-Zippel miss (probability <= prof.failure_bound)
      if (prof.numeric_done && prof.flow_done && prof.generic_weights && !prof.agree)
        cex.add(spec + " n=" + std::to_string(n) + ": numeric and flow cut ranks differ at " +
                std::to_string(prof.disagreements.size()) + " cuts");
      const std::uint32_t factor = prof.a_diagonal ? 1 : 2;
      for (std::size_t c = 0; c < prof.cuts.size(); ++c) {
        ++cuts_checked;
        const std::uint32_t bound = factor * prof.cache_at_cut[c];
        if (r[c] > bound)
          cex.add(spec + " n=" + std::to_string(n) + " K=" + std::to_string(prof.cuts[c]) +
                  ": r(K) = " + std::to_string(r[c]) + " > " + (factor == 1 ? "|C_K| = " : "2|C_K| = ") +
                  std::to_string(bound));
        const double ratio = bound ? static_cast<double>(r[c]) / bound : (r[c] ? INFINITY : 0.0);
        if (ratio > worst_ratio) {
          worst_ratio = ratio;
          worst = spec + " n=" + std::to_string(n) + " K=" + std::to_string(prof.cuts[c]) +
                  ": r(K) = " + std::to_string(r[c]) + " vs " + (factor == 1 ? "|C_K| = " : "2|C_K| = ") +
                  std::to_string(bound);
        }
      }
    }
  ClaimOutcome o;
  o.passed = !cex.any();
  o.checked = join(pats) + "; every cut, n = " + std::to_string(n_numeric) + " (numeric and flow)" +
              (nmax > n_numeric ? " and n = " + std::to_string(nmax) + " (flow = generic rank)" : "") + ", " +
              std::to_string(cuts_checked) + " cuts";
  o.worst = worst.empty() ? "no cut with a nonzero bound"
                          : "tightest cut " + worst + " (ratio " + fmt_g(worst_ratio) + ")";
  if (cex.any()) o.counterexample = cex.text();
  o.detail = contrast();
  o.instances = cuts_checked;
  return o;
}

ClaimRegistrar reg(
    {"fagnou.cache-rank-bound", "Fagnou et al., arXiv 2605.31367; docs/math.md §5",
     "cache bound on the cut rank",
     "Every cut rank is bounded by the decode cache: r(K) <= 2|C_K|, and r(K) <= |C_K| when A is "
     "diagonal (so O(log n) for pow2+cache, while pow2 itself reaches r(n/2) = n/2)",
     "patterns with a decode cache; every cut, numeric at n <= 256, flow up to n-max (default 3000)", check,
     4096});

}  // namespace
}  // namespace mixgraph::claims
