// `mixgraph solve --attn-q Q.npy --attn-k K.npy`: Y against an independent dense construction (Eigen, fp64)
// of the attention matrix on the pattern's brute-force A reads (pattern_bruteforce), Y = (I - B)^{-1} A X.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "../lib/src/pattern/pattern_bruteforce.hpp"
#include "attention_util.hpp"
#include "cli_util.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/npy.hpp"

using mixgraph::NpyArray;
using mixgraph::test::run_cli;

namespace {

struct SolveAttnTempDir : mixgraph::test::AttnTempDir {
  SolveAttnTempDir() : AttnTempDir("mixgraph_solve_attn") {}
};
using mixgraph::test::normal_matrix;
std::string solve_attn_save(const std::string& path, const Eigen::MatrixXd& m) {
  return mixgraph::test::save_npy(path, m);
}

Eigen::MatrixXd load(const std::string& path) {
  const NpyArray a = mixgraph::read_npy(path);
  Eigen::MatrixXd m(static_cast<int>(a.rows), static_cast<int>(a.cols));
  for (std::size_t e = 0; e < a.size(); ++e)
    m(static_cast<int>(e / a.cols), static_cast<int>(e % a.cols)) = a.fp64 ? a.f64[e] : double(a.f32[e]);
  return m;
}

double solve_attn_elu1(double x) {
  return x > 0 ? x + 1 : std::exp(x);
}

mixgraph::BruteforceRows rows_of(const std::string& spec, int n) {
  const auto rows = mixgraph::bruteforce_rows(spec, static_cast<mixgraph::pos_t>(n));
  EXPECT_TRUE(rows.has_value()) << spec;
  return rows ? *rows : mixgraph::BruteforceRows{};
}

/// The attention matrix from its definition: row i reads the brute-force A reads of i, weight
/// kernel(q_i, k_j) renormalised over them (softmax: exp(q_i . k_j / sqrt r); linear: phi(q_i) . phi(k_j)).
Eigen::MatrixXd attention_matrix(const mixgraph::BruteforceRows& rows, const Eigen::MatrixXd& q,
                                 const Eigen::MatrixXd& k, bool softmax) {
  const int n = static_cast<int>(q.rows());
  const double r = static_cast<double>(q.cols());
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (auto j : rows.a[std::size_t(i)])
      a(i, int(j)) =
          softmax ? std::exp(q.row(i).dot(k.row(int(j))) / std::sqrt(r))
                  : q.row(i).unaryExpr(&solve_attn_elu1).dot(k.row(int(j)).unaryExpr(&solve_attn_elu1));
    if (a.row(i).sum() > 0) a.row(i) /= a.row(i).sum();
  }
  return a;
}

double rel_error(const Eigen::MatrixXd& y, const Eigen::MatrixXd& ref) {
  return (y - ref).norm() / ref.norm();
}

/// Runs solve and returns Y (and the JSON).
Eigen::MatrixXd solve_y(const SolveAttnTempDir& dir, const std::string& args, nlohmann::json* j = nullptr) {
  const std::string out = dir.path + "/y.npy";
  const auto r = run_cli("solve --backend cpu -o " + out + " --format json " + args);
  EXPECT_EQ(r.code, 0) << args << "\n" << r.err;
  if (r.code != 0) return {};
  if (j) *j = nlohmann::json::parse(r.out);
  return load(out);
}

}  // namespace

