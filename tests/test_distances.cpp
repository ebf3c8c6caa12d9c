// Tests for distances. Every check compares with an independent reference: closed forms computed
// here (popcount, Lagrange by brute force), Boost.Graph's breadth_first_search, or a naive 0-1 BFS on the
// explicit layered DAG of docs/math.md §3 built from edge lists generated in the test.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <boost/graph/breadth_first_search.hpp>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "cli_util.hpp"
#include "mixgraph/boost_adapter.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"

using namespace mixgraph;

namespace {

constexpr std::uint32_t INF = UNREACHABLE;

// ---------------------------------------------------------------------------------------------------------
// References

/// Boost.Graph BFS on the explicit communication graph (B edges) from `s`; INF where not reached.
std::vector<std::uint32_t> boost_bfs(const CommGraph& g, pos_t s) {
  std::vector<std::uint32_t> d(g.n, INF);
  d[s] = 0;
  boost::breadth_first_search(
      g, s,
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(d.data(), boost::on_tree_edge()))));
  return d;
}

/// A random pattern as plain edge lists: B edges (j < i) and, for explicit A, A edges (j <= i).
struct Dag {
  pos_t n = 0;
  AMode mode = AMode::Shared;
  std::vector<std::set<pos_t>> b_in;  // b_in[i] = { j : i reads j through B }
  std::vector<std::set<pos_t>> a_in;  // explicit A only
};

Csr to_csr(const std::vector<std::set<pos_t>>& rows) {
  Csr c;
  c.n = static_cast<pos_t>(rows.size());
  c.ptr.push_back(0);
  for (const auto& r : rows) {
    c.idx.insert(c.idx.end(), r.begin(), r.end());
    c.ptr.push_back(c.idx.size());
  }
  return c;
}

Pattern to_pattern(const Dag& g) {
  Pattern p;
  p.spec = "test-dag";
  p.base = p.spec;
  p.family = PatternFamily::Matrix;
  p.a_mode = g.mode;
  p.n = g.n;
  p.b = to_csr(g.b_in);
  if (g.mode == AMode::Explicit) p.a = to_csr(g.a_in);
  return p;
}

Dag random_dag(std::mt19937_64& rng, pos_t n, double pb, double pa, AMode mode, pos_t max_span = 0) {
  Dag g;
  g.n = n;
  g.mode = mode;
  g.b_in.resize(n);
  g.a_in.resize(n);
  std::uniform_real_distribution<double> u(0, 1);
  for (pos_t i = 0; i < n; ++i)
    for (pos_t j = 0; j <= i; ++j) {
      if (max_span && i - j > max_span) continue;
      if (j < i && u(rng) < pb) g.b_in[i].insert(j);
      if (mode == AMode::Explicit && u(rng) < (j == i ? 0.7 : pa)) g.a_in[i].insert(j);
    }
  return g;
}

/// 0-1 BFS on the layered DAG (x_j = node j, y_i = node n + i) from x_s: d(i, s) for every i.
std::vector<std::uint32_t> layered_bfs(const Dag& g, pos_t s) {
  const pos_t n = g.n;
  std::vector<std::vector<std::pair<pos_t, std::uint32_t>>> adj(2 * std::size_t{n});
  for (pos_t i = 0; i < n; ++i) {
    for (pos_t j : g.b_in[i]) adj[n + j].push_back({n + i, 1});
    if (g.mode == AMode::Explicit)
      for (pos_t j : g.a_in[i]) adj[j].push_back({n + i, i == j ? 0u : 1u});
    else if (g.mode == AMode::Diagonal)
      adj[i].push_back({n + i, 0});
    else {
      adj[i].push_back({n + i, 0});
      for (pos_t j : g.b_in[i]) adj[j].push_back({n + i, 1});
    }
  }
  std::vector<std::uint32_t> dist(2 * std::size_t{n}, INF);
  std::deque<pos_t> q;
  dist[s] = 0;
  q.push_back(s);
  while (!q.empty()) {
    const pos_t u = q.front();
    q.pop_front();
    for (auto [v, w] : adj[u])
      if (dist[u] + w < dist[v]) {
        dist[v] = dist[u] + w;
        if (w == 0)
          q.push_front(v);
        else
          q.push_back(v);
      }
  }
  return std::vector<std::uint32_t>(dist.begin() + n, dist.end());
}

