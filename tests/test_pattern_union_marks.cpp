// Read marks on union parts (P@A|Q@B|R@AB): the library's A and B reads against the construction from the
// definition (pattern_bruteforce), unmarked unions unchanged, distances against a 0-1 BFS over the explicit
// graph built from the brute-force reads, and the CLI's refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "../lib/src/pattern/pattern_bruteforce.hpp"
#include "cli_util.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"

using namespace mixgraph;

namespace {

BruteforceRows library_rows(const Pattern& p) {
  BruteforceRows r;
  r.a.resize(p.n);
  r.b.resize(p.n);
  for (pos_t i = 0; i < p.n; ++i) {
    for_each_a_read(p, i, [&](pos_t j) { r.a[i].push_back(j); });
    for_each_b_read(p, i, [&](pos_t j) { r.b[i].push_back(j); });
  }
  return r;
}

const std::vector<std::string> kUnionMarked = {"window:4@B|ssm@A",
                                               "pow2@A|window:3@B",
                                               "window:3@B|window:3@A",
                                               "window:2@A|pow2@A",
                                               "attention@A|ssm@B",
                                               "sink:2@B|local:3@A",
                                               "sink:3@B|ssm@A",
                                               "ssm@B|block:3@A",
                                               "pow2+cache@B|window:2@AB",
                                               "sq1@AB|dilated:2,3@B",
                                               "window:5@A|sink:2@B|ssm",
                                               "fib@B|attention@A|sq1@A",
                                               "heads:window:2@A|ssm@B;pow2"};

/// d(i, s) for every i from x_s by a 0-1 BFS over the nodes x_0..x_{n-1}, y_0..y_{n-1}: an A read j of row
/// i is the edge x_j -> y_i (weight 0 when j == i, else 1), a B read j of row i the edge y_j -> y_i (1).
std::vector<std::uint32_t> bfs_from(const BruteforceRows& r, pos_t s) {
  const pos_t n = static_cast<pos_t>(r.a.size());
  std::vector<std::vector<std::pair<pos_t, std::uint32_t>>> out(2 * std::size_t{n});  // x_j = j, y_i = n + i
  for (pos_t i = 0; i < n; ++i) {
    for (pos_t j : r.a[i]) out[j].push_back({n + i, j == i ? 0u : 1u});
    for (pos_t j : r.b[i]) out[n + j].push_back({n + i, 1u});
  }
  std::vector<std::uint32_t> d(2 * std::size_t{n}, UNREACHABLE);
  std::deque<pos_t> q{s};
  d[s] = 0;
  while (!q.empty()) {
    const pos_t u = q.front();
    q.pop_front();
    for (auto [v, w] : out[u])
      if (d[u] + w < d[v]) {
        d[v] = d[u] + w;
        w ? q.push_back(v) : q.push_front(v);
      }
  }
  return {d.begin() + n, d.end()};
}

}  // namespace

TEST(PatternUnionMarks, ReadsMatchTheDefinition) {
  for (const auto& spec : kUnionMarked)
    for (pos_t n : {1u, 2u, 7u, 23u, 40u}) {
      const auto want = bruteforce_rows(spec, n);
      ASSERT_TRUE(want.has_value()) << spec;
      const auto got = library_rows(make_pattern(spec, n));
      for (pos_t i = 0; i < n; ++i) {
        ASSERT_EQ(got.a[i], want->a[i]) << spec << " n=" << n << " i=" << i + 1 << " (A)";
        ASSERT_EQ(got.b[i], want->b[i]) << spec << " n=" << n << " i=" << i + 1 << " (B)";
      }
    }
  // the marks change the reads: the comparison can fail
  EXPECT_NE(bruteforce_rows("window:4@B|ssm@A", 20)->a, bruteforce_rows("window:4|ssm", 20)->a);
  EXPECT_NE(bruteforce_rows("pow2@A|window:3@B", 20)->b, bruteforce_rows("pow2|window:3", 20)->b);
}

TEST(PatternUnionMarks, UnmarkedUnionsAreUnchanged) {
  // no mark, or @AB on every part, is the plain union: same representation, same reads
  const std::vector<std::pair<std::string, std::string>> same = {
      {"pow2|window:3", "pow2@AB|window:3@AB"},
      {"sink:2|local:3", "sink:2@AB|local:3 @AB"},
      {"ssm|block:3", "ssm@AB|block:3"},
      {"local:2|attention", "local:2@AB|attention@AB"},
      {"window:2|dilated:2,5+cache", "window:2@AB|dilated:2,5@AB+cache"},
      {"pow2+cache|sink:1", "pow2+cache@AB|sink:1@AB"}};
  for (const auto& [plain, marked] : same)
    for (pos_t n : {1u, 9u, 40u}) {
      const auto p = make_pattern(plain, n), q = make_pattern(marked, n);
      EXPECT_EQ(p.family, q.family) << marked;
      EXPECT_EQ(p.a_mode, q.a_mode) << marked;
      EXPECT_EQ(p.f_values, q.f_values) << marked;
      EXPECT_EQ(p.b_offsets, q.b_offsets) << marked;
      EXPECT_EQ(p.a_offsets, q.a_offsets) << marked;
      EXPECT_EQ(p.b.idx, q.b.idx) << marked;
      EXPECT_EQ(p.a.idx, q.a.idx) << marked;
      const auto want = bruteforce_rows(plain, n);
      ASSERT_TRUE(want.has_value()) << plain;
      const auto got = library_rows(p);
      EXPECT_EQ(got.a, want->a) << plain << " n=" << n;
      EXPECT_EQ(got.b, want->b) << plain << " n=" << n;
    }
  // the documented representations of unmarked unions
  EXPECT_TRUE(make_pattern("window:8|dilated:4,16", 100).translation_invariant());
  EXPECT_EQ(make_pattern("window:8|dilated:4,16", 100).a_mode, AMode::Shared);
  EXPECT_EQ(make_pattern("sink:2|local:3", 30).family, PatternFamily::Matrix);
  EXPECT_EQ(make_pattern("sink:2|local:3", 30).a_mode, AMode::Explicit);
}

