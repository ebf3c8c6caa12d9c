// fagnou.cache-rank-bound — r(K) <= 2|C_K| (<= |C_K| when A is diagonal) on every cut.
// Split into instances, one per (pattern, n): each runs alone (a shard under MPI) and they merge in order.
#include <algorithm>
#include <cmath>

#include "claim_util.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph::claims {
namespace {

std::string contrast(const ClaimContext& ctx) {
  CutRankParams dp;
  dp.method = CutRankMethod::Both;
  const PatternSpec& pow2 = tree_of(ctx, "pow2");
  const auto a = cut_rank_profile(make_pattern(pow2, 256), dp);
  const auto b = cut_rank_profile(make_pattern(cache_of(pow2), 256), dp);  // pow2+cache
  std::uint32_t r128 = 0;
  for (std::size_t c = 0; c < a.cuts.size(); ++c)
    if (a.cuts[c] == 128) r128 = a.flow[c];
  return "contrast at n = 256: pow2 r(128) = " + std::to_string(r128) +
         ", max r = " + std::to_string(a.max_cut_rank) + " (K = " + std::to_string(a.argmax_cut) +
         "); pow2+cache max r = " + std::to_string(b.max_cut_rank) + " (K = " + std::to_string(b.argmax_cut) +
         "), max cache " + std::to_string(b.max_cache) +
         " (numeric == flow: " + (a.agree && b.agree ? "yes" : "no") + ")";
}

struct Plan {
  std::vector<std::string> pats;
  std::vector<std::uint64_t> ns;
};

Plan plan(const ClaimContext& ctx) {
  Plan pl;
  pl.pats = patterns_or(
      ctx, {"pow2+cache", "sq1+cache", "fib+cache", "pow:3+cache", "window:3+cache", "ssm", "window:4"});
  const std::uint64_t nmax = n_max_or(ctx, 3000);
  pl.ns = {std::min<std::uint64_t>(nmax, 256)};
  if (nmax > pl.ns[0]) pl.ns.push_back(nmax);
  return pl;
}

/// One instance per (pattern, n), then the contrast figure (the outcome's detail) as the last one.
std::vector<std::string> list(const ClaimContext& ctx) {
  const auto pl = plan(ctx);
  auto names = pattern_n_names(pl.pats, pl.ns);
  names.push_back("contrast n=256");
  return names;
}

ClaimPart run(const ClaimContext& ctx, std::size_t i) {
  const auto pl = plan(ctx);
  ClaimPart part;
  if (i == pl.pats.size() * pl.ns.size()) {
    part.note = contrast(ctx);
    return part;
  }
  const auto& spec = pl.pats.at(i / pl.ns.size());
  const auto n = pl.ns[i % pl.ns.size()];
  CutRankParams params;
  params.method = n <= 256 ? CutRankMethod::Both : CutRankMethod::Flow;  // flow = generic rank (Menger)
  params.cuts = all_cuts(static_cast<pos_t>(n));
  auto prof = cut_rank_profile(pattern_at(ctx, spec, n), params);
  auto& r = prof.flow_done ? prof.flow : prof.numeric;
  if (ctx.perturb && !r.empty()) r[r.size() / 2] = 2 * prof.cache_at_cut[r.size() / 2] + 1;
  // exact numeric ranks never exceed the flow (Menger) rank; below it they are either file weights (not
  // generic: legitimate) or a Schwartz-Zippel miss (probability <= prof.failure_bound)
  if (prof.numeric_done && prof.flow_done && prof.generic_weights && !prof.agree)
    part.add_counterexample(spec + " n=" + std::to_string(n) + ": numeric and flow cut ranks differ at " +
                            std::to_string(prof.disagreements.size()) + " cuts");
  const std::uint32_t factor = prof.a_diagonal ? 1 : 2;
  for (std::size_t c = 0; c < prof.cuts.size(); ++c) {
    ++part.checked;
    const std::uint32_t bound = factor * prof.cache_at_cut[c];
    const std::string at = spec + " n=" + std::to_string(n) + " K=" + std::to_string(prof.cuts[c]) +
                           ": r(K) = " + std::to_string(r[c]);
    const std::string cache = (factor == 1 ? "|C_K| = " : "2|C_K| = ") + std::to_string(bound);
    if (r[c] > bound) part.add_counterexample(at + " > " + cache);
    const double ratio = bound ? static_cast<double>(r[c]) / bound : (r[c] ? INFINITY : 0.0);
    if (ratio > part.worst) {
      part.worst = ratio;
      part.worst_at = at + " vs " + cache;
    }
  }
  return part;
}

ClaimOutcome finish(const ClaimContext& ctx, const ClaimPart& all) {
  const auto pl = plan(ctx);
  ClaimOutcome o;
  o.checked = join(pl.pats) + "; every cut, n = " + std::to_string(pl.ns[0]) + " (numeric and flow)" +
              (pl.ns.size() > 1 ? " and n = " + std::to_string(pl.ns[1]) + " (flow = generic rank)" : "") +
              ", " + std::to_string(all.checked) + " cuts";
  o.worst = all.worst_at.empty() ? "no cut with a nonzero bound"
                                 : "tightest cut " + all.worst_at + " (ratio " + fmt_g(all.worst) + ")";
  o.counterexample = counterexample_text(all);
  o.detail = all.note;
  o.instances = all.checked;
  return o;
}

/// Seconds on one thread: numeric and flow at n <= 256, flow alone above (docs/scaling.md, "per-shard
/// costs"); the contrast figure is two profiles at n = 256.
double cost(const ClaimContext& ctx, std::size_t i) {
  const auto pl = plan(ctx);
  if (i == pl.pats.size() * pl.ns.size()) return 0.75;
  const double n = static_cast<double>(pl.ns[i % pl.ns.size()]);
  return n <= 256 ? 5e-8 * std::pow(n, 2.5) : 1.5e-7 * std::pow(n, 2.0);
}

ClaimRegistrar reg(
    {"fagnou.cache-rank-bound", "Fagnou et al., arXiv 2605.31367; docs/math.md §5",
     "cache bound on the cut rank",
     "Every cut rank is bounded by the decode cache: r(K) <= 2|C_K|, and r(K) <= |C_K| when A is "
     "diagonal (so O(log n) for pow2+cache, while pow2 itself reaches r(n/2) = n/2)",
     "patterns with a decode cache; every cut, numeric at n <= 256, flow up to n-max (default 3000)", nullptr,
     4096, ClaimInstances{list, run, finish, cost}});

}  // namespace
}  // namespace mixgraph::claims