/// Shortest-path counts by enumerating every path (exponential; small graphs only). Shared/diagonal: paths
/// in G from j; explicit: paths in the layered DAG from x_j (an A edge first, then B edges).
void enumerate(const std::vector<std::vector<pos_t>>& out, pos_t v, std::uint32_t len,
               std::vector<std::map<std::uint32_t, std::uint64_t>>& by_len) {
  by_len[v][len] += 1;
  for (pos_t w : out[v]) enumerate(out, w, len + 1, by_len);
}
std::pair<std::vector<std::uint32_t>, std::vector<std::uint64_t>> brute_counts(const Dag& g, pos_t s) {
  std::vector<std::vector<pos_t>> out(g.n);
  for (pos_t i = 0; i < g.n; ++i)
    for (pos_t j : g.b_in[i]) out[j].push_back(i);
  std::vector<std::map<std::uint32_t, std::uint64_t>> by_len(g.n);
  if (g.mode == AMode::Explicit) {
    for (pos_t i = s; i < g.n; ++i)
      if (g.a_in[i].count(s)) enumerate(out, i, i == s ? 0 : 1, by_len);
  } else {
    enumerate(out, s, 0, by_len);
  }
  std::vector<std::uint32_t> d(g.n, INF);
  std::vector<std::uint64_t> c(g.n, 0);
  for (pos_t i = 0; i < g.n; ++i)
    if (!by_len[i].empty()) {
      d[i] = by_len[i].begin()->first;
      c[i] = by_len[i].begin()->second;
    }
  return {d, c};
}

/// Summary figures from full per-source distance rows ref[j][i] = d(i, j).
DistanceSummary brute_summary(const std::vector<std::vector<std::uint32_t>>& ref) {
  DistanceSummary s;
  const pos_t n = static_cast<pos_t>(ref.size());
  s.n = n;
  s.histogram.assign(1, 0);
  s.eccentricity.assign(n, 0);
  double sum = 0;
  for (pos_t j = 0; j < n; ++j)
    for (pos_t i = j + 1; i < n; ++i) {
      const auto d = ref[j][i];
      if (d == INF) {
        ++s.unreachable_pairs;
        continue;
      }
      if (s.histogram.size() <= d) s.histogram.resize(d + 1, 0);
      ++s.histogram[d];
      ++s.reachable_pairs;
      sum += d;
      s.diameter = std::max(s.diameter, d);
      s.eccentricity[j] = std::max(s.eccentricity[j], d);
    }
  s.mean_distance = s.reachable_pairs ? sum / static_cast<double>(s.reachable_pairs) : 0;
  return s;
}

void expect_same_summary(const DistanceSummary& got, const DistanceSummary& want, const std::string& what) {
  EXPECT_EQ(got.diameter, want.diameter) << what;
  EXPECT_EQ(got.histogram, want.histogram) << what;
  EXPECT_EQ(got.reachable_pairs, want.reachable_pairs) << what;
  EXPECT_EQ(got.unreachable_pairs, want.unreachable_pairs) << what;
  EXPECT_NEAR(got.mean_distance, want.mean_distance, 1e-9 * std::max(1.0, want.mean_distance)) << what;
  EXPECT_EQ(got.eccentricity, want.eccentricity) << what;
}

std::vector<pos_t> random_offsets(std::mt19937_64& rng, std::size_t k, pos_t hi, pos_t step = 1) {
  std::set<pos_t> s;
  k = std::min<std::size_t>(k, std::max<pos_t>(1, hi / step));
  while (s.size() < k) s.insert(static_cast<pos_t>(step * (1 + rng() % std::max<pos_t>(1, hi / step))));
  return {s.begin(), s.end()};
}

std::string offsets_spec(const std::vector<pos_t>& o) {
  std::string s = "offsets:";
  for (std::size_t k = 0; k < o.size(); ++k) {
    if (k) s += ',';
    s += std::to_string(o[k]);
  }
  return s;
}

const ProfileMethod kMethods[] = {ProfileMethod::Auto, ProfileMethod::BitsetBfs, ProfileMethod::Dp};

}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Profiles

TEST(DistanceProfile, Pow2IsPopcountEveryMethod) {
  const pos_t n = 70000;  // spans three bitset tiles
  const Pattern p = make_pattern("pow2", n);
  for (auto m : kMethods) {
    const auto prof = distance_profile(p, m);
    ASSERT_EQ(prof.size(), n);
    for (pos_t k = 0; k < n; ++k)
      ASSERT_EQ(prof[k], static_cast<std::uint32_t>(std::popcount(k))) << "m = " << k << " " << to_string(m);
  }
}

