// Exact cut ranks over GF(2^61-1): never above the Menger (max-flow) rank, equal to it on every pattern
// family (the flow rank is computed independently, and cross-checked with Boost.Graph's max-flow), the
// Schwartz-Zippel bound as documented, and the floating-point path kept for file weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/rank.hpp"

using namespace mixgraph;

namespace {
/// Exact and flow on the same cuts; every exact rank <= flow, and equal (the certificate).
void expect_exact_equals_flow(const std::string& spec, pos_t n, const std::vector<pos_t>& cuts) {
  const auto iw = induced_weights(make_pattern(spec, n), 1);
  const auto ex = cut_ranks_exact(iw.w, cuts);
  const auto fl = cut_ranks_flow(iw.w, cuts);
  ASSERT_EQ(ex.rank.size(), cuts.size());
  for (std::size_t c = 0; c < cuts.size(); ++c) {
    ASSERT_LE(ex.rank[c], fl.rank[c]) << spec << " n=" << n << " K=" << cuts[c];
    EXPECT_EQ(ex.rank[c], fl.rank[c]) << spec << " n=" << n << " K=" << cuts[c];
  }
  EXPECT_GT(ex.failure_bound, 0.0);
  EXPECT_LT(ex.failure_bound, 1e-12) << spec;
}
}  // namespace

TEST(ExactRank, NeverAboveFlowOnEveryFamilySmallN) {
  // every cut; includes the full-rank families (pow2, sq1, dense, attention)
  for (const char* spec :
       {"pow2", "sq1", "sq", "fib", "pow:3", "window:3", "window:16", "local:8", "ssm", "dense", "attention",
        "offsets:3,7", "pow2+cache", "sq1+cache", "fib+cache", "window:4+cache"})
    for (pos_t n : {2u, 17u, 200u}) expect_exact_equals_flow(spec, n, all_cuts(n));
}

TEST(ExactRank, SlowNeverAboveFlowAtLargeN) {
  // window, local and deep patterns at n = 2048 and 4096 (spaced cuts plus the ends), and the full-rank
  // families at n = 1024 on a few cuts
  for (const char* spec : {"window:16", "window:3", "local:16", "local:64", "ssm", "pow2+cache", "sq1+cache",
                           "fib+cache", "window:8+cache", "offsets:5,9"})
    for (pos_t n : {2048u, 4096u}) {
      auto cuts = spaced_cuts(n, 12);
      cuts.push_back(1);
      cuts.push_back(n - 1);
      std::sort(cuts.begin(), cuts.end());
      expect_exact_equals_flow(spec, n, cuts);
    }
  for (const char* spec : {"pow2", "sq1", "fib"}) expect_exact_equals_flow(spec, 1024, {1, 100, 512, 1000});
}

TEST(ExactRank, SlowNeverAboveFlowOnEveryFamilyAt4096) {
  // one spec of every other family at n = 2048 and 4096: dilated, strided, sink/global, block, unions, +cache
  // of explicit-A, diagonal-A and union bases; the families whose cut ranks grow with the cut (fib, pow:b,
  // strided with a long stride, expr, sq, attention, dense: minutes per cut at n = 4096) at n = 1024
  for (const char* spec : {"dilated:4,16", "sink:4", "global:2", "block:64", "window:8|dilated:4,16",
                           "sink:2|local:8", "local:8+cache", "ssm+cache", "strided:3,50+cache"})
    for (pos_t n : {2048u, 4096u}) {
      auto cuts = spaced_cuts(n, 8);
      cuts.push_back(1);
      cuts.push_back(n - 1);
      std::sort(cuts.begin(), cuts.end());
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
      expect_exact_equals_flow(spec, n, cuts);
    }
  std::vector<std::string> full = {"fib", "pow:3", "strided:4,64", "sq", "attention", "dense"};
  if (expressions_built_in()) full.push_back("expr:k^3+1");
  for (const auto& spec : full) expect_exact_equals_flow(spec, 1024, {1, 300, 512, 1023});
}

