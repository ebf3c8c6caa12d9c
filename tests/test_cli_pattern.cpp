// End to end: `mixgraph pattern` and `mixgraph info` — JSON fields, CSV shape, exit codes for bad input,
// and agreement with the library (an independent path through the CLI's own parsing and formatting).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"

using mixgraph::test::run_cli;
using nlohmann::json;

TEST(CliPattern, JsonFieldsAgreeWithLibrary) {
  auto r = run_cli("pattern --pattern pow2+cache --n 256 --format json --profile --rows 20,64");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  const auto p = mixgraph::make_pattern("pow2+cache", 256);
  const auto prof = mixgraph::cache_profile(p);
  EXPECT_EQ(j["schema"], "mixgraph.pattern/1");
  EXPECT_EQ(j["command"], "pattern");
  EXPECT_EQ(j["pattern"], "pow2+cache");
  EXPECT_EQ(j["n"], 256);
  EXPECT_EQ(j["nnz_A"].get<std::uint64_t>(), prof.nnz_a);
  EXPECT_EQ(j["nnz_B"].get<std::uint64_t>(), prof.nnz_b);
  EXPECT_EQ(j["max_decode_cost"], prof.max_decode_cost);
  EXPECT_EQ(j["max_cache"], 8);
  EXPECT_EQ(j["max_kept_set"], prof.max_kept_set);
  ASSERT_EQ(j["decode_cost"].size(), 256u);
  ASSERT_EQ(j["cache_size"].size(), 256u);
  EXPECT_EQ(j["cache_size"].get<std::vector<std::uint32_t>>(), prof.cache_size);
  EXPECT_EQ(j["rows"]["20"], json::parse("[8,12,16,18,19]"));
  EXPECT_EQ(j["rows"]["64"], json::parse("[32,48,56,60,62,63]"));
  EXPECT_EQ(j["mixgraph_version"].get<std::string>().empty(), false);
}

TEST(CliPattern, TableCsvAndSummary) {
  auto t = run_cli("pattern -p sq1 -n 4096");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("max cache"), std::string::npos);
  auto c = run_cli("pattern -p sq1 -n 100 --format csv --profile");
  ASSERT_EQ(c.code, 0);
  EXPECT_EQ(c.out.substr(0, c.out.find('\n')), "position,decode_cost,cache_size");
  EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 101);
  auto s = run_cli("pattern -p dense -n 2^12 --format json --summary");
  ASSERT_EQ(s.code, 0) << s.err;
  const auto j = json::parse(s.out);
  EXPECT_FALSE(j.contains("offsets"));
  EXPECT_EQ(j["nnz_B"].get<std::uint64_t>(), 4096ull * 4095 / 2);
}

TEST(CliPattern, SweepFitsGrowthClasses) {
  auto r = run_cli("pattern -p pow2 --sweep 1024..65536 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["sweep"].size(), 7u);
  EXPECT_EQ(j["fits"]["total_decode_cost"]["class"], "O(n log n)");
  EXPECT_EQ(j["fits"]["max_cache"]["class"], "O(n)");
  auto c = run_cli("pattern -p pow2+cache --sweep 1024..65536 --format json");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(json::parse(c.out)["fits"]["max_cache"]["class"], "O(log n)");
  auto l = run_cli("pattern -p window:4 --sweep 1000,3000,10000 --format csv");
  ASSERT_EQ(l.code, 0);
  EXPECT_EQ(std::count(l.out.begin(), l.out.end(), '\n'), 4);
}

TEST(CliPattern, BadInputExitCodes) {
  struct Case {
    std::string args;
    int code;
    std::string needle;
  };
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / ("mixgraph_cli_bad_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto upper = (dir / "upper.mtx").string();
  std::ofstream(upper) << "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1\n";
  const auto nanf = (dir / "nan.mtx").string();
  std::ofstream(nanf) << "%%MatrixMarket matrix coordinate real general\n3 3 1\n2 1 nan\n";
  const std::vector<Case> cases = {
      {"pattern -p pow2 -n 0", 2, "must be >= 1"},
      {"pattern -p pow2 -n -5", 2, ">= 1"},
      {"pattern -p pow2 -n abc", 2, "not a positive integer"},
      {"pattern -p pow2", 2, "--n is required"},
      {"pattern -p nosuch -n 10", 2, "valid patterns"},
      {"pattern -p pow2 -n 10 --format xml", 2, "format"},
      {"pattern -p pow2 -n 10 --rows 11", 2, "outside 1..10"},
      {"pattern -p sq1+cache -n 1e6 --mem-limit 1M", 1, "refused before allocating"},
      {"pattern -p pow2 -n 5000000000", 2, "32 bits"},
      {"pattern -p mtx:" + upper, 3, "not strictly lower triangular"},
      {"pattern -p mtx:" + nanf, 3, "not finite"},
      {"pattern -p mtx:/nonexistent.mtx", 3, "cannot open"},
      {"pattern --bogus", 2, ""},
      {"nosuchcommand", 2, ""},
#ifdef MIXGRAPH_HAVE_MUPARSER
      {"pattern -p 'expr:10-k' -n 100", 2, "f(1) = 9 decreases"},
      {"pattern -p 'expr:3^(k' -n 100", 2, "malformed expression"},
      {"pattern -p 'expr:k/2+1' -n 100", 2, "not an integer"},
#endif
  };
  for (const auto& c : cases) {
    auto r = run_cli(c.args);
    EXPECT_EQ(r.code, c.code) << c.args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << c.args << " printed a partial result: " << r.out;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << ": " << r.err;
    if (r.err.rfind("mixgraph: error:", 0) == 0) {
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
}

TEST(CliInfo, ReportsBuildOptions) {
  auto v = run_cli("--version");
  ASSERT_EQ(v.code, 0);
  EXPECT_EQ(v.out.rfind("mixgraph ", 0), 0u);
  auto r = run_cli("info --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_TRUE(j["features"].contains("cuda"));
  EXPECT_TRUE(j["gpu"].contains("visible"));
  // a device's name, capability and memory exist only where one is visible (null, not "" or 0, otherwise)
  const bool seen = j["gpu"]["visible"].get<bool>();
  for (const char* k : {"name", "compute_capability", "memory_bytes"})
    EXPECT_EQ(j["gpu"][k].is_null(), !seen) << k;
#ifdef MIXGRAPH_HAVE_MUPARSER
  EXPECT_TRUE(j["features"]["expressions"].get<bool>());
#else
  EXPECT_FALSE(j["features"]["expressions"].get<bool>());
#endif
  auto h = run_cli("pattern --help");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("--sweep"), std::string::npos);
}