TEST(DistanceProfile, Sq1NeverAboveFourFirstFourAt58) {
  const pos_t n = 6000;
  const Pattern p = make_pattern("sq1", n);
  // reference: which m are sums of at most 1, 2, 3 elements of {k^2 + 1}
  std::vector<pos_t> f;
  for (pos_t k = 0; k * k + 1 < n; ++k) f.push_back(k * k + 1);
  std::vector<std::uint32_t> ref(n, 4);
  ref[0] = 0;
  for (pos_t a : f) {
    ref[a] = std::min(ref[a], 1u);
    for (pos_t b : f) {
      if (a + b < n) ref[a + b] = std::min(ref[a + b], 2u);
      for (pos_t c : f)
        if (a + b + c < n) ref[a + b + c] = std::min(ref[a + b + c], 3u);
    }
  }
  for (auto m : kMethods) {
    const auto prof = distance_profile(p, m);
    pos_t first4 = 0;
    for (pos_t k = 0; k < n; ++k) {
      ASSERT_EQ(prof[k], ref[k]) << "m = " << k;
      ASSERT_LE(prof[k], 4u);
      if (prof[k] == 4 && !first4) first4 = k;
    }
    EXPECT_EQ(first4, 58u);
  }
}

TEST(DistanceProfile, RandomOffsetSetsMatchBoostBfs) {
  std::mt19937_64 rng(3);
  for (int t = 0; t < 40; ++t) {
    const pos_t n = static_cast<pos_t>(8 + rng() % (t < 30 ? 3000 : 90000));
    const std::size_t k = 1 + rng() % 10;
    const pos_t step = t % 5 == 0 ? 3 : 1;  // gcd 3: two thirds unreachable
    auto offs = random_offsets(rng, k, t % 3 == 0 ? std::max<pos_t>(6, n / 50) : n - 4, step);
    const Pattern p = make_pattern(offsets_spec(offs), n);
    const auto ref = boost_bfs(build_comm_graph(p), 0);
    // the same graph as an explicit CSR pattern: its single-source pass (no offsets, no profile)
    Pattern q = p;
    q.family = PatternFamily::Matrix;
    q.b = b_csr(p);
    q.b_offsets.clear();
    ASSERT_EQ(single_source_distances(q, 0), ref) << offsets_spec(offs) << " n = " << n;
    for (auto m : kMethods) {
      const auto prof = distance_profile(p, m);
      for (pos_t x = 0; x < n; ++x)
        ASSERT_EQ(prof[x], ref[x]) << offsets_spec(offs) << " n = " << n << " m = " << x << " "
                                   << to_string(m);
    }
  }
}

TEST(DistanceProfile, DeepPatternsWidenStorage) {
  // ssm: delta(m) = m; values past 255 and 65535 widen the storage; Auto falls back to the DP
  const pos_t n = 70000;
  const Pattern p = make_pattern("ssm", n);
  for (auto m : kMethods) {
    if (m == ProfileMethod::BitsetBfs) continue;  // 70000 levels: correct but slow
    const auto prof = distance_profile(p, m);
    EXPECT_EQ(prof.width(), 4);
    for (pos_t k = 0; k < n; ++k) ASSERT_EQ(prof[k], k);
  }
  const Pattern w = make_pattern("window:3", 3000);
  const auto ref = boost_bfs(build_comm_graph(w), 0);
  for (auto m : kMethods) {
    const auto prof = distance_profile(w, m);
    EXPECT_EQ(prof.width(), 2);
    for (pos_t k = 0; k < w.n; ++k) ASSERT_EQ(prof[k], ref[k]);
  }
}

TEST(DistanceProfile, AOnlyPatternsAreOneHopOrUnreachable) {
  const Pattern l = make_pattern("local:5", 40);
  const auto pl = distance_profile(l);
  for (pos_t m = 0; m < 40; ++m) EXPECT_EQ(pl[m], m == 0 ? 0u : (m <= 5 ? 1u : INF)) << m;
  const Pattern a = make_pattern("attention", 40);
  const auto pa = distance_profile(a);
  for (pos_t m = 0; m < 40; ++m) EXPECT_EQ(pa[m], m == 0 ? 0u : 1u);
  EXPECT_THROW(distance_profile(make_pattern("pow2+cache", 64)), UsageError);
}

// ---------------------------------------------------------------------------------------------------------
// Single source / target

