// fagnou.cor4.5.log2-bound — the printed bound d(i, j) <= log2(i - j) for 2^k, which fails at 2^p - 1.
#include <bit>
#include <cmath>

#include "claim_util.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  const std::uint64_t n = n_max_or(ctx, 1 << 24);
  std::vector<ClaimSkip> na;
  if (auto o = own_not_asked(ctx, "pow2", "the bound is stated for pow2 only", "pow2 only", na)) return *o;
  auto prof = distance_profile(pattern_at(ctx, "pow2", n)).to_vector();
  if (ctx.perturb) prof[n - 1] = 0;  // makes the corrected bound's tightness check below fail too
  Counterexamples printed, corrected;
  printed.keep = 8;
  double worst_excess = -1e9;
  std::string worst;
  std::uint64_t tight = 0;
  for (std::uint64_t m = 1; m < n; ++m) {
    const double lg = std::log2(static_cast<double>(m));  // for the text only; the tests are exact:
    const auto fl = static_cast<std::uint32_t>(std::bit_width(m) - 1);  // floor(log2 m)
    if (prof[m] >= 64 || (std::uint64_t{1} << prof[m]) > m)             // d > log2 m  <=>  2^d > m
      printed.add("i-j = " + std::to_string(m) + ": d = " + std::to_string(prof[m]) + " > log2(" +
                  std::to_string(m) + ") = " + std::to_string(lg).substr(0, 6));
    if (prof[m] > fl + 1) corrected.add("i-j = " + std::to_string(m) + ": d = " + std::to_string(prof[m]));
    if (prof[m] == fl + 1) {
      ++tight;
      if ((m & (m + 1)) != 0)
        corrected.add("attained at i-j = " + std::to_string(m) + ", not of the form 2^p - 1");
    }
    if (prof[m] - lg > worst_excess) {
      worst_excess = prof[m] - lg;
      worst =
          "d - log2(i-j) = " + std::to_string(worst_excess).substr(0, 5) + " at i-j = " + std::to_string(m);
    }
  }
  // The corrected bound floor(log2 m) + 1 must hold everywhere and be attained (at m = 2^p - 1).
  if (tight == 0) corrected.add("floor(log2(i-j)) + 1 is never attained");
  ClaimOutcome o;
  o.passed = !printed.any();
  o.checked = "pow2, every offset i - j in 1.." + std::to_string(n - 1);
  o.worst = worst;
  if (printed.any()) o.counterexample = printed.text();
  o.detail = "corrected bound d(i,j) <= floor(log2(i-j)) + 1: " +
             (corrected.any() ? "FAILS: " + corrected.text()
                              : "holds for every offset checked, attained " + std::to_string(tight) +
                                    " times, always at i-j = 2^p - 1");
  if (corrected.any()) {
    o.passed = false;
    if (!o.counterexample) o.counterexample = "corrected bound: " + corrected.text();
  }
  o.instances = n - 1;
  o.not_applicable = na;
  return o;
}

ClaimRegistrar reg({"fagnou.cor4.5.log2-bound", "Fagnou et al., arXiv 2605.31367", "Cor. 4.5 (as printed)",
                    "For 2^k, d(i, j) <= log2(i - j) for i - j >= 1", "pow2; every offset below n-max",
                    check});

}  // namespace
}  // namespace mixgraph::claims
