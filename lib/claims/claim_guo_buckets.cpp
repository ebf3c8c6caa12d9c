// guo.loglinear.buckets — log-linear attention (Guo et al.): query t sees 1 + popcount(t) non-empty
// Fenwick buckets; the most over t < T is 18 at T = 131072 (not the 19 of ceil(log2 T + 1) + 1).
#include <algorithm>
#include <bit>
#include <cmath>
#include <set>

#include "claim_util.hpp"
#include "mixgraph/hierarchical.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  if (auto na = patterns_not_applicable(ctx, kAboutTheLoglinearMask)) return *na;  // no pattern is in scope
  const std::uint64_t T = n_max_or(ctx, 131072);
  const std::uint64_t brute = std::min<std::uint64_t>(T, 2048);  // O(t) per query through loglinear_level
  Counterexamples cex;
  const auto s = loglinear_summary(T, /*seed=*/1, /*numeric_limit=*/0);
  std::uint32_t measured = s.max_levels;
  if (ctx.perturb) measured += 1;
  // Per query: the library's bucket count vs the statement's 1 + popcount(t) (every t < T), and for
  // t < brute the distinct levels {loglinear_level(t, s) : s <= t} (the bucket definition) vs 1 +
  // popcount(t).
  std::uint32_t ref_max = 0;
  std::uint64_t ref_arg = 0;
  std::vector<std::uint64_t> hist(66, 0);
  for (std::uint64_t t = 0; t < T; ++t) {
    const auto want = 1u + static_cast<std::uint32_t>(std::popcount(t));
    if (want > ref_max) ref_max = want, ref_arg = t;
    ++hist[want];
    if (loglinear_buckets(t) != want)
      cex.add("t=" + std::to_string(t) + ": loglinear_buckets " + std::to_string(loglinear_buckets(t)) +
              " != 1 + popcount(t) = " + std::to_string(want));
    if (t < brute) {
      std::set<std::uint32_t> levels;
      for (std::uint64_t k = 0; k <= t; ++k) levels.insert(loglinear_level(t, k));
      if (levels.size() != want)
        cex.add("t=" + std::to_string(t) + ": " + std::to_string(levels.size()) +
                " distinct levels among keys s <= t, 1 + popcount(t) = " + std::to_string(want));
    }
  }
  if (measured != ref_max)
    cex.add("T=" + std::to_string(T) + ": max non-empty buckets " + std::to_string(measured) +
            " != max_{t<T} (1 + popcount(t)) = " + std::to_string(ref_max) +
            " (at t = " + std::to_string(ref_arg) + ")");
  for (std::size_t b = 0; b < hist.size(); ++b) {
    const auto got = b < s.queries_with_buckets.size() ? s.queries_with_buckets[b] : 0;
    if (got != hist[b])
      cex.add("T=" + std::to_string(T) + ": " + std::to_string(got) + " queries with " + std::to_string(b) +
              " buckets, expected " + std::to_string(hist[b]));
  }
  if (s.argmax_query != ref_arg)
    cex.add("T=" + std::to_string(T) + ": first query reaching the maximum " +
            std::to_string(s.argmax_query) + ", expected " + std::to_string(ref_arg));
  // The formula in circulation, evaluated at t = T - 1 and at T.
  const auto circ = [](double t) { return static_cast<long>(std::ceil(std::log2(t) + 1)) + 1; };
  // The headline figure (T = 131072) is checked whatever n-max is (O(T), a few milliseconds).
  std::string headline;
  if (T != 131072) {
    const std::uint64_t H = 131072;
    std::uint32_t ref = 0;
    for (std::uint64_t t = 0; t < H; ++t)
      ref = std::max(ref, 1u + static_cast<std::uint32_t>(std::popcount(t)));
    const auto h = loglinear_summary(H, 1, 0);
    if (h.max_levels != ref)
      cex.add("T=131072: max non-empty buckets " + std::to_string(h.max_levels) +
              " != max_{t<T} (1 + popcount(t)) = " + std::to_string(ref));
    headline = "; at T = 131072: " + std::to_string(h.max_levels) + " non-empty buckets, the formula gives " +
               std::to_string(circ(131071.0));
  }
  return outcome_of(
      cex,
      {.checked = "every query t < T = " + std::to_string(T) + " (distinct levels by brute force for t < " +
                  std::to_string(brute) + ")",
       .worst = "max non-empty buckets " + std::to_string(measured) +
                " at query t = " + std::to_string(s.argmax_query) + " (T = " + std::to_string(T) + ")",
       .detail = "the formula in circulation ceil(log2 t + 1) + 1 gives " +
                 (T > 1 ? std::to_string(circ(static_cast<double>(T - 1))) : std::string("-")) +
                 " at t = T - 1 = " + std::to_string(T - 1) + " and " +
                 std::to_string(circ(static_cast<double>(T))) + " at t = T = " + std::to_string(T) + ", vs " +
                 std::to_string(measured) + " non-empty buckets measured; level indices used: 0.." +
                 std::to_string(s.level_indices - 1) + " (" + std::to_string(s.level_indices) + " indices)" +
                 headline,
       .instances = T});
}

ClaimRegistrar reg({"guo.loglinear.buckets", "Guo et al., Log-Linear Attention", "Sec. 3 (Fenwick buckets)",
                    "Query t (0-indexed) of log-linear attention sees 1 + popcount(t) non-empty buckets "
                    "(level 0 = {t}, level l >= 1 non-empty iff bit l-1 of t is set); the most over t < T "
                    "is 18 at T = 131072, not the 19 of the formula ceil(log2 t + 1) + 1",
                    "the log-linear mask M^H; every query t < T (T = n-max, default 131072)", check});

}  // namespace
}  // namespace mixgraph::claims
