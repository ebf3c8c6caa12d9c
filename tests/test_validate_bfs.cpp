// validate's distance reference is Boost.Graph's breadth_first_search on the layered DAG: it equals a
// forward pass from the definition (A as the first hop, the diagonal free, then B edges) and mixgraph's
// own distance code; and validate's check of that name passes on explicit-A and cache patterns.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../lib/src/bfs_boost.hpp"
#include "../lib/src/pattern_bruteforce.hpp"
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

TEST(ValidateBfs, BruteForcePatternMatchesTheLibraryAndThePaperExample) {
  // Def. 4.10's example (2^k): S_20 = {8,12,16,18,19,20}, S_64 = {32,48,56,60,62,63,64}
  const auto rows = bruteforce_b_rows("pow2+cache", 64);
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ((*rows)[19], (std::vector<pos_t>{7, 11, 15, 17, 18}));
  EXPECT_EQ((*rows)[63], (std::vector<pos_t>{31, 47, 55, 59, 61, 62}));
  for (const char* spec : {"pow2", "pow:3", "sq1", "window:4", "ssm", "dense", "offsets:3,7", "pow2+cache",
                           "sq1+cache", "window:3+cache", "offsets:5+cache", "pow:3+cache"})
    for (pos_t n : {1u, 2u, 10u, 300u}) {
      const auto want = bruteforce_b_rows(spec, n);
      ASSERT_TRUE(want.has_value()) << spec;
      const Csr b = b_csr(make_pattern(spec, n));
      for (pos_t i = 0; i < n; ++i) {
        const auto got = b.row(i);
        EXPECT_EQ(std::vector<pos_t>(got.begin(), got.end()), (*want)[i])
            << spec << " n=" << n << " i=" << i + 1;
      }
    }
  EXPECT_FALSE(bruteforce_b_rows("fib", 10).has_value());
}