TEST(SingleSource, TranslationInvariantMatchesBoost) {
  std::mt19937_64 rng(5);
  for (const std::string spec : {"pow2", "sq1", "offsets:3,7", "window:4", "fib", "ssm"}) {
    const Pattern p = make_pattern(spec, 700);
    const CommGraph g = build_comm_graph(p);
    for (int t = 0; t < 5; ++t) {
      const pos_t s = static_cast<pos_t>(rng() % p.n);
      auto ref = boost_bfs(g, s);
      EXPECT_EQ(single_source_distances(p, s), ref) << spec << " source " << s;
      // target: d(t, j) from the BFS of every j
      const pos_t tg = static_cast<pos_t>(rng() % p.n);
      std::vector<std::uint32_t> want(p.n);
      for (pos_t j = 0; j < p.n; ++j) want[j] = boost_bfs(g, j)[tg];
      EXPECT_EQ(single_target_distances(p, tg), want) << spec << " target " << tg;
    }
  }
}

TEST(SingleSource, RandomMasksMatchLayeredBfs) {
  std::mt19937_64 rng(7);
  for (int t = 0; t < 60; ++t) {
    const pos_t n = static_cast<pos_t>(1 + rng() % 120);
    const AMode mode = t % 3 == 0 ? AMode::Explicit : (t % 3 == 1 ? AMode::Shared : AMode::Diagonal);
    const Dag g = random_dag(rng, n, 0.02 + 0.1 * (t % 4), 0.05, mode);
    const Pattern p = to_pattern(g);
    std::vector<std::vector<std::uint32_t>> ref(n);
    const CommGraph cg = build_comm_graph(p);
    for (pos_t s = 0; s < n; ++s) {
      ref[s] = layered_bfs(g, s);
      ASSERT_EQ(single_source_distances(p, s), ref[s]) << "case " << t << " source " << s;
      if (mode != AMode::Explicit) {
        ASSERT_EQ(boost_bfs(cg, s), ref[s]) << "reference check, case " << t;
      }
    }
    for (pos_t i = 0; i < n; ++i) {
      std::vector<std::uint32_t> want(n);
      for (pos_t j = 0; j < n; ++j) want[j] = ref[j][i];
      ASSERT_EQ(single_target_distances(p, i), want) << "case " << t << " target " << i;
    }
  }
}

TEST(SingleSource, OutOfRangeIsUsageError) {
  const Pattern p = make_pattern("pow2", 10);
  EXPECT_THROW(single_source_distances(p, 10), UsageError);
  EXPECT_THROW(single_target_distances(p, 10), UsageError);
}

// ---------------------------------------------------------------------------------------------------------
// All pairs

TEST(AllPairs, RandomMasksMatchPerSourceBruteForce) {
  std::mt19937_64 rng(11);
  for (int t = 0; t < 24; ++t) {
    const pos_t n = static_cast<pos_t>(1 + rng() % 400);
    const AMode mode = t % 3 == 0 ? AMode::Explicit : (t % 3 == 1 ? AMode::Shared : AMode::Diagonal);
    const Dag g = random_dag(rng, n, t % 2 ? 0.01 : 0.3, 0.02, mode, t % 4 == 0 ? 6 : 0);
    const Pattern p = to_pattern(g);
    std::vector<std::vector<std::uint32_t>> ref(n);
    for (pos_t s = 0; s < n; ++s) ref[s] = layered_bfs(g, s);
    const auto want = brute_summary(ref);
    for (unsigned spb : {64u, 128u, 256u, 512u})
      for (int threads : {1, 2}) {
        AllPairsOptions o;
        o.sources_per_block = spb;
        o.threads = threads;
        std::vector<std::uint32_t> matrix;
        o.matrix = &matrix;
        const auto got = all_pairs_summary(p, o);
        expect_same_summary(got, want, "case " + std::to_string(t) + " spb " + std::to_string(spb));
        for (pos_t i = 0; i < n; ++i)
          for (pos_t j = 0; j < n; ++j) ASSERT_EQ(matrix[std::size_t{i} * n + j], ref[j][i]) << i << "," << j;
      }
  }
}

TEST(AllPairs, TranslationInvariantAgreesWithProfileAndBoost) {
  for (const std::string spec :
       {"pow2", "sq1", "offsets:2,3", "offsets:4,6", "local:5", "attention", "ssm", "window:3", "fib"}) {
    const Pattern p = make_pattern(spec, 333);
    const auto from_profile = summary_from_profile(distance_profile(p), p.n);
    const auto all = all_pairs_summary(p);
    expect_same_summary(all, from_profile, spec);
    if (p.b_empty()) continue;
    const CommGraph g = build_comm_graph(p);
    std::vector<std::vector<std::uint32_t>> ref(p.n);
    for (pos_t s = 0; s < p.n; ++s) ref[s] = boost_bfs(g, s);
    expect_same_summary(from_profile, brute_summary(ref), spec + " vs Boost");
  }
}

