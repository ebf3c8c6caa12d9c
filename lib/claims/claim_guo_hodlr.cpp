// guo.loglinear.hodlr — every dyadic off-diagonal block of the log-linear mask M^H has rank <= 1.
#include <algorithm>
#include <stdexcept>

#include "claim_util.hpp"
#include "mixgraph/hierarchical.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  if (auto na =
          patterns_not_applicable(ctx, "the statement is about the log-linear mask M^H, not a mixer pattern"))
    return *na;  // no pattern is in scope
  const std::uint64_t Tmax = n_max_or(ctx, 1 << 20);
  const std::uint64_t numeric_cap = std::min<std::uint64_t>(Tmax, 1024);
  std::vector<std::uint64_t> numeric_T;
  for (std::uint64_t T : {2ull, 7ull, 100ull, 333ull, 1000ull})
    if (T < numeric_cap) numeric_T.push_back(T);
  numeric_T.push_back(numeric_cap);
  Counterexamples cex;
  std::uint32_t worst_rank = 0;
  std::string worst_at;
  std::uint64_t blocks = 0;
  bool first = true;
  for (auto T : numeric_T) {
    auto s = loglinear_summary(T, /*seed=*/1, /*numeric_limit=*/T);
    if (!s.numeric_done) throw std::runtime_error("loglinear_summary did not run the numeric ranks");
    if (ctx.perturb && first && !s.numeric.max_rank.empty()) s.numeric.max_rank.back() += 1;
    first = false;
    for (std::size_t l = 0; l < s.numeric.max_rank.size(); ++l) {
      blocks += s.numeric.blocks[l];
      const auto r = s.numeric.max_rank[l];
      if (r >= worst_rank) {  // the last (largest) block reaching the maximum
        worst_rank = r;
        worst_at = "T=" + std::to_string(T) + " block size " + std::to_string(s.numeric.block_size[l]);
      }
      if (r > 1)
        cex.add("T=" + std::to_string(T) + ": a dyadic block of size " +
                std::to_string(s.numeric.block_size[l]) + " has numeric rank " + std::to_string(r));
    }
    if (!s.dyadic_blocks_rank_le_1) cex.add("T=" + std::to_string(T) + ": structural dyadic check failed");
  }
  // Structural beyond the numeric range: every block has one level, hence diag(lambda) x ones: rank <= 1.
  std::uint64_t structural_blocks = 0;
  std::vector<std::uint64_t> structural_T;
  for (std::uint64_t T = 2048; T < Tmax; T *= 4) structural_T.push_back(T + 3);
  if (Tmax > numeric_cap) structural_T.push_back(Tmax);
  for (auto T : structural_T) {
    const auto s = loglinear_summary(T, 1, 0);
    structural_blocks += s.dyadic_blocks;
    if (!s.dyadic_blocks_rank_le_1)
      cex.add("T=" + std::to_string(T) + ": some dyadic block mixes levels (structural check)");
  }
  ClaimOutcome o;
  o.passed = !cex.any();
  std::string ts;
  for (auto T : numeric_T) ts += (ts.empty() ? "" : ", ") + std::to_string(T);
  std::string st;
  for (auto T : structural_T) st += (st.empty() ? "" : ", ") + std::to_string(T);
  o.checked = "numeric ranks of every dyadic block at T = " + ts +
              (st.empty() ? "" : "; structural (one level per block) at T = " + st);
  o.worst = "largest numeric rank of a dyadic block " + std::to_string(worst_rank) + " (" + worst_at + ")";
  if (cex.any()) o.counterexample = cex.text();
  o.instances = blocks + structural_blocks;
  o.detail = std::to_string(blocks) + " blocks factored numerically (column-pivoted QR), " +
             std::to_string(structural_blocks) + " checked structurally";
  return o;
}

ClaimRegistrar reg({"guo.loglinear.hodlr", "Guo et al., Log-Linear Attention", "Sec. 3 (hierarchical matrix)",
                    "Every dyadic off-diagonal block (rows [2^l(2m+1), 2^l(2m+2)), columns [2^l 2m, "
                    "2^l(2m+1))) of the log-linear mask M^H has rank <= 1 (M^H is HODLR with rank-1 blocks)",
                    "the log-linear mask M^H; numeric for T <= 1024, structural up to n-max (default 2^20)",
                    check});

}  // namespace
}  // namespace mixgraph::claims
