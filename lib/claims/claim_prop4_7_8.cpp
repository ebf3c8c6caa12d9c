// fagnou.prop4.7 and fagnou.prop4.8 — the congestion bounds of the copy task against the routings found.
#include <optional>
#include <stdexcept>

#include "claim_util.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::claims {
namespace {

std::vector<std::uint64_t> copy_lengths(const ClaimContext& ctx) {
  const std::uint64_t nmax = n_max_or(ctx, 3000);
  std::vector<std::uint64_t> v;
  for (std::uint64_t N : {3u, 6u, 7u, 64u, 100u, 777u, 1000u, 1500u})
    if (2 * N <= nmax) v.push_back(N);
  return v;
}

ClaimOutcome check47(const ClaimContext& ctx) {
  const auto pats =
      patterns_or(ctx, {"pow2", "sq1", "pow:3", "fib", "window:3", "ssm", "pow2+cache", "sq1+cache"});
  const auto Ns = copy_lengths(ctx);
  Counterexamples cex;
  std::optional<std::int64_t> tightest;
  std::string tight_at;
  bool first = true;
  std::uint64_t instances = 0;
  std::vector<ClaimSkip> na;
  for (const auto& spec : pats) {
    std::uint64_t possible = 0;
    for (auto N : Ns) {
      CongestionOptions o;
      o.lp = N <= 6;  // the exact integer optimum on tiny copies
      auto r = analyse_congestion(tree_of(ctx, spec), N, o);
      if (!r.copy_possible) continue;
      ++possible;
      ++instances;
      const auto lb = r.lower_bounds.at(0);  // prop47 (generalised)
      if (lb.name != "prop47" || !lb.value)
        throw std::runtime_error("congestion analysis returned no prop47 bound");
      std::uint32_t bound = *lb.value;
      if (r.translation_invariant && bound != (r.copy_distance + 2) / 2)
        cex.add(spec + " N=" + std::to_string(N) + ": generalised bound " + std::to_string(bound) +
                " != ceil((d+1)/2) = " + std::to_string((r.copy_distance + 2) / 2));
      std::vector<std::pair<std::string, std::uint32_t>> found;
      for (const auto& s : r.routings) found.emplace_back(s.name, s.congestion);
      for (const auto& b : r.lower_bounds)
        if (b.name == "ip" && b.value) found.emplace_back("integer optimum", *b.value);
      if (ctx.perturb && first && !found.empty()) found[0].second = bound - 1;
      first = false;
      for (const auto& [name, c] : found) {
        if (c < bound)
          cex.add(spec + " N=" + std::to_string(N) + ": " + name + " routing has congestion " +
                  std::to_string(c) + " < bound " + std::to_string(bound));
        if (!tightest || static_cast<std::int64_t>(c) - bound < *tightest) {
          tightest = static_cast<std::int64_t>(c) - bound;
          tight_at = spec + " N=" + std::to_string(N) + " (" + name + ": " + std::to_string(c) +
                     " vs bound " + std::to_string(bound) + ")";
        }
      }
    }
    if (!Ns.empty() && possible == 0)
      na.push_back({spec, "the copy task is impossible at every copy length N = " + join_numbers(Ns)});
  }
  return outcome_of(
      cex,
      {.checked = join(pats) + "; copy lengths N = " + (Ns.empty() ? "none (n-max < 6)" : join_numbers(Ns)) +
                  " (integer optimum by GLPK for N <= 6)",
       .worst = tightest ? "smallest gap routing - bound = " + std::to_string(*tightest) + " at " + tight_at
                         : "no routing compared",
       .detail =
           "generalised form: C >= ceil(sum_i (d(i+N,i) + 1) / 2N), equal to ceil((d+1)/2) for translation-"
           "invariant patterns; checked against every routing found (shift, random shortest, minmax) and the "
           "exact optimum",
       .instances = instances,
       .not_applicable = na});
}

ClaimOutcome check48(const ClaimContext& ctx) {
  const auto pats = patterns_or(ctx, {"pow2", "sq1", "pow:3", "fib", "window:3", "ssm", "offsets:2,3"});
  const auto Ns = copy_lengths(ctx);
  Counterexamples cex;
  std::string better;
  bool first = true;
  std::uint64_t instances = 0;
  std::vector<ClaimSkip> na;
  for (const auto& spec : pats) {
    if (!pattern_at(ctx, spec, n_for(spec, 64)).translation_invariant()) {
      na.push_back({spec, "not translation-invariant"});
      continue;
    }
    std::uint64_t possible = 0;
    for (auto N : Ns) {
      CongestionOptions o;
      o.random = false;
      auto r = analyse_congestion(tree_of(ctx, spec), N, o);
      if (!r.copy_possible || !r.translation_invariant) continue;
      ++possible;
      ++instances;
      std::optional<std::uint32_t> shift;
      std::uint32_t best = ~0u;
      for (const auto& s : r.routings) {
        if (s.name == "shift") shift = s.congestion;
        best = std::min(best, s.congestion);
      }
      if (!shift) throw std::runtime_error("no shift routing for " + spec);
      if (ctx.perturb && first) *shift += 1;
      first = false;
      if (*shift != r.copy_distance)
        cex.add(spec + " N=" + std::to_string(N) + ": shift routing congestion " + std::to_string(*shift) +
                " != copy distance " + std::to_string(r.copy_distance));
      if (best < r.copy_distance && better.size() < 400)
        better += (better.empty() ? "" : "; ") + spec + " N=" + std::to_string(N) +
                  ": d = " + std::to_string(r.copy_distance) + ", a routing of congestion " +
                  std::to_string(best);
    }
    if (!Ns.empty() && possible == 0)
      na.push_back({spec, "the copy task is impossible at every copy length N = " + join_numbers(Ns)});
  }
  return outcome_of(
      cex,
      {.checked = join(pats) + "; copy lengths N = " + (Ns.empty() ? "none (n-max < 6)" : join_numbers(Ns)),
       .worst = better.empty() ? "no routing beat the shift routing" : "routings below d: " + better,
       .detail = "the shift routing has congestion exactly d, so C <= d; better routings than the shift "
                 "exist where "
                 "listed under worst (e.g. 3^k, N = 777: d = 5, congestion 4)",
       .instances = instances,
       .not_applicable = na});
}

ClaimRegistrar reg47({"fagnou.prop4.7", "Fagnou et al., arXiv 2605.31367", "Prop. 4.7",
                      "Copy-task congestion is at least ceil((d+1)/2), d the copy distance (generalised: "
                      "ceil(sum_i (d_i + 1) / 2N))",
                      "named, offset and cache-efficient patterns; copy lengths up to n-max / 2", check47});
ClaimRegistrar reg48(
    {"fagnou.prop4.8", "Fagnou et al., arXiv 2605.31367", "Prop. 4.8",
     "For a translation-invariant pattern the shift routing has congestion exactly d, so the "
     "optimal congestion is at most the copy distance d",
     "translation-invariant patterns; copy lengths up to n-max / 2", check48});

}  // namespace
}  // namespace mixgraph::claims
