// fagnou.def4.1.pow2-example — Def. 4.1's 2^k example as printed (offsets 2^k for k = 0..floor(log2 i))
// against the definition (offsets f(k) < i): the printed last offset reaches position 0 when i is a power of
// two.
#include <algorithm>
#include <bit>
#include <cstdint>

#include "claim_util.hpp"
#include "mixgraph/commgraph.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  std::vector<ClaimSkip> na;
  if (auto o = own_not_asked(ctx, "pow2", "the example is the 2^k pattern", "pow2 only", na)) return *o;
  const std::uint64_t n = std::min<std::uint64_t>(n_max_or(ctx, 1 << 16), 1 << 20);
  const Csr b = b_csr(pattern_at(ctx, "pow2", n));  // the library's pattern (Def. 4.1 with f(k) = 2^k)
  Counterexamples printed, corrected;
  for (std::uint64_t i = 1; i <= n; ++i) {
    // as printed: i - 2^k for k = 0..floor(log2 i); corrected: k with 2^k < i, i.e. k <= ceil(log2 i) - 1
    const auto top = static_cast<std::uint32_t>(std::bit_width(i) - 1);  // floor(log2 i)
    std::vector<std::uint64_t> want;
    for (std::uint32_t k = 0; k <= top; ++k) {
      const std::uint64_t pos = i - (std::uint64_t{1} << k);
      if (pos == 0) {
        printed.add("i = " + std::to_string(i) + ", k = " + std::to_string(k) +
                    ": i - 2^k = 0 is not a position");
        continue;
      }
      want.push_back(pos - 1);  // 0-indexed
    }
    auto got = b.row(static_cast<pos_t>(i - 1));
    std::vector<std::uint64_t> have(got.begin(), got.end());
    if (ctx.perturb && i == n && !have.empty()) have.pop_back();
    std::sort(want.begin(), want.end());
    if (have != want)
      corrected.add("i = " + std::to_string(i) + ": the pattern reads " + std::to_string(have.size()) +
                    " positions, the corrected example " + std::to_string(want.size()));
  }
  ClaimOutcome o;
  o.checked = "pow2, every position i = 1.." + std::to_string(n);
  o.worst =
      std::to_string(printed.count) + " positions (the powers of two) where the printed range reaches 0";
  if (printed.any() || corrected.any())
    o.counterexample = printed.text() + (corrected.any() ? "; corrected form: " + corrected.text() : "");
  o.detail =
      "corrected: k = 0..ceil(log2 i) - 1 (2^k < i), i.e. the printed range without k = log2 i when i is a "
      "power of two; " +
      std::string(corrected.any() ? "the corrected form FAILS too" : "the corrected form equals the pattern");
  o.instances = n;
  o.not_applicable = na;
  return o;
}

ClaimRegistrar reg(
    {"fagnou.def4.1.pow2-example", "Fagnou et al., arXiv 2605.31367", "Def. 4.1 (2^k example)",
     "The 2^k example of Def. 4.1 as printed: token i reads i - 2^k for k = 0, ..., floor(log2 i)",
     "pow2; every position up to n-max (default 65536)", check});

}  // namespace
}  // namespace mixgraph::claims
