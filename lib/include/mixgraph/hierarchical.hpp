#pragma once
// Hierarchical operators (docs/math.md §2, §5): the log-linear attention mask M^H (Fenwick buckets) and the
// rank of every dyadic off-diagonal block (the HODLR property), for M^H and for a pattern's operator M.
//
//   auto s = mixgraph::loglinear_summary(131072, /*seed=*/1);
//   s.max_levels;                 // 18: the most non-empty buckets of any query t < T
//   s.dyadic_blocks_rank_le_1;    // true
//
// Queries t and keys s are 0-indexed here, as in the log-linear attention paper (Guo et al.): the query
// at 1-indexed position i is t = i - 1.
#include <Eigen/Dense>
#include <bit>
#include <cstdint>
#include <vector>

#include "mixgraph/rank.hpp"

namespace mixgraph {

/// level(t, s) = bit_length(t XOR s) for keys s <= t (0-indexed). O(1).
inline std::uint32_t loglinear_level(std::uint64_t t, std::uint64_t s) {
  return static_cast<std::uint32_t>(std::bit_width(t ^ s));
}
/// Non-empty buckets of query t: 1 + popcount(t) (level 0 = {t}; level l >= 1 non-empty iff bit l-1 of t is
/// set). O(1).
inline std::uint32_t loglinear_buckets(std::uint64_t t) {
  return 1u + static_cast<std::uint32_t>(std::popcount(t));
}

struct LogLinearSummary {
  std::uint64_t T = 0;
  std::uint32_t max_levels = 0;     ///< max over queries t < T of the non-empty buckets (computed)
  std::uint64_t argmax_query = 0;   ///< the first 0-indexed query reaching it
  std::uint32_t level_indices = 0;  ///< level indices used: 0..max level = bit_length(T-1) + 1
  std::vector<std::uint64_t> queries_with_buckets;  ///< [b] = number of queries t < T with b buckets
  /// Structural check over every dyadic off-diagonal block (block size 2^l, rows [2^l(2m+1), 2^l(2m+2)),
  /// columns [2^l 2m, 2^l(2m+1)), rows clipped to T): all of its entries share one level, so the block is
  /// diag(lambda_t^(level)) times a ones row: rank <= 1.
  bool dyadic_blocks_rank_le_1 = false;
  std::uint64_t dyadic_blocks = 0;  ///< blocks checked
  bool numeric_done = false;        ///< T <= numeric_limit: ranks of M^H's blocks, numerically
  DyadicRanks numeric;              ///< per level (block size 2^l): blocks, max numeric rank
  double tolerance = 0.0;
};

/// The mask M^H transposed (Mt(s, t) = lambda_t^(level(t, s)) for s <= t, 0 above), lambda drawn in
/// [0.5, 1) from hash_uniform(seed, 0x1091, t, level): one weight per row and level. 8 T^2 bytes.
Eigen::MatrixXd loglinear_mask_transposed(std::uint64_t T, std::uint64_t seed);

/// Bucket counts, max_levels (a loop over t < T, never a formula), level indices used, the structural
/// dyadic check (O(T) blocks, O(1) each), and for T <= numeric_limit the numeric dyadic ranks of M^H
/// (O(T^3)). Throws UsageError for T < 1.
LogLinearSummary loglinear_summary(std::uint64_t T, std::uint64_t seed, std::uint64_t numeric_limit = 1024);

}  // namespace mixgraph
