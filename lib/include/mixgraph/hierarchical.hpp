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
#include <bit>
#include <cstdint>
#include <vector>

#include "mixgraph/eigen_dense.hpp"
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
  double tolerance = 0.0;           ///< loglinear_rank_tolerance(T)
  double rounding_bound = 0.0;      ///< rank1_rounding_bound(T)
  /// numeric_done: the largest |R_22| / |R_11| (first pivot not counted) over every block, -1 when none
  double largest_dropped = -1.0;
};

/// A-priori bound on |R_22| / |R_11| when column-pivoted Householder QR (numeric_rank_colpiv) factors, in
/// fp64, a matrix with m rows whose exact rank is <= 1: 2 g, g = m u / (1 - m u), u = 2^-53 (Higham,
/// Accuracy and Stability of Numerical Algorithms, Lemmas 19.1-19.2, constant c = 1; docs/math.md §5,
/// "Tolerance of the dyadic ranks"). +inf when m u >= 1/2.
///
/// Why: the first reflector P, exact for the pivot column a_p, applied in fp64 to a column a_j gives
/// P (a_j + e_j) with ||e_j|| <= g ||a_j||. Exact rank <= 1 makes a_j a multiple of a_p, so P a_j has no
/// entry below the first and the computed trailing column is P e_j's: norm <= g ||a_j||. The pivot is the
/// largest computed column norm, so with the norms' own rounding (a factor <= 2 for m u <= 1/10)
/// |R_22| / |R_11| <= 2 g.
double rank1_rounding_bound(std::uint64_t m);
/// The relative tolerance of M^H's numeric dyadic ranks at length T: 100 x rank1_rounding_bound(T) (every
/// block has fewer than T rows). A block counted rank >= 2 has |R_22| / |R_11| above 100 times the bound,
/// so it cannot be rank <= 1 in exact arithmetic (nor for any constant c up to 99 in the bound).
double loglinear_rank_tolerance(std::uint64_t T);

/// The mask M^H transposed (Mt(s, t) = lambda_t^(level(t, s)) for s <= t, 0 above), lambda drawn in
/// [0.5, 1) from hash_uniform(seed, 0x1091, t, level): one weight per row and level. 8 T^2 bytes.
Eigen::MatrixXd loglinear_mask_transposed(std::uint64_t T, std::uint64_t seed);

/// Bucket counts, max_levels (a loop over t < T, never a formula), level indices used, the structural
/// dyadic check (O(T) blocks, O(1) each), and for T <= numeric_limit the numeric dyadic ranks of M^H
/// (O(T^3)). Throws UsageError for T < 1.
LogLinearSummary loglinear_summary(std::uint64_t T, std::uint64_t seed, std::uint64_t numeric_limit = 1024);

/// The decode state of log-linear attention (Guo et al., "Log-Linear Attention", Sec. 3), as opposed to its
/// mask: the `loglinear` pattern is attention's mask (every earlier position is read), so its decode cost
/// and cache count positions, while a log-linear decoder keeps one summarised state per Fenwick bucket.
/// Query t (0-indexed) reads its buckets: level 0 = its own key and value, and one state per level l >= 1
/// whose bit l-1 of t is set (the sum of k_s v_s^T over the 2^(l-1) keys of that bucket, a d_k x d_v
/// matrix per head). Between tokens the decoder keeps the buckets of the tokens seen so far, merging two
/// equal ones as a binary counter carries, so before query t it holds popcount(t) summarised states.
struct LogLinearDecodeState {
  std::uint64_t n = 0;
  std::uint32_t levels = 0;  ///< level indices used at length n: 0..bit_width(n - 1), so bit_width(n - 1) + 1
  std::uint32_t max_states = 0;           ///< most states one query reads: max over t < n of 1 + popcount(t)
  std::uint64_t max_states_position = 0;  ///< the first 1-indexed position i = t + 1 reaching it
  std::uint32_t max_kept_states = 0;      ///< most summarised states kept between tokens: max_states - 1
  std::uint64_t total_states = 0;         ///< states read over all queries: sum over t < n of 1 + popcount(t)
};

/// The decode state of log-linear attention at length n >= 1, in closed form (O(log n)): the largest
/// popcount below n is bit_width(n - 1) when n is a power of two, else bit_width(n - 1) - 1, first reached
/// at t = 2^k - 1; bit b is set in (n >> (b + 1)) 2^b + max(0, n mod 2^(b+1) - 2^b) of the t < n.
/// Throws UsageError for n < 1.
LogLinearDecodeState loglinear_decode_state(std::uint64_t n);

}  // namespace mixgraph