TEST(AllPairs, CacheEfficientMatchesBoost) {
  for (const std::string spec : {"pow2+cache", "sq1+cache", "expr:3^k+cache", "local:3+cache"}) {
#ifndef MIXGRAPH_HAVE_MUPARSER
    if (spec.rfind("expr:", 0) == 0) continue;
#endif
    const Pattern p = make_pattern(spec, 777);
    std::vector<std::vector<std::uint32_t>> ref(p.n);
    if (p.a_mode == AMode::Explicit) {
      Dag g;  // the A-only pattern as edge lists
      g.n = p.n;
      g.mode = AMode::Explicit;
      g.b_in.resize(p.n);
      g.a_in.resize(p.n);
      for (pos_t i = 0; i < p.n; ++i)
        for (pos_t j : p.a.row(i)) g.a_in[i].insert(j);
      for (pos_t s = 0; s < p.n; ++s) ref[s] = layered_bfs(g, s);
    } else {
      const CommGraph g = build_comm_graph(p);
      for (pos_t s = 0; s < p.n; ++s) ref[s] = boost_bfs(g, s);
    }
    expect_same_summary(all_pairs_summary(p), brute_summary(ref), spec);
    expect_same_summary(distance_summary(p), brute_summary(ref), spec);
  }
}

TEST(AllPairs, BadBlockSizeIsUsageError) {
  AllPairsOptions o;
  o.sources_per_block = 32;
  EXPECT_THROW(all_pairs_summary(make_pattern("pow2+cache", 16), o), UsageError);
}

// ---------------------------------------------------------------------------------------------------------
// Path counts

TEST(PathCounts, RandomSmallDagsMatchEnumeration) {
  std::mt19937_64 rng(13);
  for (int t = 0; t < 60; ++t) {
    const pos_t n = static_cast<pos_t>(1 + rng() % 16);
    const AMode mode = t % 3 == 0 ? AMode::Explicit : (t % 3 == 1 ? AMode::Shared : AMode::Diagonal);
    const Dag g = random_dag(rng, n, 0.35, 0.3, mode);
    const Pattern p = to_pattern(g);
    for (pos_t s = 0; s < n; ++s) {
      const auto [d, c] = brute_counts(g, s);
      const auto got = shortest_path_counts(p, s);
      ASSERT_EQ(got.dist, d) << "case " << t << " source " << s;
      ASSERT_EQ(got.count, c) << "case " << t << " source " << s;
      EXPECT_FALSE(got.overflow);
      EXPECT_EQ(got.dist, layered_bfs(g, s));
    }
  }
}

TEST(PathCounts, Pow2HasPopcountFactorialPaths) {
  const Pattern p = make_pattern("pow2", 1024);
  const auto r = shortest_path_counts(p, 0);
  for (pos_t m = 0; m < p.n; ++m) {
    std::uint64_t f = 1;
    for (int k = 2; k <= std::popcount(m); ++k) f *= static_cast<std::uint64_t>(k);
    ASSERT_EQ(r.count[m], f) << m;
  }
  const auto r2 = shortest_path_counts(p, 1000);
  EXPECT_EQ(r2.count[1000 + 7], 6u);
  EXPECT_EQ(r2.count[999], 0u);
}

TEST(PathCounts, SaturatesWithOverflowFlag) {
  // layers of width 16, complete between consecutive layers: 16^(L-1) shortest paths to the last layer
  auto layered = [](pos_t layers) {
    Dag g;
    const pos_t w = 16;
    g.n = 1 + w * layers;
    g.mode = AMode::Shared;
    g.b_in.resize(g.n);
    g.a_in.resize(g.n);
    for (pos_t v = 1; v <= w; ++v) g.b_in[v].insert(0);
    for (pos_t l = 1; l < layers; ++l)
      for (pos_t a = 0; a < w; ++a)
        for (pos_t b = 0; b < w; ++b) g.b_in[1 + l * w + b].insert(1 + (l - 1) * w + a);
    return g;
  };
  const auto ok = shortest_path_counts(to_pattern(layered(16)), 0);
  EXPECT_FALSE(ok.overflow);
  EXPECT_EQ(ok.count.back(), std::uint64_t{1} << 60);
  const auto big = shortest_path_counts(to_pattern(layered(18)), 0);
  EXPECT_TRUE(big.overflow);
  EXPECT_EQ(big.count.back(), UINT64_MAX);
}

// ---------------------------------------------------------------------------------------------------------
// Copy distance and path-length tables

