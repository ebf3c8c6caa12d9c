// analysis::DistancesQuery (mixgraph/analysis/distances_query.hpp) called directly, as both front ends call
// it, against references computed here from the definitions: BFS on the communication graph of a random
// shared-mode pattern (d(i, j) = the fewest B hops from j to i; docs/math.md §3) for the all-pairs route,
// the matrix, the lists and the shortest-path counts (a DP over the BFS layers), and pow2's closed form
// delta(m) = popcount(m) for the profile route. The refusals name the option each front end gave.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <deque>
#include <map>
#include <random>

#include "mixgraph/analysis/distances_query.hpp"
#include "mixgraph/error.hpp"

using namespace mixgraph;

namespace {

constexpr std::uint32_t INF = UNREACHABLE;

/// A random shared-mode pattern on n positions: row i reads each j < i through B with probability pb.
Pattern random_shared(std::mt19937_64& rng, pos_t n, double pb) {
  Pattern p;
  p.spec = p.base = "test-dag";
  p.family = PatternFamily::Matrix;
  p.a_mode = AMode::Shared;
  p.n = n;
  std::bernoulli_distribution read(pb);
  p.b.n = n;
  p.b.ptr.push_back(0);
  for (pos_t i = 0; i < n; ++i) {
    for (pos_t j = 0; j < i; ++j)
      if (read(rng)) p.b.idx.push_back(j);
    p.b.ptr.push_back(p.b.idx.size());
  }
  return p;
}

/// BFS from s on the graph with an edge j -> i for every B read of row i: d(i, s) for every i.
std::vector<std::uint32_t> bfs(const Pattern& p, pos_t s) {
  std::vector<std::vector<pos_t>> out(p.n);
  for (pos_t i = 0; i < p.n; ++i)
    for (auto k = p.b.ptr[i]; k < p.b.ptr[i + 1]; ++k) out[p.b.idx[k]].push_back(i);
  std::vector<std::uint32_t> d(p.n, INF);
  std::deque<pos_t> q{s};
  d[s] = 0;
  while (!q.empty()) {
    const pos_t u = q.front();
    q.pop_front();
    for (pos_t v : out[u])
      if (d[v] == INF) {
        d[v] = d[u] + 1;
        q.push_back(v);
      }
  }
  return d;
}

/// The number of shortest paths from s: rows in increasing order (every edge goes forward), summing the
/// counts of the reads one hop closer.
std::vector<std::uint64_t> path_counts(const Pattern& p, pos_t s, const std::vector<std::uint32_t>& d) {
  std::vector<std::uint64_t> c(p.n, 0);
  c[s] = 1;
  for (pos_t i = s + 1; i < p.n; ++i)
    for (auto k = p.b.ptr[i]; k < p.b.ptr[i + 1]; ++k) {
      const pos_t j = p.b.idx[k];
      if (d[j] != INF && d[i] != INF && d[j] + 1 == d[i]) c[i] += c[j];
    }
  return c;
}

/// The summary figures against the rows ref[j][i] = d(i, j), pair by pair j < i: how many pairs at each
/// distance, the unreachable ones, the mean, and each source's farthest reachable output.
void expect_summary(const DistanceSummary& got, const std::vector<std::vector<std::uint32_t>>& ref,
                    bool eccentricities) {
  const pos_t n = static_cast<pos_t>(ref.size());
  std::map<std::uint32_t, std::uint64_t> pairs_at;  // distance -> pairs
  std::uint64_t unreachable = 0;
  std::vector<std::uint32_t> farthest(n, 0);
  for (pos_t j = 0; j < n; ++j)
    for (pos_t i = j + 1; i < n; ++i)
      if (ref[j][i] == INF)
        ++unreachable;
      else {
        ++pairs_at[ref[j][i]];
        farthest[j] = std::max(farthest[j], ref[j][i]);
      }
  std::uint64_t reachable = 0;
  double total = 0;
  for (const auto& [d, count] : pairs_at) {
    reachable += count;
    total += static_cast<double>(d) * static_cast<double>(count);
    ASSERT_LT(d, got.histogram.size());
    EXPECT_EQ(got.histogram[d], count) << "pairs at distance " << d;
  }
  EXPECT_EQ(got.diameter, pairs_at.empty() ? 0 : pairs_at.rbegin()->first);
  EXPECT_EQ(got.histogram.size(), pairs_at.empty() ? 1 : pairs_at.rbegin()->first + 1);
  EXPECT_EQ(got.reachable_pairs, reachable);
  EXPECT_EQ(got.unreachable_pairs, unreachable);
  EXPECT_NEAR(got.mean_distance, reachable ? total / static_cast<double>(reachable) : 0.0, 1e-12 * n);
  if (eccentricities) {
    EXPECT_EQ(got.eccentricity, farthest);
  }
}

/// The message of the UsageError that f throws ("" if it throws none).
template <class F>
std::string usage_error(F f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(AnalysisDistancesQuery, AllPairsRouteMatchesBfsOnTheGraph) {
  std::mt19937_64 rng(11);
  for (int t = 0; t < 4; ++t) {
    const pos_t n = 40 + 17 * t;
    const Pattern p = random_shared(rng, n, 0.06 + 0.03 * t);
    std::vector<std::vector<std::uint32_t>> ref(n);
    for (pos_t j = 0; j < n; ++j) ref[j] = bfs(p, j);
    const pos_t s = 2 + t, tg = n - 3;
    analysis::DistancesQuery q;
    q.pattern = &p;
    q.source = analysis::PositionArg{std::to_string(s + 1), {}};       // the CLI's text
    q.target = analysis::PositionArg{std::to_string(tg + 1), tg + 1};  // Python's number
    q.counts = true;
    q.matrix = true;
    q.threads = 1;
    const auto plan = analysis::distances_plan(q);
    ASSERT_EQ(plan.route.route, DistanceRoute::AllPairs);
    ASSERT_EQ(plan.source, s);
    ASSERT_EQ(plan.target, tg);
    const auto a = analysis::distances_compute(q, plan);
    ASSERT_TRUE(a);
    const auto& r = a->result;
    EXPECT_EQ(r.figures_from, "all-pairs");
    EXPECT_TRUE(r.has_summary);
    EXPECT_FALSE(r.translation_invariant);
    EXPECT_FALSE(a->profile);
    expect_summary(r.sum, ref, true);
    EXPECT_EQ(r.from, ref[s]);
    EXPECT_EQ(r.path_counts.count, path_counts(p, s, ref[s]));
    std::vector<std::uint32_t> to(n);
    for (pos_t j = 0; j < n; ++j) to[j] = ref[j][tg];
    EXPECT_EQ(r.to, to);
    ASSERT_EQ(a->matrix.size(), std::size_t{n} * n);
    for (pos_t i = 0; i < n; ++i)
      for (pos_t j = 0; j < n; ++j) ASSERT_EQ(a->matrix[std::size_t{i} * n + j], ref[j][i]) << i << " " << j;
  }
}

TEST(AnalysisDistancesQuery, ProfileRouteOfPow2IsPopcountAndAllPairsAgrees) {
  const pos_t n = 300;
  const Pattern p = make_pattern("pow2", n);
  // pow2 reads i - 2^k: d(i, j) = popcount(i - j), the profile delta(m) = popcount(m)
  std::vector<std::vector<std::uint32_t>> ref(n, std::vector<std::uint32_t>(n, INF));
  for (pos_t j = 0; j < n; ++j)
    for (pos_t i = j; i < n; ++i) ref[j][i] = static_cast<std::uint32_t>(std::popcount(i - j));
  for (const bool all_pairs : {false, true})
    for (const char* method : {"auto", "bitset-bfs", "dp"}) {
      SCOPED_TRACE(std::string(method) + (all_pairs ? " all-pairs" : ""));
      analysis::DistancesQuery q;
      q.pattern = &p;
      q.all_pairs = all_pairs;
      q.method = method;
      q.source = analysis::PositionArg{"2^3", {}};  // position 8
      const auto plan = analysis::distances_plan(q);
      EXPECT_EQ(plan.route.route, all_pairs ? DistanceRoute::AllPairs : DistanceRoute::Profile);
      EXPECT_TRUE(plan.route.translation_invariant);
      const auto a = analysis::distances_compute(q, plan);
      ASSERT_TRUE(a && a->profile);
      EXPECT_EQ(a->result.figures_from, all_pairs ? "all-pairs" : "profile");
      ASSERT_EQ(a->result.profile.size(), n);
      for (pos_t m = 0; m < n; ++m) EXPECT_EQ(a->result.profile[m], ref[0][m]) << m;
      expect_summary(a->result.sum, ref, true);
      EXPECT_EQ(a->result.from, ref[7]);
    }
  // summary: the figures without the per-position lists
  analysis::DistancesQuery q;
  q.pattern = &p;
  q.summary = true;
  const auto a = analysis::distances_compute(q, analysis::distances_plan(q));
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->result.summary_only);
  EXPECT_TRUE(a->result.profile.empty());
  expect_summary(a->result.sum, ref, false);
}

TEST(AnalysisDistancesQuery, ListsOnlyAboveTheAutomaticAllPairsLimitAndTheHookTakesAllPairs) {
  const Pattern big = make_pattern("pow2+cache", kAutoAllPairsMax * 2);
  analysis::DistancesQuery q;
  q.pattern = &big;
  q.source = analysis::PositionArg{"1", {}};
  const auto plan = analysis::distances_plan(q);
  EXPECT_EQ(plan.route.route, DistanceRoute::ListsOnly);
  EXPECT_FALSE(plan.has_summary);
  const auto a = analysis::distances_compute(q, plan);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->result.from, bfs(big, 0));
  EXPECT_TRUE(a->result.figures_from.empty());

