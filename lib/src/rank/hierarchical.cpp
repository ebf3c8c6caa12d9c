// Log-linear attention (Fenwick buckets) and dyadic block ranks (docs/math.md §2, §5).
#include "mixgraph/hierarchical.hpp"

#include <algorithm>
#include <cmath>

#include "mixgraph/error.hpp"

namespace mixgraph {

double rank1_rounding_bound(std::uint64_t m) {
  constexpr double u = 1.1102230246251565e-16;  // 2^-53
  const double mu = static_cast<double>(m) * u;
  if (mu >= 0.5) return INFINITY;
  return 2.0 * mu / (1.0 - mu);
}

double loglinear_rank_tolerance(std::uint64_t T) {
  return 100.0 * rank1_rounding_bound(T);
}

Eigen::MatrixXd loglinear_mask_transposed(std::uint64_t T, std::uint64_t seed) {
  const auto t_ = static_cast<Eigen::Index>(T);
  Eigen::MatrixXd mt = Eigen::MatrixXd::Zero(t_, t_);
  for (std::uint64_t t = 0; t < T; ++t)
    for (std::uint64_t s = 0; s <= t; ++s)
      mt(static_cast<Eigen::Index>(s), static_cast<Eigen::Index>(t)) =
          0.5 + 0.5 * hash_uniform(seed, 0x1091, t, loglinear_level(t, s));
  return mt;
}

LogLinearSummary loglinear_summary(std::uint64_t T, std::uint64_t seed, std::uint64_t numeric_limit) {
  if (T < 1) throw UsageError("--T must be >= 1 (the number of queries)");
  LogLinearSummary out;
  out.T = T;
  std::uint32_t max_bits = 0;
  for (std::uint64_t t = 0; t < T; ++t) {
    const std::uint32_t b = loglinear_buckets(t);
    if (b > out.max_levels) {
      out.max_levels = b;
      out.argmax_query = t;
    }
    if (out.queries_with_buckets.size() <= b) out.queries_with_buckets.resize(b + 1, 0);
    ++out.queries_with_buckets[b];
    max_bits = std::max(max_bits, static_cast<std::uint32_t>(std::bit_width(t)));
  }
  out.level_indices = max_bits + 1;
  // Structural HODLR check: in a dyadic block with rows [r0, r0 + bs) and columns [c0, c0 + bs)
  // (c0 = 2 m bs, r0 = c0 + bs), t XOR s ranges over [r0 ^ c0, (r0 ^ c0) | (bs - 1)]: one level iff both ends
  // have the same bit length.
  bool ok = true;
  for (std::uint64_t bs = 1; bs < T; bs *= 2) {
    for (std::uint64_t c0 = 0; c0 + bs < T; c0 += 2 * bs) {
      const std::uint64_t r0 = c0 + bs;
      const std::uint64_t lo = r0 ^ c0, hi = lo | (bs - 1);
      if (std::bit_width(lo) != std::bit_width(hi)) ok = false;
      ++out.dyadic_blocks;
    }
    if (bs > (UINT64_MAX >> 2)) break;
  }
  out.dyadic_blocks_rank_le_1 = ok;
  // a tolerance from the rounding bound of the rank-1 decision, with a 100x margin (hierarchical.hpp)
  out.rounding_bound = rank1_rounding_bound(T);
  out.tolerance = loglinear_rank_tolerance(T);
  if (T <= numeric_limit) {
    const auto mt = loglinear_mask_transposed(T, seed);
    out.numeric = dyadic_block_ranks_transposed(mt, out.tolerance);
    out.numeric_done = true;
    for (auto r : out.numeric.max_rank)
      if (r > 1) out.dyadic_blocks_rank_le_1 = false;
    for (double d : out.numeric.largest_dropped) out.largest_dropped = std::max(out.largest_dropped, d);
  }
  return out;
}

}  // namespace mixgraph