TEST(CopyDistance, MatchesBruteForce) {
  for (const std::string spec : {"pow2", "sq1", "pow2+cache", "sq1+cache", "offsets:2", "local:4"}) {
    for (pos_t N : {7u, 64u, 100u}) {
      const Pattern p = make_pattern(spec, 2 * N);
      std::uint32_t want = 0;
      for (pos_t j = 0; j < N; ++j) {
        std::uint32_t d;
        if (p.a_mode == AMode::Explicit) {
          d = N <= 4 ? 1 : INF;  // local:4 reads 4 back at most
        } else {
          d = boost_bfs(build_comm_graph(p), j)[j + N];
        }
        want = (d == INF || want == INF) ? INF : std::max(want, d);
      }
      EXPECT_EQ(copy_distance(p, N), want) << spec << " N = " << N;
    }
  }
  EXPECT_THROW(copy_distance(make_pattern("pow2", 10), 6), UsageError);
}

TEST(PathLengthTable, Pow2RowsMatchPopcountFormulas) {
  const std::vector<std::uint64_t> ns = {16, 100, 1000, 4096, 50000};
  const auto t = path_length_table("pow2", ns);
  ASSERT_EQ(t.rows.size(), ns.size());
  for (std::size_t k = 0; k < ns.size(); ++k) {
    const auto n = ns[k];
    std::uint32_t dia = 0;
    double sum = 0;
    for (std::uint64_t m = 1; m < n; ++m) {
      dia = std::max<std::uint32_t>(dia, static_cast<std::uint32_t>(std::popcount(m)));
      sum += static_cast<double>(std::popcount(m)) * static_cast<double>(n - m);
    }
    EXPECT_EQ(t.rows[k].diameter, dia) << n;
    EXPECT_EQ(t.rows[k].copy_distance, static_cast<std::uint32_t>(std::popcount(n))) << n;
    EXPECT_NEAR(t.rows[k].mean_distance, sum / (static_cast<double>(n) * (n - 1) / 2), 1e-9) << n;
  }
  EXPECT_EQ(t.diameter_growth, "O(log n)");
  const auto s = path_length_table("ssm", {64, 128, 256, 512});
  EXPECT_EQ(s.diameter_growth, "O(n)");
  EXPECT_EQ(s.copy_growth, "O(n)");
}

TEST(PathLengthTable, CacheEfficientUsesAllPairsAndRefusesLargeN) {
  const auto t = path_length_table("pow2+cache", {32, 64, 128});
  for (const auto& r : t.rows) {
    const Pattern p = make_pattern("pow2+cache", r.n);
    const CommGraph g = build_comm_graph(p);
    std::vector<std::vector<std::uint32_t>> ref(p.n);
    for (pos_t s = 0; s < p.n; ++s) ref[s] = boost_bfs(g, s);
    const auto want = brute_summary(ref);
    EXPECT_EQ(r.diameter, want.diameter);
    EXPECT_NEAR(r.mean_distance, want.mean_distance, 1e-9);
    EXPECT_FALSE(r.from_profile);
  }
  EXPECT_THROW(path_length_table("pow2+cache", {1 << 10}, {}, 512), UsageError);
}

// ---------------------------------------------------------------------------------------------------------
// CLI end to end

namespace {

using mixgraph::test::run_cli;

nlohmann::json run_json(const std::string& args) {
  const auto r = run_cli("distances " + args + " --format json");
  EXPECT_EQ(r.code, 0) << args;
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST(Cli, JsonProfileAndSource) {
  const auto j = run_json("--pattern pow2 --n 100 --source 3");
  EXPECT_EQ(j["schema"], "mixgraph.distances/1");
  ASSERT_EQ(j["profile"].size(), 100u);
  for (int m = 0; m < 100; ++m)
    EXPECT_EQ(j["profile"][m].get<int>(), std::popcount(static_cast<unsigned>(m)));
  EXPECT_EQ(j["source"], 3);
  ASSERT_EQ(j["dist"].size(), 100u);
  EXPECT_TRUE(j["dist"][0].is_null());
  EXPECT_TRUE(j["dist"][1].is_null());
  EXPECT_EQ(j["dist"][2], 0);
  EXPECT_EQ(j["dist"][2 + 7], 3);  // position 10 = 3 + 7
  EXPECT_EQ(j["diameter"], 6);
  EXPECT_EQ(j["unreachable_pairs"], 0);
  EXPECT_EQ(j["histogram"].size(), 7u);
  EXPECT_EQ(j["eccentricity"].size(), 100u);
}

TEST(Cli, NonTranslationInvariantRunsAllPairsAndAdvisesBeyond2To14) {
  const auto j = run_json("--pattern sq1+cache --n 300 --summary");
  EXPECT_EQ(j["figures_from"], "all-pairs");
  EXPECT_FALSE(j.contains("eccentricity"));
  EXPECT_FALSE(j.contains("profile"));
  const Pattern p = make_pattern("sq1+cache", 300);
  const CommGraph g = build_comm_graph(p);
  std::vector<std::vector<std::uint32_t>> ref(p.n);
  for (pos_t s = 0; s < p.n; ++s) ref[s] = boost_bfs(g, s);
  const auto want = brute_summary(ref);
  EXPECT_EQ(j["diameter"].get<std::uint32_t>(), want.diameter);
  EXPECT_EQ(j["histogram"].get<std::vector<std::uint64_t>>(), want.histogram);
  const auto refused = run_cli("distances --pattern pow2+cache --n 2^15");
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.err.find("--all-pairs"), std::string::npos) << refused.err;
  EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1) << refused.err;
  EXPECT_EQ(run_cli("distances --pattern pow2+cache --n 2^15 --source 5 --format json").code, 0);
}

