// `mixgraph congestion -p heads:P1;P2;...`: each head's row equals the congestion of that head's pattern run
// alone, and the combined row equals the union P1|P2|... (the combined mixer).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.hpp"

using mixgraph::test::run_cli;

namespace {

nlohmann::json congestion_json(const std::string& spec, int N) {
  const auto r = run_cli("congestion -p '" + spec + "' -N " + std::to_string(N) + " --format json");
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

/// The fields that do not depend on timing.
void expect_same_result(const nlohmann::json& got, const nlohmann::json& want, const std::string& what) {
  for (const char* key : {"pattern", "copy_length", "tokens", "copy_possible", "copy_distance",
                          "min_distance", "distance_sum", "lower_bound", "lower_bounds", "kappa",
                          "prop48_bound", "upper_bound", "congestion", "best_routing", "gap", "optimal"})
    EXPECT_EQ(got.at(key), want.at(key)) << what << ": " << key;
}

}  // namespace

TEST(CongestionHeads, PerHeadRowsEqualEachHeadAlone) {
  const std::vector<std::pair<std::vector<std::string>, int>> cases = {
      {{"pow2", "local:3", "window:2"}, 16}, {{"sq1", "ssm"}, 12}, {{"sink:2", "block:4"}, 10}};
  for (const auto& [heads, N] : cases) {
    std::string spec = "heads:", uni;
    for (std::size_t h = 0; h < heads.size(); ++h) {
      spec += (h ? ";" : "") + heads[h];
      uni += (h ? "|" : "") + heads[h];
    }
    const auto j = congestion_json(spec, N);
    ASSERT_TRUE(j.contains("heads")) << spec;
    ASSERT_EQ(j["heads"].size(), heads.size()) << spec;
    for (std::size_t h = 0; h < heads.size(); ++h)
      expect_same_result(j["heads"][h], congestion_json(heads[h], N), spec + " head " + heads[h]);
    // the combined mixer: the union of the heads' reads (its pattern field names the heads: spec)
    auto combined = j, alone = congestion_json(uni, N);
    combined.erase("pattern");
    alone.erase("pattern");
    for (const char* key : {"copy_distance", "lower_bound", "kappa", "upper_bound", "congestion", "optimal"})
      EXPECT_EQ(combined.at(key), alone.at(key)) << spec << " vs " << uni << ": " << key;
  }
  // a plain pattern has no per-head rows
  EXPECT_FALSE(congestion_json("pow2", 8).contains("heads"));
}

namespace {

std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST(CongestionHeads, CsvHasPerHeadRowsMatchingJson) {
  // the CSV's head rows carry the same numbers as JSON's heads (each head's own congestion run)
  const std::string spec = "heads:window:4;pow2";
  const auto r = run_cli("congestion -p '" + spec + "' -N 16 --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto rows = csv_rows(r.out);
  ASSERT_EQ(rows.size(), 4u) << r.out;  // header, combined, two heads
  const auto& h = rows[0];
  auto col = [&](const std::string& name) {
    for (std::size_t c = 0; c < h.size(); ++c)
      if (h[c] == name) return c;
    ADD_FAILURE() << "no column " << name << " in " << r.out;
    return std::size_t{0};
  };
  ASSERT_EQ(h.back(), "head");
  EXPECT_EQ(rows[1][col("pattern")], spec);
  EXPECT_EQ(rows[1][col("head")], "all");
  const auto combined = congestion_json(spec, 16);
  EXPECT_EQ(rows[1][col("lower")], combined["lower_bound"].dump());
  const std::vector<std::string> heads = {"window:4", "pow2"};
  for (std::size_t k = 0; k < heads.size(); ++k) {
    const auto& row = rows[k + 2];
    const auto alone = congestion_json(heads[k], 16);
    EXPECT_EQ(row[col("head")], std::to_string(k + 1));
    EXPECT_EQ(row[col("pattern")], heads[k]);
    EXPECT_EQ(row[col("copy_distance")], alone["copy_distance"].dump());
    EXPECT_EQ(row[col("lower")], alone["lower_bound"].dump());
    EXPECT_EQ(row[col("upper")], alone["upper_bound"].dump());
  }
  // a plain pattern's CSV has no head column
  const auto plain = run_cli("congestion -p pow2 -N 8 --format csv");
  EXPECT_EQ(plain.out.find("head"), std::string::npos) << plain.out;
}