TEST(ExactRank, AgreesWithBoostMaxFlowAndDenseQr) {
  // the flow side by Boost.Graph (an independent max-flow), and the floating-point dense rank at small n
  for (const char* spec : {"pow2", "window:16", "local:8", "sq1+cache", "ssm"}) {
    const auto iw = induced_weights(make_pattern(spec, 96), 3);
    const auto cuts = all_cuts(96);
    NumericRankOptions o;
    o.seed = 3;
    const auto ex = cut_ranks_exact(iw.w, cuts, o);
    EXPECT_EQ(ex.rank, cut_ranks_flow_boost(iw.w, cuts)) << spec;
    EXPECT_EQ(ex.rank, cut_ranks_dense(iw.w, cuts).rank) << spec;
  }
}

TEST(ExactRank, Window16At2048Cut1796) {
  const auto p = make_pattern("window:16", 2048);
  CutRankParams params;
  params.cuts = {1796};
  const auto r = cut_rank_profile(p, params);
  EXPECT_EQ(r.numeric_method, "exact");
  ASSERT_EQ(r.numeric.size(), 1u);
  EXPECT_EQ(r.flow.at(0), 16u);
  EXPECT_EQ(r.numeric.at(0), 16u);
  EXPECT_TRUE(r.agree);
  // the default cuts too
  const auto all = cut_rank_profile(p, {});
  EXPECT_TRUE(all.agree);
  EXPECT_TRUE(all.numeric_above_flow.empty());
}

TEST(ExactRank, FailureBoundIsTheSchwartzZippelSum) {
  const auto iw = induced_weights(make_pattern("pow2+cache", 1000), 1);
  const std::vector<pos_t> cuts = {1, 10, 500, 999};
  const auto ex = cut_ranks_exact(iw.w, cuts);
  const double p = 2305843009213693951.0;  // 2^61 - 1
  const double want = ((1000 + 1) + (1000 + 10) + (1000 + 500) + (1000 + 1)) / p;
  EXPECT_NEAR(ex.failure_bound, want, 1e-6 * want);
  EXPECT_EQ(exact_rank_prime(), 2305843009213693951ull);
}

TEST(ExactRank, SeedChangesWeightsNotRanks) {
  const auto iw = induced_weights(make_pattern("local:16", 300), 1);
  const auto cuts = spaced_cuts(300, 10);
  NumericRankOptions a, b;
  a.seed = 1;
  b.seed = 99;
  EXPECT_EQ(cut_ranks_exact(iw.w, cuts, a).rank, cut_ranks_exact(iw.w, cuts, b).rank);
}

TEST(ExactRank, FileWeightsKeepTheFloatPathWithItsGap) {
  // dense .mtx values: the floating-point rank, with the pivot gap reported; exact refuses file weights
  const auto dir = std::filesystem::temp_directory_path();
  const auto b = (dir / ("mixgraph_exact_B_" + std::to_string(::getpid()) + ".mtx")).string();
  std::ofstream(b) << "%%MatrixMarket matrix coordinate real general\n4 4 3\n2 1 0.5\n3 2 0.25\n4 3 0.5\n";
  const auto p = make_pattern("mtx:" + b, 4);
  const auto r = cut_rank_profile(p, {});
  EXPECT_EQ(r.numeric_method, "dense");
  EXPECT_GT(r.smallest_kept, 0.0);
  CutRankParams ex;
  ex.method = CutRankMethod::Exact;
  EXPECT_THROW(cut_rank_profile(p, ex), UsageError);
  std::filesystem::remove(b);
}

TEST(ExactRank, CliDefaultIsExactAndAgrees) {
  const auto r = mixgraph::test::run_cli("rank -p window:16 --n 2048 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("disagree"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["numeric_method"], "exact");
  EXPECT_EQ(j["agree"], true);
  EXPECT_EQ(j["disagreements"].size(), 0u);
  EXPECT_EQ(j["cut_rank_numeric"], j["cut_rank_flow"]);
  EXPECT_LT(j["failure_probability_bound"].get<double>(), 1e-12);
  EXPECT_EQ(j["numeric_field"], "GF(2^61-1)");
  const auto s = mixgraph::test::run_cli("rank -p window:16 --n 600 --method sketch --format json");
  ASSERT_EQ(s.code, 0) << s.err;
  const auto js = nlohmann::json::parse(s.out);
  EXPECT_EQ(js["numeric_method"], "sketch");
  EXPECT_TRUE(js["pivot_gap"].is_object());
  EXPECT_EQ(mixgraph::test::run_cli("rank -p pow2 --n 64 --method exact").code, 0);
}
