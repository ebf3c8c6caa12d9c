// The a-priori rounding-error bound behind the fp64 claims' tolerances (claim_util.hpp): a forward
// substitution in fp64, summed in a shuffled order, stays within the bound of the same system solved in long
// double (80-bit; its own error is ~2^-11 of fp64's), on random systems with ||B|| up to 0.99; and inf_norm
// is the largest absolute row sum (dense Eigen). The rank-1 bound behind the log-linear dyadic ranks, and
// guo.loglinear.hodlr failing on a planted matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "../lib/claims/claim_util.hpp"
#include "mixgraph/claims.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/hierarchical.hpp"
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

// The rank-1 rounding bound behind guo.loglinear.hodlr's tolerance (hierarchical.hpp): column-pivoted QR of
// random rank-1 matrices (columns of very different sizes, signs mixed) leaves |R_22| / |R_11| within it.
TEST(ClaimBounds, RankOneBlocksStayWithinTheRoundingBound) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  double worst = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const Eigen::Index m = 2 + trial * 13, k = 1 + (trial * 7) % 300;
    Eigen::VectorXd u(m), v(k);
    for (Eigen::Index i = 0; i < m; ++i) u(i) = U(rng);
    for (Eigen::Index j = 0; j < k; ++j) v(j) = U(rng) * std::pow(10.0, 4 * U(rng));
    const Eigen::MatrixXd a = u * v.transpose();
    double kept = -1, dropped = -1;
    const auto r =
        numeric_rank_colpiv(a, loglinear_rank_tolerance(static_cast<std::uint64_t>(m)), kept, dropped);
    EXPECT_EQ(r, 1u) << "m = " << m << ", k = " << k;
    // the bound: |R_22| / |R_11| <= 2 m u / (1 - m u) (k = 1 runs out of columns: nothing dropped)
    if (k > 1) {
      EXPECT_LE(dropped, rank1_rounding_bound(static_cast<std::uint64_t>(m))) << m << " x " << k;
    }
    worst = std::max(worst, dropped / rank1_rounding_bound(static_cast<std::uint64_t>(m)));
  }
  EXPECT_LT(worst, 1.0);
  EXPECT_NEAR(rank1_rounding_bound(1024), 2 * 1024 * kUnitRoundoff, 1e-25);
  EXPECT_DOUBLE_EQ(loglinear_rank_tolerance(1024), 100 * rank1_rounding_bound(1024));
  EXPECT_TRUE(std::isinf(rank1_rounding_bound(std::uint64_t{1} << 53)));
}

// guo.loglinear.hodlr can fail: a planted non-hierarchical matrix (one entry of a dyadic block off its
// level's weight) is counted rank 2, as an SVD of the block says; and it passes on the real mask M^H with
// the measured |R_22| / |R_11| below the bound, reported in its detail.
TEST(ClaimBounds, HodlrFailsOnAPlantedMatrixAndPassesWithItsMargin) {
  const std::uint64_t T = 256;
  const double tol = loglinear_rank_tolerance(T);
  for (double factor : {1.5, 1 + 1e-6}) {
    Eigen::MatrixXd mt = loglinear_mask_transposed(T, 1);
    mt(0, 128) *= factor;  // keys 0..127 x queries 128..255: the largest dyadic block
    const Eigen::MatrixXd blk = mt.block(0, 128, 128, 128);
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(blk);
    const auto& sv = svd.singularValues();
    EXPECT_GT(sv(1) / sv(0), 100 * tol) << factor;  // the reference: genuinely rank 2, far above tol
    const auto d = dyadic_block_ranks_transposed(mt, tol);
    EXPECT_EQ(d.max_rank.back(), 2u) << factor;
    for (std::size_t l = 0; l + 1 < d.max_rank.size(); ++l) EXPECT_LE(d.max_rank[l], 1u) << l;
  }
  // the real mask: every block rank 1 by the SVD too, its sigma_2 / sigma_1 within the bound
  const Eigen::MatrixXd mt = loglinear_mask_transposed(T, 1);
  for (std::uint64_t bs = 2; bs < T; bs *= 2)
    for (std::uint64_t c0 = 0; c0 + bs < T; c0 += 2 * bs) {
      Eigen::JacobiSVD<Eigen::MatrixXd> svd(mt.block(c0, c0 + bs, bs, bs));
      EXPECT_LE(svd.singularValues()(1) / svd.singularValues()(0), rank1_rounding_bound(T))
          << bs << " " << c0;
    }
  const auto s = loglinear_summary(1024, 1, 1024);
  ASSERT_TRUE(s.numeric_done);
  EXPECT_GE(s.largest_dropped, 0.0);
  EXPECT_LE(s.largest_dropped, s.rounding_bound);
  EXPECT_EQ(s.tolerance, loglinear_rank_tolerance(1024));

  ClaimContext ctx;
  ctx.n_max = 1024;
  const auto ok = run_claims({"guo.loglinear.hodlr"}, ctx).at(0).outcome;
  EXPECT_EQ(ok.verdict, "PASSED") << ok.counterexample.value_or("");
  EXPECT_NE(ok.detail.find("x the largest measured"), std::string::npos) << ok.detail;
  // the measured margin in the detail: the largest |R_22| / |R_11| over the T checked (T = 1024 among them)
  const std::string key = "|R_22| / |R_11| <= ";
  const auto at = ok.detail.find(key);
  ASSERT_NE(at, std::string::npos) << ok.detail;
  const double measured = std::stod(ok.detail.substr(at + key.size()));
  EXPECT_GE(measured, s.largest_dropped * (1 - 1e-3)) << ok.detail;
  EXPECT_LE(measured, rank1_rounding_bound(1024)) << ok.detail;
  ctx.perturb = true;  // plants the non-hierarchical entry in the T = 1024 mask
  const auto bad = run_claims({"guo.loglinear.hodlr"}, ctx).at(0).outcome;
  EXPECT_EQ(bad.verdict, "FAILED");
  ASSERT_TRUE(bad.counterexample.has_value());
  EXPECT_NE(bad.counterexample->find("T=1024: a dyadic block of size 512 has numeric rank 2"),
            std::string::npos)
      << *bad.counterexample;
}