TEST(PatternUnionMarks, TranslationInvarianceFollowsTheOffsetSets) {
  // B = {1..4}, A = {0}: an ssm-like recurrence reading a window
  const auto d = make_pattern("window:4@B|ssm@A", 50);
  EXPECT_TRUE(d.translation_invariant());
  EXPECT_EQ(d.a_mode, AMode::Diagonal);
  EXPECT_EQ(d.b_offsets, (std::vector<pos_t>{1, 2, 3, 4}));
  // A = {0, 1, 2} ∪ {0, 1, 2, 4, ...}, B empty: A-only
  const auto e = make_pattern("window:2@A|pow2@A", 20);
  EXPECT_TRUE(e.translation_invariant());
  EXPECT_EQ(e.a_mode, AMode::Explicit);
  EXPECT_EQ(e.a_offsets, (std::vector<pos_t>{0, 1, 2, 4, 8, 16}));
  // A = {0} ∪ B: the shared window itself
  const auto s = make_pattern("window:3@B|window:3@A", 20);
  EXPECT_TRUE(s.translation_invariant());
  EXPECT_EQ(s.a_mode, AMode::Shared);
  EXPECT_EQ(library_rows(s).a, library_rows(make_pattern("window:3", 20)).a);
  // explicit A beside a non-empty B has no single offset set here: explicit rows
  EXPECT_FALSE(make_pattern("attention@A|ssm@B", 20).translation_invariant());
  EXPECT_FALSE(make_pattern("pow2@A|window:3@B", 20).translation_invariant());
  // rows that give a diagonal A are recognised as such
  EXPECT_EQ(make_pattern("sink:3@B|ssm@A", 20).a_mode, AMode::Diagonal);
}

TEST(PatternUnionMarks, DistancesMatchABfsOverTheExplicitGraph) {
  for (const auto& spec : kUnionMarked) {
    const pos_t n = 40;
    const auto rows = bruteforce_rows(spec, n);
    ASSERT_TRUE(rows.has_value()) << spec;
    const auto p = make_pattern(spec, n);
    std::uint32_t diameter = 0;
    std::uint64_t unreachable = 0;
    for (pos_t s = 0; s < n; ++s) {
      const auto want = bfs_from(*rows, s);
      ASSERT_EQ(single_source_distances(p, s), want) << spec << " source " << s + 1;
      for (pos_t i = s + 1; i < n; ++i) {
        if (want[i] == UNREACHABLE)
          ++unreachable;
        else
          diameter = std::max(diameter, want[i]);
      }
    }
    const auto sum = distance_summary(p);
    EXPECT_EQ(sum.diameter, diameter) << spec;
    EXPECT_EQ(sum.unreachable_pairs, unreachable) << spec;
  }
}

TEST(PatternUnionMarks, BadMarksAreRefused) {
  EXPECT_THROW(make_pattern("attention@B|ssm@A", 10), UsageError);  // no B reads to keep
  EXPECT_THROW(make_pattern("window:3@B|pow2@B", 10), UsageError);  // nothing reads x
  EXPECT_THROW(make_pattern("window:3@C|ssm", 10), UsageError);     // unknown mark
  EXPECT_THROW(make_pattern("window:3@A", 10), UsageError);         // not a union
  EXPECT_THROW(make_pattern("window:3@A|ssm@B+cache", 10), UsageError);
  EXPECT_NO_THROW(make_pattern("window:1@B|ssm@A", 1));  // a family with B reads, none below n = 1
}

TEST(PatternUnionMarks, CliRefusesBadMarksInOneLine) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"attention@B|ssm@A", "reads nothing through B"},
      {"window:3@B|pow2@B", "no part reads through A"},
      {"window:3@a|ssm", "unknown read mark"},
      {"window:3@A", "marks a part of a union"},
      {"window:3@A|ssm@B+cache", "not defined with read marks"},
      {"@A|ssm", "without a pattern"},
      {"ssm@AB+cache", "marks a part of a union"}};
  for (const auto& [spec, says] : bad) {
    const auto r = mixgraph::test::run_cli("pattern -p '" + spec + "' --n 16");
    EXPECT_EQ(r.code, 2) << spec << ": " << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << spec << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << spec << ": one line, got " << r.err;
  }
  const auto ok = mixgraph::test::run_cli("distances -p 'window:4@B|ssm@A' --n 32 --format json");
  EXPECT_EQ(ok.code, 0) << ok.err;
  // a union whose first part is bigbird: (the memory estimate reads the parts one by one)
  const auto bb = mixgraph::test::run_cli("pattern -p 'bigbird:4,2,1@B|window:3@A' --n 100 --format json");
  EXPECT_EQ(bb.code, 0) << bb.err;
}
