// fagnou.prop4.12 — the closed form of cache-efficient patterns vs the recursion of Def. 4.10 (f(0) = 1).
#include "claim_util.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  const std::uint64_t n = n_max_or(ctx, 1 << 15);
  Counterexamples cex;
  std::vector<std::string> skipped;
  std::vector<ClaimSkip> na;
  std::uint64_t rows = 0;
  bool first = true;
  const auto pats = for_each_rounded_base(
      ctx, n, na,
      [&](const std::string& asked, const PatternSpec& base, const std::vector<std::uint64_t>& f) {
        const std::string& spec = base.text;
        const pos_t nn = static_cast<pos_t>(n);
        auto closed = cache_efficient_closed_form(f, nn);
        if (!closed) {  // f(0) > 1: outside the proposition's scope
          skipped.push_back(spec);
          na.push_back({asked, "f(0) > 1 (the proposition assumes f(0) = 1)"});
          return;
        }
        const Csr rec = make_pattern(cache_of(base), n).b;
        if (ctx.perturb && first) closed->idx[closed->ptr[nn - 1]] += 1;
        first = false;
        for (pos_t i = 0; i < nn; ++i) {
          ++rows;
          auto a = rec.row(i), b = closed->row(i);
          if (!std::equal(a.begin(), a.end(), b.begin(), b.end())) {
            std::string s = spec + " position " + std::to_string(i + 1) + ": recursion reads {";
            for (auto j : a) s += std::to_string(j + 1) + ",";
            s += "} closed form {";
            for (auto j : b) s += std::to_string(j + 1) + ",";
            cex.add(s + "}");
          }
        }
      });
  // The f(0) > 1 counterexample (docs/math.md §2), computed: offsets {5}, token 6.
  const Csr five = cache_efficient_reads({5}, 6);
  const std::uint64_t a0 = 1, i = 6, f0 = 5;
  const std::uint64_t closed_says = a0 * ((i - f0 + a0 - 1) / a0);  // a_0 ceil((i - f(0)) / a_0)
  return outcome_of(
      cex, {.checked = join(pats) + " with f(0) = 1; every position of n = " + std::to_string(n) + " (" +
                       std::to_string(rows) + " rows)",
            .worst = cex.any() ? std::to_string(cex.count) + " rows differ"
                               : (rows ? "all rows identical" : "no row compared"),
            .detail = "scope f(0) = 1. Outside it the closed form fails: offsets {5}, token 6 reads " +
                      std::to_string(five.row(5).empty() ? 0 : five.row(5)[0] + 1) +
                      " by the recursion, the closed form would say " + std::to_string(closed_says) +
                      (skipped.empty() ? std::string() : ". Skipped (f(0) > 1): " + join(skipped)),
            .instances = rows,
            .not_applicable = na});
}

ClaimRegistrar reg(
    {"fagnou.prop4.12", "Fagnou et al., arXiv 2605.31367", "Prop. 4.12 (reconstructed)",
     "For f(0) = 1 the cache-efficient pattern of Def. 4.10 reads S_i \\ {i} = "
     "{ a_k ceil((i - f(k)) / a_k) : f(k) < i }, a_0 = 1, a_{k+1} = a_k ceil((f(k+1) - f(k)) / a_k)",
     "cache-efficient variants of translation-invariant patterns with f(0) = 1", check, 1 << 17});

}  // namespace
}  // namespace mixgraph::claims
