// `mixgraph rank -p heads:P1;P2;...`: the cut ranks of the sum of the heads' operators against an independent
// dense Eigen construction (the heads' reads from the brute-force definitions, weights drawn here), and each
// head's flow ranks against that head run alone.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "../lib/src/pattern/pattern_bruteforce.hpp"
#include "cli_util.hpp"
#include "mixgraph/eigen_dense.hpp"

using mixgraph::test::run_cli;

namespace {

nlohmann::json heads_rank_json(const std::string& args) {
  const auto r = run_cli("rank " + args + " --format json");
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

/// M = (I - B)^{-1} A with random weights +-U[0.5, 1) / (reads of the row) on the definition's reads.
Eigen::MatrixXd random_operator(const std::string& spec, int n, std::mt19937_64& g) {
  const auto rows = mixgraph::bruteforce_rows(spec, static_cast<mixgraph::pos_t>(n));
  EXPECT_TRUE(rows.has_value()) << spec;
  std::uniform_real_distribution<double> u(0.5, 1.0);
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n), b = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (auto j : rows->a[i]) a(i, j) = (g() % 2 ? 1 : -1) * u(g) / rows->a[i].size();
    for (auto j : rows->b[i]) b(i, j) = (g() % 2 ? 1 : -1) * 0.9 * u(g) / rows->b[i].size();
  }
  return (Eigen::MatrixXd::Identity(n, n) - b).triangularView<Eigen::Lower>().solve(a);
}

int svd_rank(const Eigen::MatrixXd& m) {
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(m);
  const auto& s = svd.singularValues();
  int r = 0;
  for (int l = 0; l < s.size(); ++l)
    if (s(l) > 1e-9 * s(0)) ++r;
  return r;
}

}  // namespace

TEST(RankHeadsSum, SumOfHeadsMatchesDenseConstruction) {
  const int n = 40;
  const std::vector<std::vector<std::string>> cases = {{"ssm", "ssm"},
                                                       {"local:3", "sink:2"},
                                                       {"window:2", "ssm", "local:2"},
                                                       {"pow2", "sq1"},
                                                       {"local:4", "local:2"}};
  std::mt19937_64 g(7);
  for (const auto& heads : cases) {
    std::string spec = "heads:";
    for (std::size_t h = 0; h < heads.size(); ++h) spec += (h ? ";" : "") + heads[h];
    const auto j = heads_rank_json("-p '" + spec + "' -n 40");
    ASSERT_TRUE(j.contains("heads")) << spec;
    const auto& hj = j["heads"];
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(n, n);
    for (const auto& h : heads) sum += random_operator(h, n, g);
    const auto& cuts = j["cuts"];
    ASSERT_EQ(cuts.size(), static_cast<std::size_t>(n - 1));
    for (std::size_t c = 0; c < cuts.size(); ++c) {
      const int K = cuts[c].get<int>();
      const int ref = svd_rank(sum.bottomLeftCorner(n - K, K));
      EXPECT_EQ(hj["sum_rank_numeric"][c].get<int>(), ref) << spec << " K = " << K;
      EXPECT_LE(ref, hj["sum_rank_bound"][c].get<int>()) << spec << " K = " << K;
    }
    for (std::size_t h = 0; h < heads.size(); ++h) {
      const auto alone = heads_rank_json("-p '" + heads[h] + "' -n 40 --method flow");
      EXPECT_EQ(hj["per_head"][h]["cut_rank_flow"], alone["cut_rank_flow"]) << spec << " head " << heads[h];
    }
    if (hj["all_b_empty"].get<bool>()) {
      EXPECT_EQ(hj["sum_rank_numeric"], j["cut_rank_flow"]) << spec;
    }
  }
  // two ssm heads: the sum has rank 2 where the union (ssm) has flow rank 1
  const auto j = heads_rank_json("-p 'heads:ssm;ssm' -n 40 --cuts 20,");
  EXPECT_EQ(j["cut_rank_flow"][0].get<int>(), 1);
  EXPECT_EQ(j["heads"]["sum_rank_numeric"][0].get<int>(), 2);
}