TEST(Cli, BadInputExitCodes) {
  EXPECT_EQ(run_cli("distances --pattern nosuch --n 10").code, 2);
  EXPECT_EQ(run_cli("distances --pattern pow2 --n 10 --source 0").code, 2);
  EXPECT_EQ(run_cli("distances --pattern pow2 --n 10 --source 11").code, 2);
  EXPECT_EQ(run_cli("distances --pattern pow2 --n 10 --target x").code, 2);
  EXPECT_EQ(run_cli("distances --pattern pow2").code, 2);
  EXPECT_EQ(run_cli("distances --pattern pow2 --pattern sq1 --n 10").code, 2);
  EXPECT_EQ(run_cli("distances --pattern pow2 --n 10 --counts").code, 2);
  EXPECT_EQ(run_cli("distances --pattern mtx:/nonexistent/b.mtx").code, 3);
  EXPECT_EQ(run_cli("distances --pattern pow2 --n 10 --method fast").code, 2);
}

TEST(Cli, MatrixFileAndMtxPattern) {
  const auto dir = std::filesystem::temp_directory_path() / ("mixgraph_dist_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // a random B mask as a .mtx file
  std::mt19937_64 rng(17);
  const pos_t n = 50;
  const Dag g = random_dag(rng, n, 0.08, 0, AMode::Shared);
  std::size_t nnz = 0;
  for (const auto& r : g.b_in) nnz += r.size();
  const auto mtx = (dir / "b.mtx").string();
  {
    std::ofstream f(mtx);
    f << "%%MatrixMarket matrix coordinate pattern general\n" << n << " " << n << " " << nnz << "\n";
    for (pos_t i = 0; i < n; ++i)
      for (pos_t j : g.b_in[i]) f << i + 1 << " " << j + 1 << "\n";
  }
  const auto mfile = (dir / "m.csv").string();
  const auto j = run_json("--pattern mtx:" + mtx + " --matrix " + mfile + " --source 1 --counts");
  std::ifstream in(mfile);
  std::string line;
  for (pos_t i = 0; i < n; ++i) {
    ASSERT_TRUE(std::getline(in, line));
    std::stringstream ss(line);
    std::string cell;
    for (pos_t c = 0; c < n; ++c) {
      ASSERT_TRUE(std::getline(ss, cell, ','));
      const auto want = layered_bfs(g, c)[i];
      EXPECT_EQ(cell, want == INF ? "inf" : std::to_string(want)) << i << "," << c;
    }
  }
  const auto ref = layered_bfs(g, 0);
  const auto [d, c] = brute_counts(g, 0);
  for (pos_t i = 0; i < n; ++i) {
    if (ref[i] == INF) {
      EXPECT_TRUE(j["dist"][i].is_null());
      EXPECT_TRUE(j["path_counts"][i].is_null());
    } else {
      EXPECT_EQ(j["dist"][i].get<std::uint32_t>(), ref[i]);
      EXPECT_EQ(j["path_counts"][i].get<std::uint64_t>(), c[i]);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(Cli, SweepSideBySide) {
  const auto j = run_json("--pattern pow2 --pattern ssm --pattern pow2+cache --sweep 16..256");
  ASSERT_EQ(j["sweep"].size(), 3u);
  EXPECT_EQ(j["sweep"][0]["pattern"], "pow2");
  EXPECT_EQ(j["sweep"][0]["rows"].size(), 5u);
  EXPECT_EQ(j["sweep"][1]["growth"]["diameter"]["class"], "O(n)");
  for (const auto& r : j["sweep"][1]["rows"]) {
    EXPECT_EQ(r["diameter"].get<std::uint64_t>(), r["n"].get<std::uint64_t>() - 1);
    EXPECT_EQ(r["copy_distance"].get<std::uint64_t>(), r["n"].get<std::uint64_t>());
  }
  const auto c = run_cli("distances --pattern pow2 --pattern sq1 --sweep 16..64 --format csv");
  EXPECT_EQ(c.code, 0);
  EXPECT_NE(c.out.find("pattern,n,diameter,copy_distance"), std::string::npos);
}

TEST(DistanceRoute, TheProfileRouteGivesTheAllPairsFiguresWhereverItIsChosen) {
  for (const std::string spec :
       {"pow2", "sq1", "ssm", "local:4", "attention", "offsets:1,5,6", "pow2+cache", "sq1+cache"})
    for (pos_t n : {1u, 17u, 300u}) {
      SCOPED_TRACE(spec + " n=" + std::to_string(n));
      const auto p = make_pattern(spec, n);
      const auto c = choose_distance_route(p, {});
      EXPECT_EQ(c.translation_invariant, profile_describes(p));
      if (c.route != DistanceRoute::Profile) {
        EXPECT_EQ(c.route, DistanceRoute::AllPairs);
        EXPECT_FALSE(profile_describes(p));
        continue;
      }
      const auto want = all_pairs_summary(p), got = summary_from_profile(distance_profile(p), n);
      EXPECT_EQ(got.diameter, want.diameter);
      EXPECT_EQ(got.histogram, want.histogram);
      EXPECT_EQ(got.reachable_pairs, want.reachable_pairs);
      EXPECT_EQ(got.unreachable_pairs, want.unreachable_pairs);
      EXPECT_EQ(got.eccentricity, want.eccentricity);
      EXPECT_NEAR(got.mean_distance, want.mean_distance, 1e-12 * (1 + want.mean_distance));
    }
}

TEST(DistanceRoute, AllPairsRunsByItselfOnlyUpToTheLimit) {
  const auto ask = [](bool all_pairs, bool matrix, bool lists) {
    DistanceRouteRequest q;
    q.all_pairs = all_pairs;
    q.matrix = matrix;
    q.lists = lists;
    return q;
  };
  const auto at = make_pattern("sq1+cache", kAutoAllPairsMax);
  const auto above = make_pattern("sq1+cache", kAutoAllPairsMax + 1);
  ASSERT_FALSE(profile_describes(above));
  EXPECT_EQ(choose_distance_route(at, {}).route, DistanceRoute::AllPairs);
  EXPECT_EQ(choose_distance_route(above, ask(true, false, false)).route, DistanceRoute::AllPairs);
  EXPECT_EQ(choose_distance_route(above, ask(false, true, false)).route, DistanceRoute::AllPairs);
  EXPECT_EQ(choose_distance_route(above, ask(false, false, true)).route, DistanceRoute::ListsOnly);
  try {
    DistanceRouteRequest q;
    q.pattern_text = "P";
    q.all_pairs_words = "ASK-ALL";
    q.one_row_words = "ASK-ROW";
    choose_distance_route(above, q);
    ADD_FAILURE() << "no refusal";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("pattern P is not translation-invariant", 0), 0u) << m;
    EXPECT_NE(m.find("ASK-ALL to run them anyway"), std::string::npos) << m;
    EXPECT_NE(m.find("ask ASK-ROW for one row"), std::string::npos) << m;
    EXPECT_NE(m.find("(n is " + std::to_string(kAutoAllPairsMax + 1) + ")"), std::string::npos) << m;
  }
  // a pattern the profile describes: the profile unless all-pairs or the matrix is asked for
  const auto ti = make_pattern("pow2", kAutoAllPairsMax + 1);
  EXPECT_EQ(choose_distance_route(ti, {}).route, DistanceRoute::Profile);
  EXPECT_EQ(choose_distance_route(ti, ask(false, false, true)).route, DistanceRoute::Profile);
  EXPECT_EQ(choose_distance_route(ti, ask(true, false, false)).route, DistanceRoute::AllPairs);
  EXPECT_EQ(choose_distance_route(ti, ask(false, true, false)).route, DistanceRoute::AllPairs);
}

TEST(DistanceRoute, ProfileMethodNamesRoundTrip) {
  for (ProfileMethod m : {ProfileMethod::Auto, ProfileMethod::BitsetBfs, ProfileMethod::Dp})
    EXPECT_EQ(profile_method_from(to_string(m)), m);
  for (const char* bad : {"", "Auto", "bfs", "dp "})
    EXPECT_FALSE(profile_method_from(bad).has_value()) << bad;
}
