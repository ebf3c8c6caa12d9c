// The analysis layer (analysis/) called directly, as the Python package calls it: each query's document
// against values computed here from the definitions (closed forms of pow2's reads and distances, 1 +
// popcount(t) buckets of log-linear attention, the rotation SSM's rank gap), its header, and the progress
// callback (called once per point, and able to stop the work).
#include <gtest/gtest.h>

#include <bit>
#include <stdexcept>

#include "mixgraph/analysis/congestion_sweep.hpp"
#include "mixgraph/analysis/interaction_ranks.hpp"
#include "mixgraph/analysis/pattern_sweep.hpp"
#include "mixgraph/analysis/verify.hpp"
#include "mixgraph/build_info.hpp"
#include "mixgraph/error.hpp"

using namespace mixgraph;

namespace {
/// Positions pow2's token i (1-indexed) reads before itself: i - 2^k >= 1, i.e. floor(log2(i - 1)) + 1.
std::uint64_t pow2_reads(std::uint64_t i) {
  return i < 2 ? 0 : std::bit_width(i - 1);
}
}  // namespace

TEST(AnalysisPatternSweep, Pow2DecodeCostsMatchTheClosedFormAndProgressCountsPoints) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;
  analysis::PatternSweepQuery q{
      "pow2", "16..256", 1, 0,
      [&](const std::string&, std::uint64_t done, std::uint64_t total) { seen.emplace_back(done, total); }};
  const auto r = analysis::pattern_sweep(q);
  const std::vector<std::uint64_t> ns = {16, 32, 64, 128, 256};
  ASSERT_EQ(r.points.size(), ns.size());
  const auto& rows = r.document.body.at("sweep");
  ASSERT_EQ(rows.size(), ns.size());
  for (std::size_t k = 0; k < ns.size(); ++k) {
    std::uint64_t total = 0, most = 0;
    for (std::uint64_t i = 1; i <= ns[k]; ++i) {
      total += pow2_reads(i);
      most = std::max(most, pow2_reads(i));
    }
    EXPECT_EQ(r.points[k].n, ns[k]);
    EXPECT_EQ(r.points[k].total_decode_cost, total) << ns[k];
    EXPECT_EQ(r.points[k].max_decode_cost, most) << ns[k];
    EXPECT_EQ(rows[k].at("n").get<std::uint64_t>(), ns[k]);
    EXPECT_EQ(rows[k].at("total_decode_cost").get<std::uint64_t>(), total);
    EXPECT_EQ(seen.at(k), std::make_pair(std::uint64_t(k + 1), std::uint64_t(ns.size())));
  }
  EXPECT_EQ(seen.size(), ns.size());
  // the document: header first, the query's parameters (with the format), then the body in order
  const auto j = r.document.json("json");
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"schema", "mixgraph_version", "command", "parameters", "pattern",
                                            "sweep", "fits"}));
  EXPECT_EQ(j.at("schema"), "mixgraph.pattern/1");
  EXPECT_EQ(j.at("mixgraph_version"), version());
  EXPECT_EQ(j.at("parameters"),
            (nlohmann::ordered_json{{"format", "json"}, {"pattern", "pow2"}, {"sweep", "16..256"}}));
}

TEST(AnalysisPatternSweep, ProgressThatThrowsStopsTheSweepAndBadQueriesAreUsageErrors) {
  int calls = 0;
  analysis::PatternSweepQuery q{"pow2", "16..1024", 1, 0,
                                [&](const std::string&, std::uint64_t, std::uint64_t) {
                                  if (++calls == 2) throw std::runtime_error("stop");
                                }};
  EXPECT_THROW(analysis::pattern_sweep(q), std::runtime_error);
  EXPECT_EQ(calls, 2);
  q.progress = nullptr;
  q.sweep = "";
  EXPECT_THROW(analysis::pattern_sweep(q), UsageError);
}

