// validate's distance reference is Boost.Graph's breadth_first_search on the layered DAG: it equals a
// forward pass from the definition (A as the first hop, the diagonal free, then B edges) and mixgraph's
// own distance code; and validate's check of that name passes on explicit-A and cache patterns.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../lib/src/claims/bfs_boost.hpp"
#include "../lib/src/pattern/pattern_bruteforce.hpp"
#include "cli_util.hpp"
#include "mixgraph/commgraph.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/pattern.hpp"

using namespace mixgraph;

namespace {
/// From the definition: d(s) = 0 if A(s, s) != 0, d(k) = 1 for the other A readers k of s, then in
/// position order d(i) = min(d(i), d(j) + 1) over the B reads j of row i (B is strictly lower).
std::vector<std::uint32_t> forward_pass(const Csr& a, const Csr& b, pos_t s) {
  std::vector<std::uint32_t> d(a.n, UNREACHABLE);
  for (pos_t k = s; k < a.n; ++k)
    for (pos_t j : a.row(k))
      if (j == s) d[k] = k == s ? 0 : 1;
  for (pos_t i = 0; i < b.n; ++i)
    for (pos_t j : b.row(i))
      if (d[j] != UNREACHABLE) d[i] = std::min(d[i], d[j] + 1);
  return d;
}
}  // namespace

TEST(ValidateBfs, BoostBfsEqualsTheDefinitionAndTheGraphCode) {
  for (const char* spec :
       {"pow2", "sq1+cache", "window:3", "local:5", "attention", "ssm", "offsets:3,7", "fib"})
    for (pos_t n : {1u, 2u, 37u, 130u}) {
      const auto p = make_pattern(spec, n);
      const Csr a = a_csr(p), b = b_csr(p), at = transpose(a);
      BoostBfs reused(b);  // one graph for every source: the S/T edges of the last source must not leak
      for (pos_t s : {n - 1, pos_t{0}, n / 2, n - 1}) {
        const auto got = boost_bfs_distances(b, at, s);
        EXPECT_EQ(reused.distances(at, s), got) << spec << " n=" << n << " s=" << s;
        EXPECT_EQ(got, forward_pass(a, b, s)) << spec << " n=" << n << " s=" << s;
        EXPECT_EQ(got, single_source_distances(p, s)) << spec << " n=" << n << " s=" << s;
      }
    }
}

