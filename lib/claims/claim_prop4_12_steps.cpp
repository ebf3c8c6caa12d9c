// fagnou.prop4.12.steps — the step recursion p_0 = 1, p_{k+1} = p_k ceil((f(k+1) - f(k)) / p_k) behind
// Prop. 4.12, measured on the pattern that the recursion of Def. 4.10 builds: the positions read from more
// than f(k-1) behind are exactly spaced p_k apart (all multiples of p_k, their gcd p_k).
#include <numeric>

#include "claim_util.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  const std::uint64_t n = n_max_or(ctx, 1 << 15);
  Counterexamples cex;
  std::vector<ClaimSkip> na;
  std::vector<std::string> done, steps;
  std::uint64_t levels = 0, too_short = 0;
  bool first = true;
  for_each_rounded_base(
      ctx, n, na,
      [&](const std::string& asked, const PatternSpec& base, const std::vector<std::uint64_t>& f) {
        const std::string& spec = base.text;
        if (f.empty() || f[0] != 1) {
          na.push_back({asked, "f(0) > 1 (the recursion assumes f(0) = 1)"});
          return;
        }
        const auto p = closed_form_factors(f);                            // the recursion under test
        const Csr rec = cache_efficient_reads(f, static_cast<pos_t>(n));  // Def. 4.10, independent of p_k
        // g[k] = gcd of the (1-indexed) positions j read by some token i with i - j > f(k - 1); ok[k] = every
        // such j is a multiple of p_k.
        std::vector<std::uint64_t> g(f.size(), 0);
        std::vector<bool> ok(f.size(), true);
        for (pos_t i0 = 0; i0 < rec.n; ++i0)
          for (pos_t j0 : rec.row(i0)) {
            const std::uint64_t i = i0 + 1, j = j0 + 1, lag = i - j;
            for (std::size_t k = 1; k < f.size() && lag > f[k - 1]; ++k) {
              g[k] = std::gcd(g[k], j);
              if (j % p[k] != 0) ok[k] = false;
            }
          }
        std::string list = spec + ": p =";
        for (std::size_t k = 0; k < p.size() && k < 10; ++k) list += (k ? ", " : " ") + std::to_string(p[k]);
        steps.push_back(list + (p.size() > 10 ? ", ..." : ""));
        for (std::size_t k = 1; k < f.size(); ++k) {
          if (f[k] + p[k] > n) {  // token f(k) + p_k, which reads position p_k from f(k) behind, is beyond n
            ++too_short;
            continue;
          }
          ++levels;
          std::uint64_t measured = g[k];
          if (ctx.perturb && first) measured += 1;
          first = false;
          if (measured != p[k] || !ok[k])
            cex.add(spec + " k = " + std::to_string(k) +
                    ": the recursion gives p_k = " + std::to_string(p[k]) +
                    ", the positions read from more than f(k-1) = " + std::to_string(f[k - 1]) +
                    " behind have gcd " + std::to_string(measured) +
                    (ok[k] ? "" : " and are not all multiples of p_k"));
        }
        done.push_back(asked);
      });
  return outcome_of(
      cex, {.checked = (done.empty() ? std::string("no pattern") : join(done)) +
                       "; every level k >= 1 with f(k) + p_k <= n" + ", n = " + std::to_string(n),
            .worst = cex.any() ? std::to_string(cex.count) + " levels differ"
                               : std::to_string(levels) + " levels: measured spacing == p_k",
            .detail = join(steps, "; ") + (too_short ? "; " + std::to_string(too_short) +
                                                           " levels with f(k) + p_k > n not measurable"
                                                     : ""),
            .instances = levels,
            .not_applicable = na});
}

ClaimRegistrar reg(
    {"fagnou.prop4.12.steps", "Fagnou et al., arXiv 2605.31367", "Prop. 4.12, step recursion (reconstructed)",
     "For f(0) = 1 the steps p_0 = 1, p_{k+1} = p_k ceil((f(k+1) - f(k)) / p_k) are the spacing of the "
     "cache-efficient pattern of Def. 4.10: every position read from more than f(k-1) behind is a multiple "
     "of p_k, and their gcd is p_k (measured on the rows built by the Def. 4.10 recursion)",
     "cache-efficient variants of translation-invariant patterns with f(0) = 1; levels k >= 1 with "
     "f(k) + p_k <= n-max (default 32768)",
     check, 1 << 16});

}  // namespace
}  // namespace mixgraph::claims