TEST(AnalysisCongestion, Pow2CopyDistanceIsThePopcountOfN) {
  analysis::CongestionQuery q;
  q.patterns = {"pow2"};
  q.sweep = "5,6,7,12";
  std::uint64_t steps = 0;
  q.progress = [&](const std::string&, std::uint64_t done, std::uint64_t total) {
    steps = done;
    EXPECT_EQ(total, 4u);
  };
  const auto t = analysis::congestion_table(q);
  EXPECT_EQ(steps, 4u);
  const auto& rows = t.document.body.at("rows");
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    const auto N = row.at("copy_length").get<std::uint64_t>();
    EXPECT_EQ(row.at("copy_distance").get<std::uint64_t>(), std::uint64_t(std::popcount(N))) << N;
  }
  // one pattern at one N: the single result, with each head of a heads: pattern alone
  q.patterns = {"heads:pow2;sq1"};
  q.sweep = "16";
  q.progress = nullptr;
  const auto one = analysis::congestion_table(q);
  EXPECT_TRUE(one.plan.single);
  ASSERT_EQ(one.document.body.at("heads").size(), 2u);
  EXPECT_EQ(one.document.body.at("heads")[0].at("copy_distance").get<std::uint64_t>(), 1u);  // popcount(16)
  q.routing = "nosuch";
  EXPECT_THROW(analysis::congestion_table(q), UsageError);
}

TEST(AnalysisRanks, LogLinearBucketsAreOnePlusPopcount) {
  analysis::LogLinearQuery q;
  q.T = "300";
  q.numeric_limit = 64;
  const auto r = analysis::loglinear(q);
  const auto b = r.document.body.at("buckets_per_query").get<std::vector<std::uint32_t>>();
  ASSERT_EQ(b.size(), 300u);
  std::uint32_t most = 0;
  for (std::uint64_t t = 0; t < 300; ++t) {
    EXPECT_EQ(b[t], 1u + std::popcount(t)) << t;
    most = std::max<std::uint32_t>(most, 1u + std::popcount(t));
  }
  EXPECT_EQ(r.document.body.at("max_levels").get<std::uint32_t>(), most);
  EXPECT_EQ(r.document.json("json").at("command"), "rank loglinear");
  q.numeric_limit = 5000;
  EXPECT_THROW(analysis::loglinear(q), UsageError);
}

TEST(AnalysisRanks, RotationSsmHasRankTwoAndNoGoodSingleHead) {
  analysis::SsmQuery q;
  q.n = "16";
  q.example = "rotation";
  const auto r = analysis::ssm_rank(q);
  EXPECT_EQ(r.rank.rank, 2u);
  EXPECT_EQ(r.document.body.at("interaction_rank").get<std::uint64_t>(), 2u);
  EXPECT_GE(r.document.body.at("single_head_error").get<double>(), 1.0);
  EXPECT_EQ(r.document.json("json").at("schema"), "mixgraph.rank.ssm/1");
}

TEST(AnalysisVerify, SummaryCountsTheRecordsAndProgressNamesEachClaim) {
  analysis::VerifyQuery q;
  q.claims = {"fagnou.prop4.2", "guo.loglinear.buckets"};
  q.n_max = "64";
  std::vector<std::string> seen;
  q.progress = [&](const std::string& id, std::uint64_t, std::uint64_t) { seen.push_back(id); };
  const auto r = analysis::verify(q);
  EXPECT_EQ(seen, q.claims);
  const auto& claims = r.document.body.at("claims");
  ASSERT_EQ(claims.size(), 2u);
  std::uint64_t passed = 0;
  for (const auto& c : claims) passed += c.at("status") == "PASSED";
  EXPECT_EQ(r.document.body.at("summary").at("passed").get<std::uint64_t>(), passed);
  EXPECT_EQ(passed, 2u);
  q.n_max = "1";
  EXPECT_THROW(analysis::verify(q), UsageError);
}