// Patterns whose B is empty (A-only marked unions, local, attention): Y = A X with A the masked softmax.
TEST(SolveAttention, SoftmaxOnAReadsMatchesDenseReference) {
  SolveAttnTempDir dir;
  const int n = 300, r = 4, d = 5;
  const auto q = normal_matrix(n, r, 1.0, 1), k = normal_matrix(n, r, 1.0, 2),
             x = normal_matrix(n, d, 1.0, 3);
  const auto qf = solve_attn_save(dir.path + "/q.npy", q), kf = solve_attn_save(dir.path + "/k.npy", k);
  const auto xf = solve_attn_save(dir.path + "/x.npy", x);
  for (const std::string spec : {"window:8@A|sink:2@A", "pow2@A|sink:1@A", "local:16", "attention"}) {
    const auto rows = rows_of(spec, n);
    for (const auto& b : rows.b) ASSERT_TRUE(b.empty()) << spec;
    const Eigen::MatrixXd ref = attention_matrix(rows, q, k, true) * x;
    const std::string args = "-p '" + spec + "' -i " + xf + " --attn-q " + qf + " --attn-k " + kf;
    nlohmann::json j;
    const auto y64 = solve_y(dir, args + " --precision fp64", &j);
    ASSERT_EQ(y64.rows(), n) << spec;
    EXPECT_LT(rel_error(y64, ref), 1e-12) << spec;
    EXPECT_EQ(j["weights"], "A attention softmax per position, B seeded") << spec;
    EXPECT_EQ(j["parameters"]["attn_kernel"], "softmax");
    const auto y32 = solve_y(dir, args + " --precision fp32");
    ASSERT_EQ(y32.rows(), n) << spec;
    EXPECT_LT(rel_error(y32, ref), 1e-5) << spec;
  }
}

// The linear (elu + 1 feature map) kernel.
TEST(SolveAttention, LinearKernelMatchesDenseReference) {
  SolveAttnTempDir dir;
  const int n = 200, r = 3, d = 2;
  const auto q = normal_matrix(n, r, 1.0, 4), k = normal_matrix(n, r, 1.0, 5),
             x = normal_matrix(n, d, 1.0, 6);
  const std::string spec = "window:8@A|sink:2@A";
  const Eigen::MatrixXd ref = attention_matrix(rows_of(spec, n), q, k, false) * x;
  const auto y =
      solve_y(dir, "-p '" + spec + "' -i " + solve_attn_save(dir.path + "/x.npy", x) + " --attn-q " +
                       solve_attn_save(dir.path + "/q.npy", q) + " --attn-k " +
                       solve_attn_save(dir.path + "/k.npy", k) + " --attn-kernel linear --precision fp64");
  ASSERT_EQ(y.rows(), n);
  EXPECT_LT(rel_error(y, ref), 1e-12);
}

// Heads: Q and K hold H heads side by side (head h: columns h r .. (h + 1) r - 1), X's column c belongs to
// head c / (d / H).
TEST(SolveAttention, HeadsTakeTheirOwnColumnsOfQAndK) {
  SolveAttnTempDir dir;
  const int n = 160, r = 3, H = 2, d = 6;
  const auto q = normal_matrix(n, H * r, 1.0, 7), k = normal_matrix(n, H * r, 1.0, 8);
  const auto x = normal_matrix(n, d, 1.0, 9);
  const std::string spec = "pow2@A|sink:1@A";
  const auto rows = rows_of(spec, n);
  Eigen::MatrixXd ref(n, d);
  for (int h = 0; h < H; ++h) {
    const auto a = attention_matrix(rows, q.middleCols(h * r, r), k.middleCols(h * r, r), true);
    ref.middleCols(h * (d / H), d / H) = a * x.middleCols(h * (d / H), d / H);
  }
  const auto y = solve_y(dir, "-p '" + spec + "' --heads 2 -i " + solve_attn_save(dir.path + "/x.npy", x) +
                                  " --attn-q " + solve_attn_save(dir.path + "/q.npy", q) + " --attn-k " +
                                  solve_attn_save(dir.path + "/k.npy", k) + " --precision fp64");
  ASSERT_EQ(y.rows(), n);
  EXPECT_LT(rel_error(y, ref), 1e-12);
}

