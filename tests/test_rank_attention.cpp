// `mixgraph rank --attn-q Q.npy --attn-k K.npy`: the cut ranks of a real attention head against an
// independent dense Eigen construction of the masked attention matrix (softmax and the elu+1 linear kernel).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "attention_util.hpp"
#include "cli_util.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/npy.hpp"

using mixgraph::NpyArray;
using mixgraph::test::run_cli;

namespace {

struct RankAttnTempDir : mixgraph::test::AttnTempDir {
  RankAttnTempDir() : AttnTempDir("mixgraph_attn") {}
};
using mixgraph::test::normal_matrix;
std::string rank_attn_save(const std::string& path, const Eigen::MatrixXd& m) {
  return mixgraph::test::save_npy(path, m);
}

double rank_attn_elu1(double x) {
  return x > 0 ? x + 1 : std::exp(x);
}

/// The attention matrix from its definition: row i (0-indexed) reads j with i - w < j <= i (w = n: causal
/// dense), weights kernel(q_i, k_j) renormalised over the row.
Eigen::MatrixXd attention_matrix(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, int w, bool softmax) {
  const int n = static_cast<int>(q.rows());
  const double r = static_cast<double>(q.cols());
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = std::max(0, i - w + 1); j <= i; ++j)
      a(i, j) = softmax ? std::exp(q.row(i).dot(k.row(j)) / std::sqrt(r))
                        : q.row(i).unaryExpr(&rank_attn_elu1).dot(k.row(j).unaryExpr(&rank_attn_elu1));
    a.row(i) /= a.row(i).sum();
  }
  return a;
}

int eigen_rank(const Eigen::MatrixXd& block, double tol) {
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(block);
  qr.setThreshold(tol);
  return static_cast<int>(qr.rank());
}

nlohmann::json attn_rank_json(const std::string& args) {
  const auto r = run_cli("rank " + args + " --format json");
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

double binom(int a, int b) {
  double v = 1;
  for (int t = 1; t <= b; ++t) v = v * (a - b + t) / t;
  return v;
}

}  // namespace

// The linear (feature-map) kernel: on a dense causal mask every cut block is diag(1/z) phi(Q) phi(K)^T, so
// its rank is at most the key dimension r, while the flow (generic) rank is min(K, n - K).
TEST(RankAttention, LinearKernelCutRankAtMostKeyDimension) {
  RankAttnTempDir dir;
  const int n = 1024;
  for (int r : {4, 8}) {
    const auto q = normal_matrix(n, r, 1.0, 11 + r), k = normal_matrix(n, r, 1.0, 97 + r);
    const auto qf = rank_attn_save(dir.path + "/q.npy", q), kf = rank_attn_save(dir.path + "/k.npy", k);
    const auto j =
        attn_rank_json("-p attention -n 1024 --cuts 256,512,768 --attn-kernel linear --tol 1e-9 --attn-q " +
                       qf + " --attn-k " + kf);
    const auto a = attention_matrix(q, k, n, false);
    const auto& cuts = j["cuts"];
    ASSERT_EQ(cuts.size(), 3u);
    for (std::size_t c = 0; c < cuts.size(); ++c) {
      const int K = cuts[c].get<int>();
      const int ref = eigen_rank(a.bottomLeftCorner(n - K, K), 1e-9);
      EXPECT_EQ(ref, r) << "K = " << K;
      EXPECT_EQ(j["cut_rank_numeric"][c].get<int>(), ref) << "K = " << K;
      EXPECT_EQ(j["cut_rank_flow"][c].get<int>(), std::min(K, n - K));
      EXPECT_EQ(j["attention"]["cut_rank_generic_exact"][c].get<int>(), std::min(K, n - K));
      EXPECT_TRUE(j["attention"]["unmasked_cut"][c].get<bool>());
    }
    EXPECT_EQ(j["attention"]["key_dim"].get<int>(), r);
    EXPECT_LT(j["attention"]["singular_value_gap"]["sigma_next_over_sigma_1"].get<double>(), 1e-12);
  }
}

// A band mask (local:256) adds rank: the real head's rank is then no longer bounded by r, and mixgraph's
// numeric ranks follow the dense construction.
TEST(RankAttention, LinearKernelBandMaskMatchesDenseConstruction) {
  RankAttnTempDir dir;
  const int n = 1024, r = 4, w = 256;
  const auto q = normal_matrix(n, r, 1.0, 5), k = normal_matrix(n, r, 1.0, 6);
  const auto qf = rank_attn_save(dir.path + "/q.npy", q), kf = rank_attn_save(dir.path + "/k.npy", k);
  const auto j =
      attn_rank_json("-p local:256 -n 1024 --cuts 300,700 --attn-kernel linear --tol 1e-9 --attn-q " + qf +
                     " --attn-k " + kf);
  const auto a = attention_matrix(q, k, w, false);
  for (std::size_t c = 0; c < 2; ++c) {
    const int K = j["cuts"][c].get<int>();
    const int ref = eigen_rank(a.bottomLeftCorner(n - K, K), 1e-9);
    EXPECT_GT(ref, r);
    EXPECT_NEAR(j["cut_rank_numeric"][c].get<int>(), ref, 1) << "K = " << K;
    EXPECT_FALSE(j["attention"]["unmasked_cut"][c].get<bool>());
  }
}

