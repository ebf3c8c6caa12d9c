// fagnou.menger — cut rank r(K) (numeric, random weights) == max number of vertex-disjoint paths (max-flow).
#include <algorithm>

#include "claim_util.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  const auto pats = patterns_or(ctx, {"pow2", "sq1", "window:3", "ssm", "dense", "pow2+cache", "sq1+cache"});
  // Dense numerics over every cut cost O(n^4 / 20) for the dense pattern: n is capped at 384.
  constexpr std::uint64_t kCap = 384;
  const std::uint64_t nmax = std::min<std::uint64_t>(n_max_or(ctx, kCap), kCap);
  std::vector<std::uint64_t> ns;
  for (std::uint64_t n : {2ull, 17ull, 64ull, 100ull})
    if (n < nmax) ns.push_back(n);
  ns.push_back(nmax);
  Counterexamples cex;
  std::uint64_t cuts = 0;
  std::uint32_t worst = 0;
  std::string worst_at;
  bool first = true;
  std::vector<ClaimSkip> na;
  double failure_bound = 0.0;
  for (const auto& spec : pats)
    for (auto n : ns) {
      const auto p = make_pattern(spec, n_for(spec, n));
      const auto w = induced_weights(p, /*seed=*/1);
      if (!w.generic) {
        na.push_back(
            {spec, "weights come from a file, not generic (the statement is about generic weights)"});
        break;
      }
      const auto all = all_cuts(p.n);
      if (all.empty()) continue;
      // numeric side: exact ranks over GF(2^61-1) with generic weights; never looks at the flow
      auto num = cut_ranks_exact(w.w, all);
      failure_bound += num.failure_bound;
      const auto flo = cut_ranks_flow(w.w, all);
      if (ctx.perturb && first) num.rank[all.size() / 2] += 1;
      first = false;
      for (std::size_t c = 0; c < all.size(); ++c) {
        ++cuts;
        if (num.rank[c] != flo.rank[c])
          cex.add(spec + " n=" + std::to_string(n) + " K=" + std::to_string(all[c]) + ": numeric rank " +
                  std::to_string(num.rank[c]) + " != " + std::to_string(flo.rank[c]) +
                  " vertex-disjoint paths");
        if (flo.rank[c] > worst) {
          worst = flo.rank[c];
          worst_at = spec + " n=" + std::to_string(n) + " K=" + std::to_string(all[c]);
        }
      }
    }
  std::string nstr;
  for (auto n : ns) nstr += (nstr.empty() ? "" : ", ") + std::to_string(n);
  ClaimOutcome o;
  o.passed = !cex.any();
  o.checked = join(pats) + "; every cut K, n = " + nstr + " (" + std::to_string(cuts) + " cuts)" +
              (n_max_or(ctx, kCap) > kCap ? "; n capped at 384 (dense numerics over every cut)" : "");
  o.worst = "largest cut rank " + std::to_string(worst) + " (" + worst_at + ")";
  if (cex.any()) o.counterexample = cex.text();
  o.detail =
      "numeric: exact rank over GF(2^61-1) of M[K+1..n, 1..K] G (random weights, seed 1; "
      "never above the flow rank, below it with probability <= " +
      fmt_g(failure_bound) + " over all cuts); flow: Dinic on the layered DAG";
  o.instances = cuts;
  o.not_applicable = na;
  return o;
}

ClaimRegistrar reg(
    {"fagnou.menger", "Fagnou et al., arXiv 2605.31367; docs/math.md §5", "cut rank = Menger",
     "For generic (random) weights the cut rank r(K) = rank M[K+1..n, 1..K] of M = (I-B)^{-1} A "
     "equals the maximum number of vertex-disjoint paths from x_{<=K} to y_{>K} (Menger / max-flow)",
     "any pattern with generic weights; every cut, n up to n-max (default and at most 384)", check});

}  // namespace
}  // namespace mixgraph::claims