// Patterns with B reads (recurrences, a union with sinks): A from the attention head, B from --weights-b
// (per position, CSR order of the brute-force B reads); Y = (I - B)^{-1} A X. --save-weights writes the A
// that was used, per position in CSR order.
TEST(SolveAttention, WithWeightsBMatchesDenseRecurrence) {
  SolveAttnTempDir dir;
  const int n = 150, r = 4, d = 3;
  const auto q = normal_matrix(n, r, 1.0, 10), k = normal_matrix(n, r, 1.0, 11),
             x = normal_matrix(n, d, 1.0, 12);
  const auto qf = solve_attn_save(dir.path + "/q.npy", q), kf = solve_attn_save(dir.path + "/k.npy", k);
  const auto xf = solve_attn_save(dir.path + "/x.npy", x);
  for (const std::string spec : {"pow2", "window:4|sink:2"}) {
    const auto rows = rows_of(spec, n);
    std::mt19937_64 g(13);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Eigen::MatrixXd b = Eigen::MatrixXd::Zero(n, n);
    std::vector<double> bvals;
    for (int i = 0; i < n; ++i)
      for (auto j : rows.b[std::size_t(i)]) {
        const double v = 0.5 * u(g) / double(rows.b[std::size_t(i)].size());
        b(i, int(j)) = v;
        bvals.push_back(v);
      }
    ASSERT_FALSE(bvals.empty()) << spec;
    const auto bf = solve_attn_save(dir.path + "/b.npy",
                                    Eigen::Map<Eigen::MatrixXd>(bvals.data(), 1, long(bvals.size())));
    const auto a = attention_matrix(rows, q, k, true);
    const Eigen::MatrixXd ref =
        (Eigen::MatrixXd::Identity(n, n) - b).triangularView<Eigen::Lower>().solve(a * x);
    nlohmann::json j;
    const auto y =
        solve_y(dir,
                "-p '" + spec + "' -i " + xf + " --attn-q " + qf + " --attn-k " + kf + " --weights-b " + bf +
                    " --precision fp64 --save-weights " + dir.path + "/used",
                &j);
    ASSERT_EQ(y.rows(), n) << spec;
    EXPECT_LT(rel_error(y, ref), 1e-12) << spec;
    EXPECT_EQ(j["weights"], "A attention softmax per position, B per position") << spec;
    const auto saved_a = load(dir.path + "/used.A.npy");
    std::vector<double> want_a;
    for (int i = 0; i < n; ++i)
      for (auto jj : rows.a[std::size_t(i)]) want_a.push_back(a(i, int(jj)));
    ASSERT_EQ(saved_a.rows(), 1) << spec;
    ASSERT_EQ(saved_a.cols(), long(want_a.size())) << spec;
    for (std::size_t e = 0; e < want_a.size(); ++e)
      EXPECT_NEAR(saved_a(0, long(e)), want_a[e], 1e-15) << spec;
    const auto saved_b = load(dir.path + "/used.B.npy");
    ASSERT_EQ(saved_b.cols(), long(bvals.size())) << spec;
    for (std::size_t e = 0; e < bvals.size(); ++e) EXPECT_EQ(saved_b(0, long(e)), bvals[e]) << spec;
  }
}

// Without --weights-b, B keeps the seeded weights a plain solve with the same seed uses.
TEST(SolveAttention, SeededBIsThePlainSolvesB) {
  SolveAttnTempDir dir;
  const int n = 64;
  const auto qf = solve_attn_save(dir.path + "/q.npy", normal_matrix(n, 2, 1.0, 14));
  const auto kf = solve_attn_save(dir.path + "/k.npy", normal_matrix(n, 2, 1.0, 15));
  const std::string base = "solve -p pow2 -n 64 --random 2 --seed 7 --precision fp64 --save-weights ";
  ASSERT_EQ(run_cli(base + dir.path + "/plain").code, 0);
  const auto r = run_cli(base + dir.path + "/attn --attn-q " + qf + " --attn-k " + kf);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto plain = load(dir.path + "/plain.B.npy"), attn = load(dir.path + "/attn.B.npy");
  ASSERT_EQ(plain.cols(), attn.cols());
  EXPECT_GT(plain.cols(), 0);
  EXPECT_EQ((plain - attn).norm(), 0.0);
}

// validate takes the same options: every (+, x) check solves the attention heads and passes.
TEST(SolveAttention, ValidateSolvesTheAttentionHeads) {
  SolveAttnTempDir dir;
  const int n = 96;
  const auto qf = solve_attn_save(dir.path + "/q.npy", normal_matrix(n, 6, 1.0, 16));
  const auto kf = solve_attn_save(dir.path + "/k.npy", normal_matrix(n, 6, 1.0, 17));
  const auto r = run_cli("validate -p 'window:4|sink:2' -n 96 --backend cpu --format json --attn-q " + qf +
                         " --attn-k " + kf);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["parameters"]["attn_q"], qf);
  int attn_checks = 0;
  for (const auto& c : j["checks"])
    if (c.dump().find("attention weights") != std::string::npos) ++attn_checks;
  EXPECT_GT(attn_checks, 0);
}
