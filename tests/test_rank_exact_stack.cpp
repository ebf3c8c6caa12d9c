// No numeric cut rank of a stack (stack:P1,P2,...) or of a multi-head pattern (heads:P1;P2;...) exceeds its
// Menger (flow) rank: the exact ranks of the product over GF(2^61-1) against the flow ranks of the stacked
// graph (two independent methods: Gaussian elimination and max-flow) at n up to 4096, the default method
// (`rank --method both`, the library's exact_if_generic) exact for seeded layers, the dense product kept
// for layers with .mtx values, and the CLI's JSON on stacks and heads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/stack.hpp"

using namespace mixgraph;

namespace {

/// Exact and flow on the same cuts of one stack: exact <= flow on every cut (always), and equal (generic
/// weights: equal except with the reported probability, which is far below 1e-9 here).
void expect_stack_exact_equals_flow(const std::string& spec, pos_t n, const std::vector<pos_t>& cuts) {
  SCOPED_TRACE(spec + " n=" + std::to_string(n));
  const auto s = make_stack(spec, n);
  StackRankOptions ro;
  ro.cuts = cuts;
  ro.exact = true;
  const auto r = stack_cut_ranks(s, ro);
  ASSERT_TRUE(r.numeric_done && r.flow_done);
  ASSERT_EQ(r.numeric_method, "exact");
  ASSERT_EQ(r.numeric.size(), cuts.size());
  ASSERT_EQ(r.flow.size(), cuts.size());
  for (std::size_t c = 0; c < cuts.size(); ++c) {
    ASSERT_LE(r.numeric[c], r.flow[c]) << "K=" << cuts[c];
    EXPECT_EQ(r.numeric[c], r.flow[c]) << "K=" << cuts[c];
    EXPECT_LE(r.flow[c], std::min<pos_t>(cuts[c], n - cuts[c])) << "K=" << cuts[c];
  }
  EXPECT_TRUE(r.numeric_above_flow.empty());
  EXPECT_LT(r.failure_bound, 1e-9);
}

std::vector<pos_t> spaced_and_ends(pos_t n, std::uint64_t count) {
  auto cuts = spaced_cuts(n, count);
  cuts.insert(cuts.end(), {1, 2, n - 2, n - 1});
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

std::string stack_temp_dir() {
  std::string t = (std::filesystem::temp_directory_path() / "mixgraph_rank_stack_XXXXXX").string();
  const char* d = ::mkdtemp(t.data());
  EXPECT_NE(d, nullptr);
  return d ? std::string(d) : std::string();
}

}  // namespace

TEST(StackRankExact, DefaultIsExactForSeededLayersAndNeverAboveFlow) {
  // what `rank --method both` asks for: the exact rank whenever every layer is seeded, on every cut
  for (const std::string spec :
       {"stack:(pow2)*3", "stack:(ssm,window:16)*3", "stack:sq1,dense", "stack:sink:2,pow2+cache,local:3",
        "stack:bigbird:8,2,2;ssm", "stack:fib;window:4|dilated:2,8", "stack:(ssm)*6"})
    for (pos_t n : {2u, 17u, 96u}) {
      SCOPED_TRACE(spec + " n=" + std::to_string(n));
      StackRankOptions ro;
      ro.exact_if_generic = true;
      const auto r = stack_cut_ranks(make_stack(spec, n), ro);
      ASSERT_TRUE(r.numeric_done && r.flow_done);
      EXPECT_EQ(r.numeric_method, "exact");
      EXPECT_EQ(r.tolerance, 0.0);
      EXPECT_EQ(r.cuts, all_cuts(n));
      EXPECT_EQ(r.numeric, r.flow);
      EXPECT_TRUE(r.numeric_above_flow.empty());
    }
}

TEST(StackRankExact, DefaultKeepsTheDenseProductForFileWeightsAndItsLimit) {
  const auto dir = stack_temp_dir();
  ASSERT_FALSE(dir.empty());
  const auto b = dir + "/B.mtx";
  std::ofstream(b) << "%%MatrixMarket matrix coordinate real general\n8 8 3\n2 1 0.5\n4 2 0.25\n8 3 1.5\n";
  StackRankOptions ro;
  ro.exact_if_generic = true;
  const auto r = stack_cut_ranks(make_stack("stack:mtx:" + b + ";ssm", 8), ro);
  EXPECT_EQ(r.numeric_method, "dense");  // the file's own values: not generic, the floating-point path
  EXPECT_TRUE(r.numeric_done && r.flow_done);
  for (std::size_t c = 0; c < r.cuts.size(); ++c) EXPECT_LE(r.numeric[c], r.flow[c]) << r.cuts[c];
  // above numeric_limit the default computes the flow alone, as before
  ro.numeric_limit = 16;
  const auto big = stack_cut_ranks(make_stack("stack:ssm,window:4", 40), ro);
  EXPECT_FALSE(big.numeric_done);
  EXPECT_TRUE(big.flow_done);
  std::filesystem::remove_all(dir);
}

TEST(StackRankExact, NeverAboveFlowAtLargeN) {
  // n = 1024 and 4096 on spaced cuts and the ends; stacks whose cut ranks stay small or sit near the ends
  for (const std::string spec : {"stack:(ssm,window:16)*4", "stack:local:8,ssm,local:8", "stack:(ssm)*8",
                                 "stack:pow2+cache,sq1+cache", "stack:block:64,window:8"})
    for (pos_t n : {1024u, 4096u}) expect_stack_exact_equals_flow(spec, n, spaced_and_ends(n, 6));
  // full-rank layers: cuts near the ends, where the rank is at most min(K, n - K)
  expect_stack_exact_equals_flow("stack:pow2,pow2", 4096, {1, 2, 40, 4060, 4094, 4095});
}

TEST(StackRankExact, SlowNeverAboveFlowAtLargeNDeeper) {
  // deeper and mixed stacks at n = 2048 on 12 spaced cuts and the ends (n = 4096 is covered by
  // NeverAboveFlowAtLargeN above for shallower stacks; at 4096 these four took four fifths of this test)
  for (const std::string spec : {"stack:(window:32,ssm)*6", "stack:dilated:4,16;sink:2;window:8",
                                 "stack:(sq1+cache)*3", "stack:global:2;ssm;strided:3,50+cache"})
    expect_stack_exact_equals_flow(spec, 2048, spaced_and_ends(2048, 12));
  expect_stack_exact_equals_flow("stack:(pow2)*3", 1024, {1, 100, 512, 1000, 1023});
}

TEST(StackRankExact, CliDefaultOnStacksAndHeadsIsExactAndNeverAboveFlow) {
  for (const std::string spec :
       {"stack:(ssm,window:8)*2", "stack:pow2,sq1", "heads:pow2;ssm", "heads:window:8;sink:2;dilated:2,8"}) {
    SCOPED_TRACE(spec);
    const auto r = mixgraph::test::run_cli("rank -p '" + spec + "' -n 200 --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("numeric_method"), "exact");
    const auto num = j.at(spec.rfind("stack:", 0) == 0 ? "numeric" : "cut_rank_numeric");
    const auto flow = j.at(spec.rfind("stack:", 0) == 0 ? "flow" : "cut_rank_flow");
    ASSERT_EQ(num.size(), 199u);
    ASSERT_EQ(flow.size(), 199u);
    for (std::size_t c = 0; c < num.size(); ++c) {
      EXPECT_LE(num[c].get<std::uint32_t>(), flow[c].get<std::uint32_t>()) << "K=" << c + 1;
      EXPECT_EQ(num[c], flow[c]) << "K=" << c + 1;
    }
    EXPECT_TRUE(j.at("numeric_above_flow").empty());
  }
  // at n = 1024 (the dense product's old territory) the default is exact too, and --method dense remains
  const auto d = mixgraph::test::run_cli("rank -p 'stack:ssm,window:8' -n 1024 --cuts 9 --format json");
  ASSERT_EQ(d.code, 0) << d.err;
  const auto jd = nlohmann::json::parse(d.out);
  EXPECT_EQ(jd.at("numeric_method"), "exact");
  EXPECT_EQ(jd.at("numeric"), jd.at("flow"));
  const auto dd = mixgraph::test::run_cli("rank -p 'stack:ssm,window:8' -n 64 --method dense --format json");
  ASSERT_EQ(dd.code, 0) << dd.err;
  EXPECT_EQ(nlohmann::json::parse(dd.out).at("numeric_method"), "dense");
}
