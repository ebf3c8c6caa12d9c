// stack:P1,P2,... in `mixgraph gallery` and `mixgraph report`: a stack's gallery row and its report numbers
// equal what `pattern`, `distances`, `congestion` and `rank` print for the same stack (each an independent
// command with its own JSON), and a one-layer stack's gallery row equals the plain pattern's row.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

#include "cli_util.hpp"

using mixgraph::test::run_cli;
namespace fs = std::filesystem;

namespace {

nlohmann::json cli_json(const std::string& args) {
  const auto r = run_cli(args + " --format json");
  EXPECT_EQ(r.code, 0) << args << "\n" << r.err;
  return r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

/// The figures of one stack at n tokens as the four single-purpose commands give them.
struct Reference {
  nlohmann::json pattern, distances, congestion, rank;
};
Reference reference(const std::string& spec, int n, int cuts) {
  const std::string p = "-p '" + spec + "' ";
  return {
      cli_json("pattern " + p + "-n " + std::to_string(n)),
      cli_json("distances " + p + "-n " + std::to_string(n) + " --summary"),
      cli_json("congestion " + p + "-N " + std::to_string(n / 2)),
      cli_json("rank " + p + "-n " + std::to_string(n) + " --method flow --cuts " + std::to_string(cuts))};
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() /
           ("mixgraph_test_gallery_stack_" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(GalleryStack, RowEqualsTheStackCommands) {
  // translation-invariant layers (distances from one profile) and a block layer (all-pairs search)
  for (const std::string spec : {"stack:ssm,window:4", "stack:block:8,ssm,local:2"}) {
    const int n = 64, cuts = 7;
    const auto g = cli_json("gallery -n " + std::to_string(n) + " --cuts " + std::to_string(cuts) + " -p '" +
                            spec + "' -p window:4");
    ASSERT_EQ(g["designs"].size(), 2u) << g.dump();
    const auto& row = g["designs"][0];
    const auto ref = reference(spec, n, cuts);
    EXPECT_EQ(row["pattern"], spec);
    EXPECT_EQ(row["family"], "stack");
    EXPECT_EQ(row["depth"], ref.pattern["depth"]) << spec;
    for (const char* k : {"total_decode_cost", "max_decode_cost", "max_cache"})
      EXPECT_EQ(row[k], ref.pattern[k]) << spec << ": " << k;
    EXPECT_EQ(row["diameter"], ref.distances["diameter"]) << spec;
    EXPECT_EQ(row["unreachable_pairs"], ref.distances["unreachable_pairs"]) << spec;
    EXPECT_EQ(row["copy_possible"], ref.congestion["copy_possible"]) << spec;
    EXPECT_EQ(row["copy_distance"], ref.congestion["copy_distance"]) << spec;
    EXPECT_EQ(row["copy_congestion_lower"], ref.congestion["lower_bound"]) << spec;
    EXPECT_EQ(row["copy_congestion_upper"], ref.congestion["upper_bound"]) << spec;
    EXPECT_EQ(row["copy_congestion_upper_from"], ref.congestion["best_routing"]) << spec;
    EXPECT_EQ(row["max_cut_rank"], ref.rank["max_cut_rank"]) << spec;
    EXPECT_EQ(row["max_cut_rank_at"], ref.rank["argmax_cut"]) << spec;
    // the reference is not vacuous: the stack reads more than its first layer
    EXPECT_GT(row["total_decode_cost"].get<std::uint64_t>(), 0u);
  }
}

TEST(GalleryStack, OneLayerStackRowEqualsThePlainPattern) {
  for (const std::string plain : {"window:4", "pow2", "ssm", "block:8"}) {
    const auto g = cli_json("gallery -n 64 --cuts 9 -p '" + plain + "' -p 'stack:" + plain + "'");
    ASSERT_EQ(g["designs"].size(), 2u) << g.dump();
    const auto &a = g["designs"][0], &b = g["designs"][1];
    for (const char* k :
         {"total_decode_cost", "max_decode_cost", "max_cache", "diameter", "unreachable_pairs",
          "copy_possible", "copy_distance", "copy_congestion_lower", "max_cut_rank", "max_cut_rank_at"})
      EXPECT_EQ(a[k], b[k]) << plain << ": " << k;
    // the upper bound is a best checked routing: the stack's is a valid routing of the same graph, so it
    // cannot beat the plain lower bound, and both meet it or not alike here
    if (a["copy_possible"].get<bool>()) {
      EXPECT_GE(b["copy_congestion_upper"].get<int>(), a["copy_congestion_lower"].get<int>()) << plain;
      EXPECT_EQ(a["copy_congestion_upper"], b["copy_congestion_upper"]) << plain;
    }
  }
}

TEST(GalleryStack, MarkdownAndCsvHaveTheStackRow) {
  const auto r = run_cli("gallery -n 32 --cuts 3 -p 'stack:ssm,window:4' --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"stack:ssm,window:4\""), std::string::npos) << r.out;
  const auto m = run_cli("gallery -n 32 --cuts 3 -p 'stack:ssm,window:4' --markdown");
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_NE(m.out.find("| `stack:ssm,window:4` |"), std::string::npos) << m.out;
  EXPECT_EQ(run_cli("gallery -n 32 -p 'stack:ssm,nope:3'").code, 2);
}

TEST(ReportStack, StackAndPlainPatternReportEqualsTheCli) {
  TempDir d;
  const std::string out = (d.path / "rep").string();
  const std::string spec = "stack:ssm,window:4";
  const auto r = run_cli("report -p '" + spec + "' -p window:4 -n 64 --skip verify --progress never --out " +
                         out + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto manifest = nlohmann::json::parse(slurp(fs::path(out) / "report.json"));
  const nlohmann::json* stacks = nullptr;
  for (const auto& s : manifest["sections"]) {
    if (s["id"] == "stacks") stacks = &s;
    // every single-layer section that ran still has the plain pattern's results and none for the stack
    if (s["status"] == "done" && s["id"] != "stacks" && s["results"].contains("window:4")) {
      EXPECT_FALSE(s["results"].contains(spec)) << s["id"];
    }
  }
  ASSERT_NE(stacks, nullptr);
  ASSERT_EQ((*stacks)["status"], "done");
  const auto& got = (*stacks)["results"][spec];
  ASSERT_FALSE(got.is_null()) << stacks->dump();
  const auto ref = reference(spec, 64, 63);  // the report takes every cut for n <= --rank-cap
  EXPECT_EQ(got["depth"], ref.pattern["depth"]);
  for (const char* k : {"nnz_A", "nnz_B", "total_decode_cost", "max_decode_cost", "max_cache"})
    EXPECT_EQ(got[k], ref.pattern[k]) << k;
  for (const char* k : {"diameter", "reachable_pairs", "unreachable_pairs"})
    EXPECT_EQ(got[k], ref.distances[k]) << k;
  EXPECT_DOUBLE_EQ(got["mean_distance"].get<double>(), ref.distances["mean_distance"].get<double>());
  EXPECT_EQ(got["copy_length"], 32);
  for (const char* k : {"copy_distance", "lower_bound", "upper_bound", "best_routing"})
    EXPECT_EQ(got[k], ref.congestion[k]) << k;
  EXPECT_EQ(got["max_cut_rank"], ref.rank["max_cut_rank"]);
  EXPECT_EQ(got["argmax_cut"], ref.rank["argmax_cut"]);
  // Table 1 has a row for the stack, and the single-layer sections say they left it out
  bool row = false;
  for (const auto& t : manifest["table1"])
    if (t["pattern"] == spec) {
      row = true;
      EXPECT_EQ(t["shortest_path"], ref.distances["diameter"]);
      EXPECT_EQ(t["cache"], ref.pattern["max_cache"].dump());
    }
  EXPECT_TRUE(row);
  const std::string md = slurp(fs::path(out) / "report.md");
  EXPECT_NE(md.find("Shortest paths: `" + spec + "` left out"), std::string::npos);
  EXPECT_NE(md.find("## Stacked layers"), std::string::npos);
  EXPECT_TRUE(fs::exists(fs::path(out) / "tables" / "stacks.csv"));
}

TEST(ReportStack, OnlyStacksAndBadStack) {
  TempDir d;
  const std::string out = (d.path / "rep").string();
  const auto r = run_cli("report -p 'stack:(local:2)*3' -n 32 --skip verify --progress never --out " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(fs::path(out) / "report.md"));
  // a bad layer is a usage error before anything is written
  const std::string bad = (d.path / "bad").string();
  EXPECT_EQ(run_cli("report -p 'stack:ssm,nope' -n 32 --out " + bad).code, 2);
  EXPECT_FALSE(fs::exists(fs::path(bad) / "report.json"));
}