TEST(ValidateBfs, ValidateRunsTheBoostCheck) {
  for (const char* spec : {"local:4", "pow2+cache"}) {
    const auto r = mixgraph::test::run_cli(std::string("validate -p ") + spec + " --n 64 --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    bool found = false;
    for (const auto& c : j["checks"])
      if (c["name"].get<std::string>().find("BFS distances (Boost.Graph)") != std::string::npos) {
        found = true;
        EXPECT_EQ(c["passed"], true) << spec << ": " << c.dump();
      }
    EXPECT_TRUE(found) << spec << ": " << r.out.substr(0, 400);
  }
  const auto r = mixgraph::test::run_cli("validate -p pow2+cache --n 64 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  bool found = false;
  const auto j = nlohmann::json::parse(r.out);
  for (const auto& c : j["checks"])
    if (c["name"].get<std::string>().find("construction from the definition") != std::string::npos) {
      found = true;
      EXPECT_EQ(c["passed"], true) << c.dump();
    }
  EXPECT_TRUE(found);
}

TEST(ValidateBfs, CacheOnMtxNamesTheProblem) {
  const auto r = mixgraph::test::run_cli("pattern -p mtx:/nonexistent.mtx+cache");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.find("n must be >= 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("+cache"), std::string::npos) << r.err;
}

namespace {
/// One spec of every family named by pattern_name_help() (the name before ':' or the whole name), small
/// parameters and +cache variants; a family added to the help without an entry here fails the test below.
const std::vector<std::pair<std::string, std::vector<std::string>>>& family_examples() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> e = {
      {"pow2", {"pow2", "pow2+cache"}},
      {"pow", {"pow:3", "pow:3+cache", "pow:5"}},
      {"sq1", {"sq1", "sq1+cache"}},
      {"sq", {"sq", "sq+cache"}},
      {"fib", {"fib", "fib+cache"}},
      {"window", {"window:1", "window:4", "window:3+cache"}},
      {"dilated", {"dilated:3,4", "dilated:2,1", "dilated:4,3+cache"}},
      {"strided", {"strided:2,5", "strided:3,2", "strided:2,7+cache"}},
      {"ssm", {"ssm", "ssm+cache"}},
      {"dense", {"dense", "dense+cache"}},
      {"local", {"local:1", "local:4", "local:3+cache"}},
      {"attention", {"attention", "attention+cache"}},
      {"loglinear", {"loglinear"}},
      {"sink", {"sink:1", "sink:3"}},
      {"global", {"global:2"}},
      {"block", {"block:1", "block:4"}},
      {"expr", {"expr:k^3+1", "expr:2^k", "expr:floor(1.5^k)", "expr:3*k+1+cache", "expr:(k+1)^2"}},
      {"offsets", {"offsets:3,7", "offsets:1,5,6,20", "offsets:5+cache"}},
      {"union",
       {"pow2|window:3", "sink:2|local:3", "ssm|block:3", "window:2|dilated:2,5+cache", "local:2|attention",
        "pow2+cache|sink:1", "sq1|fib|ssm", "heads:pow2;window:3", "heads:pow2+cache;sink:2|local:3",
        "heads:sq1"}},
      {"union read marks",
       {"window:4@B|ssm@A", "pow2@A|window:3@B", "sink:2@B|local:3@A", "ssm@B|block:3@A",
        "pow2+cache@B|window:2@AB", "attention@A|ssm@B", "heads:window:2@A|ssm@B;pow2"}},
  };
  return e;
}
}  // namespace

TEST(ValidateBfs, BruteForcePatternMatchesThePaperExample) {
  // Def. 4.10's example (2^k): S_20 = {8,12,16,18,19,20}, S_64 = {32,48,56,60,62,63,64}
  const auto rows = bruteforce_b_rows("pow2+cache", 64);
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ((*rows)[19], (std::vector<pos_t>{7, 11, 15, 17, 18}));
  EXPECT_EQ((*rows)[63], (std::vector<pos_t>{31, 47, 55, 59, 61, 62}));
  // an expression by the brute force's own evaluator, against values worked out by hand
  EXPECT_EQ(bruteforce_expression("k^3+1", 100), (std::vector<std::uint64_t>{1, 2, 9, 28, 65}));
  EXPECT_EQ(bruteforce_expression("floor(1.5^k)", 8), (std::vector<std::uint64_t>{1, 2, 3, 5, 7}));
  EXPECT_FALSE(bruteforce_expression("k+0.5", 100).has_value());  // not an integer
  EXPECT_FALSE(bruteforce_expression("nosuch(k)", 100).has_value());
  EXPECT_FALSE(bruteforce_rows("mtx:/nonexistent.mtx", 10).has_value());  // files are not definitions
}

TEST(ValidateBfs, BruteForceCoversEveryNamedFamily) {
  // every family named in the pattern help has examples here
  std::string help = pattern_name_help();
  for (std::size_t at = 0; at < help.size();) {
    auto end = help.find(", ", at);
    if (end == std::string::npos) end = help.size();
    std::string name = help.substr(at, end - at);
    at = end + 2;
    name = name.substr(0, name.find_first_of(":<"));
    if (name.rfind("and unions", 0) == 0 || name.rfind("unions", 0) == 0) name = "union";  // and heads:
    // files, and the two families drawn from a seed or a scores file: their independent references (the
    // documented draw; a sort of the scores) are in test_pattern_sparse
    if (name.empty() || name == "mtx" || name == "bigbird" || name == "topk-blocks") continue;
    bool found = false;
    for (const auto& [family, specs] : family_examples()) found = found || family == name;
    EXPECT_TRUE(found) << "pattern family '" << name << "' has no brute-force example";
  }
}

TEST(ValidateBfs, BruteForcePatternMatchesTheLibraryOnEveryFamily) {
  // A and B reads of every family from the definition == the library's pattern, at small n
  for (const auto& [family, specs] : family_examples())
    for (const auto& spec : specs) {
      if (spec.rfind("expr:", 0) == 0 && !expressions_built_in()) continue;
      for (pos_t n : {1u, 2u, 10u, 37u, 300u}) {
        const auto want = bruteforce_rows(spec, n);
        ASSERT_TRUE(want.has_value()) << spec;
        const auto p = make_pattern(spec, n);
        for (pos_t i = 0; i < n; ++i) {
          std::vector<pos_t> a, b;
          for_each_a_read(p, i, [&](pos_t j) { a.push_back(j); });
          for_each_b_read(p, i, [&](pos_t j) { b.push_back(j); });
          ASSERT_EQ(a, want->a[i]) << spec << " n=" << n << " i=" << i + 1 << " (A)";
          ASSERT_EQ(b, want->b[i]) << spec << " n=" << n << " i=" << i + 1 << " (B)";
        }
      }
    }
  // the comparison can fail: a different definition gives different rows
  const auto sq = bruteforce_rows("sq", 50);
  const auto sq1 = bruteforce_rows("sq1", 50);
  EXPECT_NE(sq->b, sq1->b);
  EXPECT_NE(bruteforce_rows("local:3", 20)->b, bruteforce_rows("window:3", 20)->b);
  EXPECT_NE(bruteforce_rows("ssm", 20)->a, bruteforce_rows("window:1", 20)->a);
}

TEST(ValidateBfs, ValidateRunsTheBruteForceOnEveryFamily) {
  for (const char* spec :
       {"fib", "sq", "local:4", "attention", "sink:3", "block:5", "dilated:3,4", "strided:2,5",
        "sink:2|local:3", "local:3+cache", "expr:k^3+1", "window:4@B|ssm@A", "attention@A|ssm@B"}) {
    if (std::string(spec).rfind("expr:", 0) == 0 && !expressions_built_in()) continue;
    const auto r = mixgraph::test::run_cli(std::string("validate -p '") + spec + "' --n 64 --format json");
    ASSERT_EQ(r.code, 0) << spec << ": " << r.err;
    bool found = false;
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& c : j["checks"])
      if (c["name"].get<std::string>().find("construction from the definition") != std::string::npos) {
        found = true;
        EXPECT_EQ(c["passed"], true) << spec << ": " << c.dump();
      }
    EXPECT_TRUE(found) << spec;
  }
}
