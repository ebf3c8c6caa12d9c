// The a-priori rounding-error bound behind the fp64 claims' tolerances (claim_util.hpp): a forward
// substitution in fp64, summed in a shuffled order, stays within the bound of the same system solved in long
// double (80-bit; its own error is ~2^-11 of fp64's), on random systems with ||B|| up to 0.99; and inf_norm
// is the largest absolute row sum (dense Eigen).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <random>

#include "../lib/claims/claim_util.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/weights.hpp"

using namespace mixgraph;
using namespace mixgraph::claims;

TEST(ClaimBounds, ForwardSubstitutionStaysWithinTheBound) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 2 + trial * 7, m = 1 + trial % 9;  // each row reads up to m - 1 earlier rows
    const double scale = trial % 2 ? 0.99 : 0.5;
    std::vector<std::vector<std::pair<std::size_t, double>>> b(n);
    std::vector<double> a(n), x(n);
    double norm_b = 0, norm_a = 0, norm_x = 0;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t t = 1; t < m && t <= i; ++t) b[i].push_back({i - t, U(rng)});
      double s = 0;
      for (auto& [j, v] : b[i]) s += std::fabs(v);
      for (auto& [j, v] : b[i]) v *= s > 0 ? scale / s : 0;  // row sum of |B| = scale
      a[i] = U(rng), x[i] = U(rng);
      s = 0;
      for (auto& [j, v] : b[i]) s += std::fabs(v);
      norm_b = std::max(norm_b, s), norm_a = std::max(norm_a, std::fabs(a[i]));
      norm_x = std::max(norm_x, std::fabs(x[i]));
    }
    std::vector<double> y(n);
    std::vector<long double> ref(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<double> terms = {a[i] * x[i]};
      long double r = static_cast<long double>(a[i]) * x[i];
      for (auto [j, v] : b[i]) terms.push_back(v * y[j]), r += static_cast<long double>(v) * ref[j];
      std::shuffle(terms.begin(), terms.end(), rng);
      double s = 0;
      for (double t : terms) s += t;
      y[i] = s, ref[i] = r;
    }
    double err = 0;
    for (std::size_t i = 0; i < n; ++i)
      err = std::max(err, static_cast<double>(std::fabs(static_cast<long double>(y[i]) - ref[i])));
    const double bound = substitution_error_bound(norm_a, norm_b, norm_x, m);
    ASSERT_TRUE(std::isfinite(bound));
    EXPECT_LE(err, bound) << "trial " << trial;
  }
  // no bound without a contraction
  EXPECT_TRUE(std::isinf(substitution_error_bound(1, 1.0, 1, 4)));
  EXPECT_TRUE(std::isinf(substitution_error_bound(1, 0.5, 1, std::uint64_t{1} << 60)));
}

TEST(ClaimBounds, InfNormIsTheLargestAbsoluteRowSum) {
  const auto w = random_weights(make_pattern("sq1", 50), 3);
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(50, 50);
  for (pos_t i = 0; i < 50; ++i) {
    auto r = w.b.row(i);
    auto v = w.b.row_values(i);
    for (std::size_t e = 0; e < r.size(); ++e) d(i, r[e]) = v[e];
  }
  EXPECT_DOUBLE_EQ(inf_norm(w.b), d.cwiseAbs().rowwise().sum().maxCoeff());
  EXPECT_LE(inf_norm(w.b), 0.9 + 1e-15);  // the weights' documented contraction
}