// Softmax: exp(Q K^T / sqrt r) is not rank r, but a degree-d Taylor truncation has rank <= C(r + d, d), and
// by Weyl's inequality sigma_{C+1} <= ||remainder||_F. With small scores the numeric rank at tolerance tau is
// at most C(r + d, d) for the smallest d whose remainder bound is below tau sigma_1: far below the flow rank.
TEST(RankAttention, SoftmaxNumericRankBoundedByTaylorTruncation) {
  RankAttnTempDir dir;
  const int n = 1024, r = 4;
  const double tau = 1e-4;
  const auto q = normal_matrix(n, r, 0.2, 21), k = normal_matrix(n, r, 0.2, 22);
  const auto qf = rank_attn_save(dir.path + "/q.npy", q), kf = rank_attn_save(dir.path + "/k.npy", k);
  const auto j =
      attn_rank_json("-p attention -n 1024 --cuts 256,512,768 --tol 1e-4 --attn-q " + qf + " --attn-k " + kf);
  const auto a = attention_matrix(q, k, n, true);
  for (std::size_t c = 0; c < 3; ++c) {
    const int K = j["cuts"][c].get<int>();
    const Eigen::MatrixXd block = a.bottomLeftCorner(n - K, K);
    const int numeric = j["cut_rank_numeric"][c].get<int>(), flow = j["cut_rank_flow"][c].get<int>();
    // the pivoted QR's rank against the SVD's: between the singular-value counts at 10 tau and tau / 100
    // (pivots track singular values up to a factor ~sqrt(K))
    Eigen::BDCSVD<Eigen::MatrixXd> svd(block);
    const Eigen::VectorXd sv = svd.singularValues();
    const double sigma1 = sv(0);
    EXPECT_GE(numeric, (sv.array() > 10 * tau * sigma1).count()) << "K = " << K;
    EXPECT_LE(numeric, (sv.array() > tau / 100 * sigma1).count()) << "K = " << K;
    EXPECT_NEAR(numeric, eigen_rank(block, tau), 3) << "K = " << K;
    // the Taylor bound, from the definition: remainder of exp(s) after degree d <= |s|^{d+1}/(d+1)! e^{|s|}
    int d = 0;
    for (;; ++d) {
      double fro2 = 0;
      for (int i = K; i < n; ++i) {
        double z = 0;
        for (int l = 0; l <= i; ++l) z += std::exp(q.row(i).dot(k.row(l)) / std::sqrt(double(r)));
        for (int jj = 0; jj < K; ++jj) {
          const double s = std::abs(q.row(i).dot(k.row(jj)) / std::sqrt(double(r)));
          const double rem = std::pow(s, d + 1) / std::tgamma(d + 2.0) * std::exp(s) / z;
          fro2 += rem * rem;
        }
      }
      if (std::sqrt(fro2) <= tau / 100 * sigma1) break;  // sigma_{C+1} <= tau sigma_1 / 100 (as above)
    }
    const double bound = binom(r + d, d);
    EXPECT_LE(numeric, bound) << "K = " << K << ", d = " << d;
    EXPECT_GT(numeric, r);  // exp is not rank r: the degree-2 monomials show at this tolerance
    EXPECT_LT(4 * numeric, flow);
    EXPECT_EQ(flow, std::min(K, n - K));
  }
  EXPECT_EQ(j["attention"]["kernel"], "softmax");
  EXPECT_NE(j["attention"]["explanation"].get<std::string>().find("not rank r"), std::string::npos);
}

TEST(RankAttention, ParsesThePatternOnce) {  // the attention path and rank's +cache contrast
  RankAttnTempDir dir;
  const auto q = rank_attn_save(dir.path + "/q.npy", normal_matrix(64, 4, 1.0, 1));
  const auto k = rank_attn_save(dir.path + "/k.npy", normal_matrix(64, 4, 1.0, 2));
  const auto r = run_cli("--count-spec-parses rank -p attention -n 64 --attn-q " + q + " --attn-k " + k);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("mixgraph: pattern spec parses: 1\n"), std::string::npos) << r.err;
}

TEST(RankAttention, BadInputIsRefused) {
  RankAttnTempDir dir;
  const auto q = rank_attn_save(dir.path + "/q.npy", normal_matrix(64, 4, 1.0, 1));
  const auto k3 = rank_attn_save(dir.path + "/k3.npy", normal_matrix(64, 3, 1.0, 2));
  const auto k = rank_attn_save(dir.path + "/k.npy", normal_matrix(64, 4, 1.0, 2));
  EXPECT_EQ(run_cli("rank -p attention -n 64 --attn-q " + q).code, 2);
  EXPECT_EQ(run_cli("rank -p attention -n 64 --attn-q " + q + " --attn-k " + k3).code, 3);
  EXPECT_EQ(run_cli("rank -p attention -n 65 --attn-q " + q + " --attn-k " + k).code, 3);
  EXPECT_EQ(run_cli("rank -p attention -n 64 --method exact --attn-q " + q + " --attn-k " + k).code, 2);
  EXPECT_EQ(run_cli("rank -p attention -n 64 --attn-q " + q + " --attn-k " + k + " --weights-a " + q).code,
            2);
}
