// fagnou.cor4.9 — copy-task congestion <= log2 n for 2^k and <= 4 for k^2+1, with n the sequence length 2N.
#include <cmath>

#include "claim_util.hpp"
#include "mixgraph/congestion.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  std::vector<ClaimSkip> na;
  const auto pats = fixed_patterns(ctx, {"pow2", "sq1"}, "the corollary is about pow2 and sq1 only", na);
  const std::uint64_t nmax = n_max_or(ctx, 2048);
  std::vector<std::uint64_t> Ns;  // copy lengths: the pattern runs on n = 2N tokens
  for (std::uint64_t N : {1u, 2u, 3u, 5u, 7u, 15u, 64u, 100u, 333u, 1000u})
    if (2 * N <= nmax) Ns.push_back(N);
  Counterexamples cex;
  std::string printed;  // the bound read with n = N (the copy length), where it fails
  std::string worst;
  double worst_ratio = -1;
  std::uint64_t instances = 0;
  bool first = true;
  for (const auto& spec : pats)
    for (auto N : Ns) {
      CongestionOptions o;
      o.lp = N <= 7;  // the exact integer optimum on tiny copies (when GLPK is built in)
      const auto r = analyse_congestion(tree_of(ctx, spec), N, o);
      if (!r.copy_possible) continue;
      ++instances;
      // the proven lower bound (the integer optimum when it ran) and the best routing found
      std::uint32_t lower = r.lower_bound;
      if (ctx.perturb && first) lower = 1000;
      first = false;
      const double n = 2.0 * static_cast<double>(N);
      const double bound = spec == "pow2" ? std::log2(n) : 4.0;
      const std::string where = spec + " N=" + std::to_string(N) + " (n = " + std::to_string(2 * N) + ")";
      // exact: lower > log2 n  <=>  2^lower > n (n = 2N); lower > 4 for k^2 + 1
      auto above = [&](std::uint32_t c) {
        return spec == "pow2" ? c >= 64 || (std::uint64_t{1} << c) > 2 * N : c > 4;
      };
      if (above(lower))
        cex.add(where + ": congestion >= " + std::to_string(lower) + " (" + r.lower_bound_name + ") > " +
                (spec == "pow2" ? "log2 n = " + fmt_g(bound) : std::string("4")));
      const std::uint32_t upper = r.upper_bound.value_or(lower);
      if (above(upper) && !above(lower) && !r.optimal)
        printed += std::string(printed.empty() ? "" : "; ") + where + ": best routing " +
                   std::to_string(upper) + " above the bound, optimum not proven";
      const double ratio = upper / bound;
      if (ratio > worst_ratio) {
        worst_ratio = ratio;
        worst = where + ": congestion " + (r.optimal ? "= " : "<= ") + std::to_string(upper) + " vs bound " +
                fmt_g(bound);
      }
      if (spec == "pow2" && (lower >= 64 || (std::uint64_t{1} << lower) > N))  // lower > log2 N, exactly
        printed += std::string(printed.empty() ? "" : "; ") + "with n = N = " + std::to_string(N) +
                   ": congestion >= " + std::to_string(lower) + " > log2 N = " + fmt_g(std::log2(double(N)));
    }
  ClaimOutcome o;
  o.checked = join(pats) + "; copy lengths N = " + [&] {
    const std::string s = join_numbers(Ns);
    return s.empty() ? std::string("none (n-max < 2)") : s;
  }() + " on n = 2N tokens (integer optimum by GLPK for N <= 7 when built in)";
  o.worst = worst.empty() ? "nothing compared" : "closest to the bound: " + worst;
  if (cex.any()) o.counterexample = cex.text();
  o.detail = "n is the sequence length 2N. Read with n = N (the copy length) the 2^k bound is wrong: " +
             (printed.empty() ? std::string("no instance in this range shows it") : printed);
  o.instances = instances;
  o.not_applicable = na;
  return o;
}

ClaimRegistrar reg({"fagnou.cor4.9", "Fagnou et al., arXiv 2605.31367", "Cor. 4.9",
                    "The copy task's optimal congestion is at most log2 n for 2^k and at most 4 for k^2+1, "
                    "n the sequence length (2N for copy length N; with n = N it fails: congestions 1, 2, 3 "
                    "at N = 1, 3, 7 exceed log2 N)",
                    "pow2 and sq1; copy lengths N with 2N <= n-max (default 2048)", check});

}  // namespace
}  // namespace mixgraph::claims
