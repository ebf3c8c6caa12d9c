#pragma once
// Dense references for the solver tests: seeded inputs X and the mixer Y_h = (I - B_h)^{-1} A_h X_h computed
// with dense Eigen straight from the weighted reads of each head (one CSR-with-values pair per head).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph::test {

/// n x d inputs, row-major, entries 2u - 1 with u = hash_uniform(seed, 3, k, 0) (k the flat index).
inline std::vector<double> inputs(pos_t n, std::size_t d, std::uint64_t seed) {
  std::vector<double> x(std::size_t(n) * d);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = 2 * hash_uniform(seed, 3, k, 0) - 1;
  return x;
}

/// M = (I - B)^{-1} A of one head's weighted reads (WeightedPattern: A and B as CSR with values), dense n x
/// n, by Eigen's unit-lower triangular solve (B reads only j < i).
inline Eigen::MatrixXd dense_operator(const WeightedPattern& w, pos_t n) {
  Eigen::MatrixXd IminusB = Eigen::MatrixXd::Identity(n, n), A = Eigen::MatrixXd::Zero(n, n);
  for (pos_t i = 0; i < n; ++i) {
    for (nnz_t e = w.a.ptr[i]; e < w.a.ptr[i + 1]; ++e) A(i, w.a.idx[e]) += w.a.val[e];
    if (!w.b.ptr.empty())
      for (nnz_t e = w.b.ptr[i]; e < w.b.ptr[i + 1]; ++e) IminusB(i, w.b.idx[e]) -= w.b.val[e];
  }
  return IminusB.triangularView<Eigen::UnitLower>().solve(A);
}

/// How the dense reference solves (I - B) Y = A X: through the explicit inverse (shares nothing with a
/// triangular solver), or by Eigen's triangular solve (tighter rounding, for 1e-12 comparisons).
enum class DenseSolve { Inverse, Triangular };

/// Y (n x d, row-major) with heads side by side: head h owns columns h dh .. (h + 1) dh - 1, dh = d / heads.
inline std::vector<double> dense(const std::vector<WeightedPattern>& hs, pos_t n,
                                 const std::vector<double>& x, std::size_t d,
                                 DenseSolve how = DenseSolve::Inverse) {
  const std::size_t dh = d / hs.size();
  std::vector<double> y(x.size());
  Eigen::setNbThreads(1);  // many small products: OpenMP start-up would dominate on a busy machine
  for (std::size_t h = 0; h < hs.size(); ++h) {
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(n, n), A = Eigen::MatrixXd::Zero(n, n), X(n, dh);
    for (pos_t i = 0; i < n; ++i) {
      for (nnz_t e = hs[h].b.ptr[i]; e < hs[h].b.ptr[i + 1]; ++e) B(i, hs[h].b.idx[e]) = hs[h].b.val[e];
      for (nnz_t e = hs[h].a.ptr[i]; e < hs[h].a.ptr[i + 1]; ++e) A(i, hs[h].a.idx[e]) = hs[h].a.val[e];
      for (std::size_t c = 0; c < dh; ++c) X(i, c) = x[std::size_t(i) * d + h * dh + c];
    }
    const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(n, n);
    const Eigen::MatrixXd Y = how == DenseSolve::Inverse
                                  ? Eigen::MatrixXd((I - B).inverse() * A * X)
                                  : Eigen::MatrixXd((I - B).triangularView<Eigen::Lower>().solve(A * X));
    for (pos_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < dh; ++c) y[std::size_t(i) * d + h * dh + c] = Y(i, c);
  }
  return y;
}

}  // namespace mixgraph::test