  // the all-pairs route through the hook: its summary is the figures; none (another MPI rank) stops the work
  std::mt19937_64 rng(5);
  const Pattern p = random_shared(rng, 50, 0.1);
  analysis::DistancesQuery h;
  h.pattern = &p;
  h.source = analysis::PositionArg{"1", {}};
  int calls = 0;
  DistanceSummary given;
  given.diameter = 12345;
  h.all_pairs_hook = [&](const Pattern& pat, const AllPairsOptions& ap) -> std::optional<DistanceSummary> {
    ++calls;
    EXPECT_EQ(&pat, &p);
    EXPECT_TRUE(ap.eccentricities);
    return calls == 1 ? std::optional<DistanceSummary>(given) : std::nullopt;
  };
  const auto hp = analysis::distances_plan(h);
  const auto first = analysis::distances_compute(h, hp);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->result.sum.diameter, 12345u);
  EXPECT_EQ(first->result.from, bfs(p, 0));
  EXPECT_FALSE(analysis::distances_compute(h, hp));
  EXPECT_EQ(calls, 2);
}

TEST(AnalysisDistancesQuery, RefusalsNameTheOptionAsEachFrontEndGaveIt) {
  using Q = analysis::DistancesQuery;
  using analysis::PositionArg;
  const Pattern p = make_pattern("sq1", 64);
  Q cli;  // the CLI's words are the defaults
  cli.pattern = &p;
  Q py = cli;  // the Python package's words
  py.words.source = "source";
  py.words.target = "target";
  py.words.method = "method";
  py.words.counts_needs_source = "counts=True needs source=j";
  py.words.matrix_gives = "matrix=True returns";
  py.words.matrix_instead = "use the summary figures or source/target instead";
  const std::optional<PositionArg> none;
  struct Case {
    const Q& words;
    std::optional<PositionArg> source, target;
    bool counts = false;
    std::string method = "auto";
    std::uint64_t matrix_max = 0;  ///< 0: no matrix asked for
    std::string message;           ///< "": accepted
  };
  const std::vector<Case> cases = {
      {cli, PositionArg{"0", {}}, none, false, "auto", 0,
       "--source 0 is outside 1..64 (positions are 1-indexed)"},
      {cli, none, PositionArg{"2^7", {}}, false, "auto", 0,
       "--target 2^7 is outside 1..64 (positions are 1-indexed)"},
      {cli, PositionArg{"abc", {}}, none, false, "auto", 0,
       "--source: 'abc' is not a positive integer (examples: 4096, 2^20, 1e6, 10^8)"},
      {py, PositionArg{"65", 65}, none, false, "auto", 0,
       "source 65 is outside 1..64 (positions are 1-indexed)"},
      {py, none, PositionArg{"-2", -2}, false, "auto", 0,
       "target -2 is outside 1..64 (positions are 1-indexed)"},
      {py, PositionArg{"1", 1}, PositionArg{"64", 64}, true, "dp", 0, ""},
      {cli, none, PositionArg{"3", {}}, true, "auto", 0,
       "--counts needs --source j (shortest-path counts from x_j)"},
      {py, none, none, true, "auto", 0, "counts=True needs source=j (shortest-path counts from x_j)"},
      {cli, none, none, false, "foo", 0, "--method must be auto, bitset-bfs or dp (got 'foo')"},
      {py, none, none, false, "foo", 0, "method must be auto, bitset-bfs or dp (got 'foo')"},
      {cli, none, none, false, "auto", 64, ""},
      {cli, none, none, false, "auto", 63,
       "--matrix writes n^2 entries; n = 64 is above 63: use --summary figures or --source/--target instead"},
      {py, none, none, false, "auto", 32,
       "matrix=True returns n^2 entries; n = 64 is above 32: use the summary figures or source/target "
       "instead"},
  };
  for (const auto& c : cases) {
    Q q = c.words;
    q.source = c.source;
    q.target = c.target;
    q.counts = c.counts;
    q.method = c.method;
    q.matrix = c.matrix_max > 0;
    if (q.matrix) q.matrix_max = c.matrix_max;
    EXPECT_EQ(usage_error([&] { analysis::distances_plan(q); }), c.message);
  }
  // the route's refusal, in each front end's words
  const Pattern big = make_pattern("pow2+cache", kAutoAllPairsMax * 2);
  py.words.all_pairs = "pass all_pairs=True";
  py.words.one_row = "source=j / target=i";
  for (const Q* q : {&cli, &py}) {
    Q b = *q;
    b.pattern = &big;
    const std::string m = usage_error([&] { analysis::distances_plan(b); });
    EXPECT_NE(m.find("pattern pow2+cache is not translation-invariant"), std::string::npos) << m;
    EXPECT_NE(m.find(q == &cli ? "add --all-pairs" : "pass all_pairs=True"), std::string::npos) << m;
    EXPECT_NE(m.find(q == &cli ? "--source j / --target i" : "source=j / target=i"), std::string::npos) << m;
  }
}

TEST(AnalysisDistancesQuery, HeadRowsAreEachHeadAlone) {
  const Pattern p = make_pattern("heads:sq1;pow2", 64);
  analysis::DistancesQuery q;
  q.pattern = &p;
  const auto rows = analysis::distances_head_rows(q);
  ASSERT_EQ(rows.size(), 2u);
  for (std::size_t h = 0; h < 2; ++h) {
    const Pattern head = make_pattern(p.heads[h], 64);
    analysis::DistancesQuery hq;
    hq.pattern = &head;
    const auto a = analysis::distances_compute(hq, analysis::distances_plan(hq));
    ASSERT_TRUE(a);
    EXPECT_EQ(rows[h]["pattern"], p.heads[h]);
    EXPECT_EQ(rows[h]["diameter"], a->result.sum.diameter);
    EXPECT_EQ(rows[h]["reachable_pairs"], a->result.sum.reachable_pairs);
  }
  // pow2 alone on 64 positions: the largest popcount below 64 is 6
  EXPECT_EQ(rows[1]["diameter"], 6);
  const Pattern plain = make_pattern("sq1", 64);
  q.pattern = &plain;
  EXPECT_TRUE(analysis::distances_head_rows(q).empty());
}
