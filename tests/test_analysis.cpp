// The analysis layer (analysis/) called directly, as both front ends call it, against values computed here
// from the definitions: the sweeps, verify and the interaction ranks (closed forms of pow2's reads and
// distances, 1 + popcount(t) buckets of log-linear attention, the rotation SSM's rank gap, the header, the
// progress callback called once per point and able to stop the work), and gallery, stacks and report
// (closed forms, the library's single-pattern analyses summed by hand, and the files on disk).
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "mixgraph/analysis/congestion_sweep.hpp"
#include "mixgraph/analysis/gallery.hpp"
#include "mixgraph/analysis/interaction_ranks.hpp"
#include "mixgraph/analysis/pattern_sweep.hpp"
#include "mixgraph/analysis/report.hpp"
#include "mixgraph/analysis/stack.hpp"
#include "mixgraph/analysis/verify.hpp"
#include "mixgraph/build_info.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern_spec.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/rank.hpp"

namespace fs = std::filesystem;
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

// ---- gallery, stacks, report ----
using namespace mixgraph;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("mixgraph_test_analysis_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(AnalysisGallery, RowsMatchClosedFormsAndTheSingleAnalyses) {
  analysis::GalleryQuery q;
  q.specs = {"pow2", "window:6|sink:2", "stack:ssm,window:4"};
  q.n = 64;
  q.cuts = 5;
  std::vector<std::string> seen;
  q.on_design = [&](const std::string& s) { seen.push_back(s); };
  const auto r = analysis::run_gallery(q);
  ASSERT_EQ(r.designs.size(), 3u);
  EXPECT_EQ(seen, q.specs);
  // pow2: d(i, j) = popcount(i - j) hops (offsets 1, 2, 4, ...): diameter = max over 1..63, copy distance
  // on N = 32 = popcount(32)
  int diameter = 0;
  for (int m = 1; m < 64; ++m) diameter = std::max(diameter, std::popcount(static_cast<unsigned>(m)));
  const auto& pow2 = r.designs[0];
  EXPECT_EQ(pow2["diameter"].get<int>(), diameter);
  EXPECT_EQ(pow2["unreachable_pairs"].get<int>(), 0);
  EXPECT_TRUE(pow2["copy_possible"].get<bool>());
  EXPECT_EQ(pow2["copy_distance"].get<int>(), std::popcount(32u));
  for (std::size_t k = 0; k < 2; ++k) {  // the single layers: the profile and the flow ranks called alone
    const Pattern p = make_pattern(q.specs[k], q.n);
    const auto prof = cache_profile(p);
    const auto& d = r.designs[k];
    EXPECT_EQ(d["pattern"], q.specs[k]);
    EXPECT_EQ(d["total_decode_cost"].get<std::uint64_t>(), prof.total_decode_cost);
    EXPECT_EQ(d["max_decode_cost"].get<std::uint32_t>(), prof.max_decode_cost);
    EXPECT_EQ(d["max_cache"].get<std::uint32_t>(), prof.max_cache);
    CutRankParams cp;
    cp.method = CutRankMethod::Flow;
    cp.cuts = spaced_cuts(p.n, q.cuts);
    const auto flow = cut_rank_profile(p, cp).flow;
    EXPECT_EQ(d["max_cut_rank"].get<std::uint32_t>(), *std::max_element(flow.begin(), flow.end()));
  }
  EXPECT_EQ(r.designs[2]["family"], "stack");
  EXPECT_EQ(r.designs[2]["depth"].get<int>(), 2);
  const auto doc = analysis::gallery_json(r);
  EXPECT_EQ(doc["n"].get<std::uint64_t>(), 64u);
  EXPECT_EQ(doc["designs"].size(), 3u);
  // refused before any work, with the CLI's messages
  q.n = 2;
  EXPECT_THROW(analysis::run_gallery(q), UsageError);
  q.n = 64;
  q.specs = {"mtx:x.mtx"};
  EXPECT_THROW(analysis::run_gallery(q), UsageError);
}

TEST(AnalysisStack, PatternSumsTheLayersPerPosition) {
  analysis::StackPatternQuery q;
  q.stack.spec = "stack:pow2,window:3,ssm";
  q.stack.n_text = "40";
  q.profile = true;
  const auto r = analysis::stack_pattern(q);
  ASSERT_EQ(r.stack.depth(), 3u);
  // each layer alone (the single-pattern profile), summed position by position
  std::vector<std::uint64_t> cost(40, 0), cache(40, 0);
  std::uint64_t nnz_a = 0, nnz_b = 0, total = 0;
  for (const char* layer : {"pow2", "window:3", "ssm"}) {
    ProfileOptions po;
    po.per_position = true;
    const auto prof = cache_profile(make_pattern(layer, 40), po);
    nnz_a += prof.nnz_a, nnz_b += prof.nnz_b, total += prof.total_decode_cost;
    for (std::size_t i = 0; i < 40; ++i) cost[i] += prof.decode_cost[i], cache[i] += prof.cache_size[i];
  }
  EXPECT_EQ(r.profile.nnz_a, nnz_a);
  EXPECT_EQ(r.profile.nnz_b, nnz_b);
  EXPECT_EQ(r.profile.total_decode_cost, total);
  EXPECT_EQ(r.profile.max_decode_cost, *std::max_element(cost.begin(), cost.end()));
  EXPECT_EQ(r.profile.max_cache, *std::max_element(cache.begin(), cache.end()));
  const auto doc = analysis::stack_pattern_document(q, r, "json");
  EXPECT_EQ(doc["schema"], "mixgraph.pattern.stack/1");
  EXPECT_EQ(doc["command"], "pattern");
  EXPECT_EQ(doc["parameters"]["n"].get<int>(), 40);
  ASSERT_EQ(doc["decode_cost"].size(), 40u);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(doc["decode_cost"][i].get<std::uint64_t>(), cost[i]) << i;
  q.summary = true;  // no lists
  EXPECT_FALSE(analysis::stack_pattern_document(q, r, "json").contains("decode_cost"));
  q.stack.n_text = "";
  EXPECT_THROW(analysis::stack_pattern(q), UsageError);  // --n is required
}

