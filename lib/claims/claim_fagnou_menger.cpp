// fagnou.menger — cut rank r(K) (numeric, random weights) == max number of vertex-disjoint paths (max-flow).
// Split into instances, one per (pattern, n): each runs alone (a shard under MPI) and they merge in order.
#include <algorithm>
#include <cmath>

#include "claim_util.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph::claims {
namespace {

// Dense numerics over every cut cost O(n^4 / 20) for the dense pattern: n is capped at 384.
constexpr std::uint64_t kCap = 384;

struct Plan {
  std::vector<std::string> pats;
  std::vector<std::uint64_t> ns;
};

Plan plan(const ClaimContext& ctx) {
  Plan pl;
  pl.pats = patterns_or(ctx, {"pow2", "sq1", "window:3", "ssm", "dense", "pow2+cache", "sq1+cache"});
  const std::uint64_t nmax = std::min<std::uint64_t>(n_max_or(ctx, kCap), kCap);
  pl.ns = lengths_up_to({2, 17, 64, 100}, nmax);
  return pl;
}

std::vector<std::string> list(const ClaimContext& ctx) {
  const auto pl = plan(ctx);
  return pattern_n_names(pl.pats, pl.ns);
}

ClaimPart run(const ClaimContext& ctx, std::size_t i) {
  const auto pl = plan(ctx);
  const auto& spec = pl.pats.at(i / pl.ns.size());
  const auto n = pl.ns[i % pl.ns.size()];
  ClaimPart part;
  const auto p = pattern_at(ctx, spec, n_for(spec, n));
  const auto w = induced_weights(p, /*seed=*/1);
  if (!w.generic) {  // the same for every n of this pattern: said once, at its first n
    if (i % pl.ns.size() == 0)
      part.not_applicable.push_back(
          {spec, "weights come from a file, not generic (the statement is about generic weights)"});
    return part;
  }
  const auto all = all_cuts(p.n);
  if (all.empty()) return part;
  // numeric side: exact ranks over GF(2^61-1) with generic weights; never looks at the flow
  auto num = cut_ranks_exact(w.w, all);
  part.sum = num.failure_bound;
  const auto flo = cut_ranks_flow(w.w, all);
  if (ctx.perturb) num.rank[all.size() / 2] += 1;
  for (std::size_t c = 0; c < all.size(); ++c) {
    ++part.checked;
    const std::string at = spec + " n=" + std::to_string(n) + " K=" + std::to_string(all[c]);
    if (num.rank[c] != flo.rank[c])
      part.add_counterexample(at + ": numeric rank " + std::to_string(num.rank[c]) +
                              " != " + std::to_string(flo.rank[c]) + " vertex-disjoint paths");
    if (flo.rank[c] > part.worst) {
      part.worst = flo.rank[c];
      part.worst_at = at;
    }
  }
  return part;
}

ClaimOutcome finish(const ClaimContext& ctx, const ClaimPart& all) {
  const auto pl = plan(ctx);
  const std::string nstr = join_numbers(pl.ns);
  ClaimOutcome o;
  o.checked = join(pl.pats) + "; every cut K, n = " + nstr + " (" + std::to_string(all.checked) + " cuts)" +
              (n_max_or(ctx, kCap) > kCap ? "; n capped at 384 (dense numerics over every cut)" : "");
  o.worst = all.worst_at.empty()
                ? "no cut checked"
                : "largest cut rank " + std::to_string(static_cast<std::uint32_t>(all.worst)) + " (" +
                      all.worst_at + ")";
  o.counterexample = counterexample_text(all);
  o.detail =
      "numeric: exact rank over GF(2^61-1) of M[K+1..n, 1..K] G (random weights, seed 1; "
      "never above the flow rank, below it with probability <= " +
      fmt_g(all.sum) + " over all cuts); flow: Dinic on the layered DAG";
  o.instances = all.checked;
  o.not_applicable = all.not_applicable;
  return o;
}

/// Seconds on one thread at n = 384 (k) and the growth over n (a), fitted to measured instance times
/// (docs/scaling.md, "per-shard costs"): the exact ranks cost with the cut ranks, high for pow2/sq1/dense.
double cost(const ClaimContext& ctx, std::size_t i) {
  const auto pl = plan(ctx);
  const auto& spec = pl.pats[i / pl.ns.size()];
  const double x = static_cast<double>(pl.ns[i % pl.ns.size()]) / 384.0;
  if (spec == "dense") return 32.0 * std::pow(x, 4.2);
  const double k =
      value_for(spec, {{"window:3", 0.05}, {"ssm", 0.02}, {"pow2+cache", 0.24}, {"sq1+cache", 0.46}},
                3.7);  // others: as pow2 and sq1 (full cut ranks)
  return k * std::pow(x, 3.3);
}

ClaimRegistrar reg(
    {"fagnou.menger", "Fagnou et al., arXiv 2605.31367; docs/math.md §5", "cut rank = Menger",
     "For generic (random) weights the cut rank r(K) = rank M[K+1..n, 1..K] of M = (I-B)^{-1} A "
     "equals the maximum number of vertex-disjoint paths from x_{<=K} to y_{>K} (Menger / max-flow)",
     "any pattern with generic weights; every cut, n up to n-max (default and at most 384)", nullptr, 0,
     ClaimInstances{list, run, finish, cost}});

}  // namespace
}  // namespace mixgraph::claims
