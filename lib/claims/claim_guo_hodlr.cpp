// guo.loglinear.hodlr — every dyadic off-diagonal block of the log-linear mask M^H has rank <= 1.
#include <algorithm>
#include <bit>
#include <stdexcept>

#include "claim_util.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/hierarchical.hpp"

namespace mixgraph::claims {
namespace {

ClaimOutcome check(const ClaimContext& ctx) {
  if (auto na = patterns_not_applicable(ctx, kAboutTheLoglinearMask)) return *na;  // no pattern is in scope
  const std::uint64_t Tmax = n_max_or(ctx, 1 << 20);
  const std::uint64_t numeric_cap = std::min<std::uint64_t>(Tmax, 1024);
  const auto numeric_T = lengths_up_to({2, 7, 100, 333, 1000}, numeric_cap);
  Counterexamples cex;
  std::uint32_t worst_rank = 0;
  std::string worst_at;
  std::uint64_t blocks = 0;
  double largest_dropped = -1.0, bound = 0.0, tol = 0.0;
  for (auto T : numeric_T) {
    // the mask M^H (transposed) and its dyadic ranks with the bound-derived tolerance (hierarchical.hpp)
    Eigen::MatrixXd mt = loglinear_mask_transposed(T, /*seed=*/1);
    if (ctx.perturb && T == numeric_T.back() && T >= 4) {
      // a planted non-hierarchical matrix: one entry of the largest dyadic block (keys [0, T/2), queries
      // from T/2 on) off its level's weight makes that block rank 2
      const auto q = static_cast<Eigen::Index>(std::bit_floor(T - 1));
      mt(0, q) *= 1.5;
    }
    const auto s = dyadic_block_ranks_transposed(mt, loglinear_rank_tolerance(T));
    bound = std::max(bound, rank1_rounding_bound(T));
    tol = std::max(tol, loglinear_rank_tolerance(T));
    for (std::size_t l = 0; l < s.max_rank.size(); ++l) {
      blocks += s.blocks[l];
      const auto r = s.max_rank[l];
      if (r <= 1) largest_dropped = std::max(largest_dropped, s.largest_dropped[l]);
      if (r >= worst_rank) {  // the last (largest) block reaching the maximum
        worst_rank = r;
        worst_at = "T=" + std::to_string(T) + " block size " + std::to_string(s.block_size[l]);
      }
      if (r > 1)
        cex.add("T=" + std::to_string(T) + ": a dyadic block of size " + std::to_string(s.block_size[l]) +
                " has numeric rank " + std::to_string(r) + " (|R_22| / |R_11| above the tolerance " +
                fmt_g(loglinear_rank_tolerance(T)) + ")");
    }
    if (!loglinear_summary(T, 1, 0).dyadic_blocks_rank_le_1)
      cex.add("T=" + std::to_string(T) + ": structural dyadic check failed");
  }
  if (ctx.perturb && numeric_T.back() < 4 && !cex.any())  // no block of two rows and two columns to plant
    cex.add("perturbed: a dyadic block's rank raised to 2");
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
  const std::string ts = join_numbers(numeric_T), st = join_numbers(structural_T);
  return outcome_of(
      cex, {.checked = "numeric ranks of every dyadic block at T = " + ts +
                       (st.empty() ? "" : "; structural (one level per block) at T = " + st),
            .worst = "largest numeric rank of a dyadic block " + std::to_string(worst_rank) + " (" +
                     worst_at + ")",
            .detail =
                std::to_string(blocks) + " blocks factored numerically (column-pivoted QR), " +
                std::to_string(structural_blocks) +
                " checked structurally; rank-1 blocks left |R_22| / |R_11| <= " +
                (largest_dropped >= 0 ? fmt_g(largest_dropped) : std::string("0 (none factored past R_11)")) +
                ", the rounding bound 2 m u / (1 - m u) (m < T) is " + fmt_g(bound) +
                ", the tolerance 100x it " + fmt_g(tol) +
                (largest_dropped > 0 ? " (" + fmt_g(tol / largest_dropped) + " x the largest measured)" : ""),
            .instances = blocks + structural_blocks});
}

ClaimRegistrar reg({"guo.loglinear.hodlr", "Guo et al., Log-Linear Attention", "Sec. 3 (hierarchical matrix)",
                    "Every dyadic off-diagonal block (rows [2^l(2m+1), 2^l(2m+2)), columns [2^l 2m, "
                    "2^l(2m+1))) of the log-linear mask M^H has rank <= 1 (M^H is HODLR with rank-1 blocks)",
                    "the log-linear mask M^H; numeric for T <= 1024, structural up to n-max (default 2^20)",
                    check});

}  // namespace
}  // namespace mixgraph::claims
