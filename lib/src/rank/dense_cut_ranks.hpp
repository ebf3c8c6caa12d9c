#pragma once
// The dense numeric ranks of one operator at every cut, shared by cut_ranks_dense (one layer, rank.cpp) and
// stack_cut_ranks (the product of a stack's layers, stack_rank.cpp).
#include <cstdint>
#include <vector>

#include "mixgraph/csr.hpp"
#include "mixgraph/eigen_dense.hpp"

namespace mixgraph::detail {

/// r(K) = rank M[K+1..n, 1..K] for each K of cuts, from mt = M^T (n x n): #{l : |R_ll| > tol |R_11|} of a
/// column-pivoted Householder QR of the block (a copy of it per cut: about 2 K (n - K) (n - K) flops and
/// 8 K (n - K) bytes per thread). The cuts run on OpenMP threads (for_each_cut_guarded: the "cut ranks:
/// dense" progress hook, Cancelled, RuntimeFailure); kept[c] / dropped[c] are cut c's smallest kept and
/// largest dropped |R_ll| / |R_11| (-1: none). cuts must lie in 1..n-1.
std::vector<std::uint32_t> dense_cut_ranks(const Eigen::MatrixXd& mt, const std::vector<pos_t>& cuts,
                                           double tol, std::vector<double>& kept,
                                           std::vector<double>& dropped);

}  // namespace mixgraph::detail
