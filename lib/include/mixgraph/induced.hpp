#pragma once
// The induced operator M = (I - B)^{-1} A of a pattern with seeded random weights, as a dense matrix
// (docs/math.md §1): entry (i, j) is how much input j contributes to output i. For pictures and small checks.
//
//   auto p = mixgraph::make_pattern("pow2", 256);
//   Eigen::MatrixXd m = mixgraph::induced_operator_dense(p, /*seed=*/1);   // m(i, j), 0-indexed
#include <cstdint>

#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph {

/// Bytes induced_operator_dense needs at n (the n x n result plus the weighted pattern), for check_memory.
std::uint64_t induced_operator_dense_bytes(const Pattern& p);

/// M = (I - B)^{-1} A for the weights of random_weights(p, seed), dense, lower triangular, 0-indexed
/// (row i = target token i + 1, column j = source j + 1). Computed by forward substitution over B's rows:
/// row i of M = A_i + sum_{j read by i} beta_ij M_j, so O(n * (n + nnz(B))) time and O(n^2) memory; an
/// entry that no path reaches is exactly 0 (there is no "unreachable" value here; cancellation can also
/// give 0 or tiny values on reachable entries). Throws RuntimeFailure via check_memory when the n x n
/// matrix does not fit under `mem_limit` bytes (0 = physical memory).
Eigen::MatrixXd induced_operator_dense(const Pattern& p, std::uint64_t seed, std::uint64_t mem_limit = 0);

/// The same for given weights (A and B as CSR with values, rows = readers).
Eigen::MatrixXd induced_operator_dense(const WeightedPattern& w, std::uint64_t mem_limit = 0);

}  // namespace mixgraph
