#pragma once
// Test helper: the dense reference of a stack's product operator and of its cut ranks, for the stack rank
// tests (test_pattern_stack.cpp, test_stack_rank.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "dense_mixer.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/stack.hpp"

namespace mixgraph::test {

/// M = M_L ... M_1, M_l = (I - B_l)^{-1} A_l, from layer l's weights induced_weights(layer, seed + l) (the
/// weights stack_cut_ranks draws), dense n x n.
inline Eigen::MatrixXd dense_stack_product(const Stack& s, std::uint64_t seed) {
  const pos_t n = s.n;
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(n, n);
  for (std::size_t l = 0; l < s.depth(); ++l) {
    M = dense_operator(induced_weights(*s.layers[l], seed + l).w, n) * M;
  }
  return M;
}

/// The rank of M's cut-K block (rows K..n-1, columns 0..K-1) by SVD: singular values above 1e-9 times the
/// largest.
inline std::uint32_t dense_cut_rank(const Eigen::MatrixXd& M, pos_t K) {
  const auto n = M.rows();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(M.block(K, 0, n - K, K));
  const auto sv = svd.singularValues();
  std::uint32_t rank = 0;
  for (Eigen::Index k = 0; k < sv.size(); ++k) rank += sv(k) > 1e-9 * sv(0);
  return rank;
}

/// stack_cut_ranks of stack `spec` at n with `ro` (numeric and flow) against the SVD of the dense product
/// from the same weights: every numeric rank equals dense_cut_rank and is at most the flow rank.
inline void expect_ranks_match_dense_product(const std::string& spec, pos_t n, const StackRankOptions& ro) {
  const auto s = make_stack(spec, n);
  const auto r = stack_cut_ranks(s, ro);
  const Eigen::MatrixXd M = dense_stack_product(s, ro.seed);
  ASSERT_TRUE(r.numeric_done && r.flow_done) << spec << " n=" << n;
  ASSERT_EQ(r.numeric.size(), r.cuts.size()) << spec << " n=" << n;
  for (std::size_t c = 0; c < r.cuts.size(); ++c) {
    const pos_t K = r.cuts[c];
    EXPECT_EQ(r.numeric[c], dense_cut_rank(M, K)) << spec << " n=" << n << " K=" << K;
    EXPECT_LE(r.numeric[c], r.flow[c]) << spec << " n=" << n << " K=" << K;
  }
  EXPECT_TRUE(r.numeric_above_flow.empty()) << spec << " n=" << n;
}

}  // namespace mixgraph::test
