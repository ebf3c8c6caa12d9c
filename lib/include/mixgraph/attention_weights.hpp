#pragma once
// Real attention weights on a pattern's mask, for the cut ranks of a head whose weights come from data
// (docs/math.md §5, "Real attention heads").
//
//   auto p = mixgraph::make_pattern("attention", 1024);
//   auto q = mixgraph::read_npy("Q.npy"), k = mixgraph::read_npy("K.npy");   // n x r each
//   auto w = mixgraph::attention_weights(p, q, k, mixgraph::AttentionKernel::Softmax, /*seed=*/1);
//   // w.a: alpha_ij = softmax over i's A reads of q_i . k_j / sqrt(r); w.b: the seeded generic B
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/npy.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph {

enum class AttentionKernel {
  Softmax,  ///< alpha_ij = exp(s_ij) / sum_{l in reads(i)} exp(s_il), s_ij = q_i . k_j / sqrt(r)
  Linear,   ///< alpha_ij = phi(q_i) . phi(k_j) / sum_l phi(q_i) . phi(k_l), phi(x) = elu(x) + 1 per entry
};

/// "softmax" or "linear".
const char* to_string(AttentionKernel k);

/// A's weights from queries Q and keys K (n x r arrays, row t = position t + 1): alpha_ij by `kernel` over
/// the reads of row i of A (the pattern's A mask; shared A: B's reads and i itself; diagonal A: i only),
/// renormalised over those reads. B keeps the seeded generic weights of random_weights(p, seed) (empty for
/// attention patterns). Throws InputError when a shape does not match (rows != n, r differs, r = 0) or a
/// value is not finite. O((nnz(A) + n) r) time; A and B materialised (check_memory first).
WeightedPattern attention_weights(const Pattern& p, const NpyArray& q, const NpyArray& k,
                                  AttentionKernel kernel, std::uint64_t seed);

/// Singular values (descending) of the cut block M[K+1..n, 1..K] of M = (I - B)^{-1} A for w's weights, by a
/// dense operator and Eigen's BDCSVD. 8 n^2 bytes plus the block; O(n^2 + (n-K) K min(K, n-K)).
std::vector<double> cut_block_singular_values(const WeightedPattern& w, pos_t K);

}  // namespace mixgraph
