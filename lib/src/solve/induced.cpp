#include "mixgraph/induced.hpp"

#include <string>

#include "mixgraph/memory.hpp"

namespace mixgraph {

std::uint64_t induced_operator_dense_bytes(const Pattern& p) {
  const std::uint64_t n = p.n;
  // The dense result, plus a generous bound for the weighted CSR of A and B (decode cost <= n per row).
  return n * n * sizeof(double) + (n + 1) * 2 * sizeof(nnz_t);
}

Eigen::MatrixXd induced_operator_dense(const WeightedPattern& w, std::uint64_t mem_limit) {
  const pos_t n = w.a.n;
  check_memory(static_cast<std::uint64_t>(n) * n * sizeof(double), mem_limit,
               "the dense induced operator at n = " + std::to_string(n));
  // Row-major storage makes "row i += beta * row j" contiguous; returned as column-major MatrixXd.
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> m =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>::Zero(n, n);
  for (pos_t i = 0; i < n; ++i) {
    auto cols = w.a.row(i);
    auto vals = w.a.row_values(i);
    for (std::size_t k = 0; k < cols.size(); ++k) m(i, cols[k]) += vals[k];
    if (w.b.n == 0 || w.b.ptr.empty()) continue;
    auto bc = w.b.row(i);
    auto bv = w.b.row_values(i);
    for (std::size_t k = 0; k < bc.size(); ++k)
      m.row(i).head(bc[k] + 1) += bv[k] * m.row(bc[k]).head(bc[k] + 1);  // row j is zero right of j
  }
  return m;
}

Eigen::MatrixXd induced_operator_dense(const Pattern& p, std::uint64_t seed, std::uint64_t mem_limit) {
  check_memory(induced_operator_dense_bytes(p), mem_limit,
               "the dense induced operator of " + p.spec + " at n = " + std::to_string(p.n));
  return induced_operator_dense(random_weights(p, seed), mem_limit);
}

}  // namespace mixgraph