TEST(AnalysisStack, RankCutsAndProgress) {
  analysis::StackRankQuery q;
  q.stack.spec = "stack:pow2,window:4";
  q.stack.n_text = "48";
  q.method = "flow";
  q.cuts_text = "3,9,20,";
  std::vector<std::uint64_t> done;
  q.progress = [&](const std::string&, std::uint64_t d, std::uint64_t) { done.push_back(d); };
  const auto r = analysis::stack_rank(q);
  EXPECT_EQ(r.ranks.cuts, (std::vector<pos_t>{3, 9, 20}));
  EXPECT_EQ(done, (std::vector<std::uint64_t>{1, 2, 3}));
  for (std::size_t c = 0; c < 3; ++c)  // a cut rank never exceeds min(K, n - K)
    EXPECT_LE(r.ranks.flow[c], std::min<pos_t>(r.ranks.cuts[c], 48 - r.ranks.cuts[c]));
  q.progress = [](const std::string&, std::uint64_t, std::uint64_t) { throw std::runtime_error("stop"); };
  EXPECT_THROW(analysis::stack_rank(q), std::runtime_error);  // a throw from progress stops the loops
  q.progress = nullptr;
  q.cuts_text = "0,5";
  EXPECT_THROW(analysis::stack_rank(q), UsageError);
  q.cuts_text = "";
  q.method = "sketch";
  EXPECT_THROW(analysis::stack_rank(q), UsageError);
}

TEST(AnalysisReport, WritesTheDirectoryWholeAndParsesEachSpecOnce) {
  const fs::path base = fresh_dir("report");
  analysis::ReportQuery q;
  q.out = (base / "rep").string();
  q.patterns = {"pow2", "window:4"};
  q.n_text = "32";
  q.only_sections = {"summary", "profile", "congestion"};
  std::size_t steps_seen = 0, steps = 0, last = 0;
  q.on_step = [&](std::size_t k, std::size_t total, const std::string&) {
    EXPECT_LT(k, total);
    EXPECT_GE(k, last);  // in order
    ++steps_seen, steps = total, last = k;
  };
  const std::uint64_t parses = spec_parse_count();
  const auto r = analysis::run_report(q);
  EXPECT_EQ(spec_parse_count() - parses, 2u);  // one parse per given spec, every section
  ASSERT_TRUE(r.written);
  EXPECT_EQ(steps, 2u + 3u * 2u + 1u);  // the builds, each running section per pattern, the documents
  EXPECT_EQ(last, steps - 1);
  // report.json on disk is the manifest; every file it lists exists
  std::ifstream in(base / "rep" / "report.json");
  const auto disk = nlohmann::ordered_json::parse(in);
  EXPECT_EQ(disk, r.manifest);
  for (const auto& f : r.files) EXPECT_TRUE(fs::exists(base / "rep" / f)) << f;
  std::map<std::string, std::string> status;
  for (const auto& s : r.manifest["sections"]) status[s["id"]] = s["status"];
  EXPECT_EQ(status["summary"], "done");
  EXPECT_EQ(status["verify"], "skipped");
  // Table 1's time per token: pow2's max decode cost at n = 32, from the profile alone
  const auto prof = cache_profile(make_pattern("pow2", 32));
  ASSERT_EQ(r.table1.columns.at(1), "time_per_token");
  const std::string cell = r.table1.rows.at(0).at(1).str();  // "<value> (<growth class>)"
  EXPECT_EQ(cell.substr(0, cell.find(' ')), std::to_string(prof.max_decode_cost)) << cell;

  // a stop at a step leaves nothing: no directory, no staging folder beside it
  q.out = (base / "stopped").string();
  std::size_t calls = 0;
  q.on_step = [&](std::size_t, std::size_t, const std::string&) {
    if (++calls == 6) throw std::runtime_error("stop");  // inside the sections: the staging folder exists
  };
  EXPECT_THROW(analysis::run_report(q), std::runtime_error);
  EXPECT_FALSE(fs::exists(base / "stopped"));
  std::vector<std::string> entries;
  for (const auto& e : fs::directory_iterator(base)) entries.push_back(e.path().filename().string());
  EXPECT_EQ(entries, std::vector<std::string>{"rep"});
  // refused before anything is written
  q.on_step = nullptr;
  q.only_sections = {"nosuch"};
  EXPECT_THROW(analysis::run_report(q), UsageError);
  q.only_sections = {};
  q.out = (base / "rep").string();  // not empty, no --force
  EXPECT_THROW(analysis::run_report(q), UsageError);
  fs::remove_all(base);
}
