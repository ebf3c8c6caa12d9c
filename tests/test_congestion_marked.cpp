// Copy-task congestion of marked unions (P@A|Q@B|R, docs/math.md §4) against references built here from the
// brute-force reads only (lib/src/pattern/pattern_bruteforce): the layered graph of §3 made explicit
// (x_j -> y_i for an A read, y_j -> y_i for a B read), copy distances by a 0-1 BFS on it, every reported
// routing walked hop by hop on it with its loads recounted, and for tiny N the exhaustive optimum over all
// its paths between the reported lower and upper bounds (equal to the integer program's value when GLPK is
// built in); the CLI's paths file walked on the same graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "mixgraph/congestion.hpp"
#include "stack_explicit.hpp"

using namespace mixgraph;
using namespace mixgraph::test;

namespace {

// Marked unions: parts read through A only, B only, both (@AB or unmarked), and one copy that is impossible
// for most inputs (B reads only the first token, A reaches one position on).
const std::vector<std::string> kMarked = {
    "window:8@A|sink:2@B",     "window:4@B|ssm@A",         "pow2@A|window:3@B",    "sink:2@B|local:3@A",
    "window:5@A|sink:2@B|ssm", "pow2+cache@B|window:2@AB", "sq1@AB|dilated:2,3@B", "ssm@B|block:3@A",
    "fib@B|window:2@A|sq1",    "local:2@A|sink:1@B"};

// The one-layer explicit graph: x_v = node v, y_v = node n + v.
std::size_t x_node(pos_t v) {
  return v;
}
std::size_t y_node(const Explicit& g, pos_t v) {
  return g.n + std::size_t{v};
}

/// d(i + N, i) for every input i: fewest hops x_i -> y_{i+N}, the diagonal x_v -> y_v costing 0 (0-1 BFS).
std::vector<std::uint32_t> ref_copy_distances(const Explicit& g, pos_t N) {
  std::vector<std::uint32_t> out(N, kUnreachable);
  for (pos_t i = 0; i < N; ++i) {
    std::vector<std::uint32_t> d(g.out.size(), kUnreachable);
    std::deque<std::size_t> q{x_node(i)};
    d[x_node(i)] = 0;
    while (!q.empty()) {
      const auto u = q.front();
      q.pop_front();
      for (auto v : g.out[u]) {
        const std::uint32_t w = (u < g.n && v == u + g.n) ? 0 : 1;
        if (d[u] + w < d[v]) {
          d[v] = d[u] + w;
          w ? q.push_back(v) : q.push_front(v);
        }
      }
    }
    out[i] = d[y_node(g, i + N)];
  }
  return out;
}

/// The hop u -> v of a path's position list on the explicit graph: the first out of x_u (an A read, or A's
/// diagonal at u then a B read), later ones B reads.
bool hop_ok(const Explicit& g, pos_t u, pos_t v, bool first) {
  if (!first) return g.edges.count({y_node(g, u), y_node(g, v)}) > 0;
  return g.edges.count({x_node(u), y_node(g, v)}) > 0 ||
         (g.edges.count({x_node(u), y_node(g, u)}) > 0 && g.edges.count({y_node(g, u), y_node(g, v)}) > 0);
}

/// Every kept path goes from i to i + N along the explicit graph; its recounted loads give the reported
/// loads and congestion.
void expect_routings_valid(const Explicit& g, pos_t N, const CongestionResult& r) {
  ASSERT_EQ(r.paths.size(), r.routings.size());
  for (std::size_t k = 0; k < r.paths.size(); ++k) {
    const auto& ro = r.paths[k];
    SCOPED_TRACE(ro.name);
    ASSERT_EQ(ro.ptr.size(), std::size_t{N} + 1);
    std::vector<std::uint32_t> load(g.n, 0);
    for (pos_t i = 0; i < N; ++i) {
      const auto b = ro.ptr[i], e = ro.ptr[i + 1];
      ASSERT_LT(b + 1, e) << "input " << i + 1;
      EXPECT_EQ(ro.nodes[b], i);
      EXPECT_EQ(ro.nodes[e - 1], i + N);
      std::vector<pos_t> seen;
      for (auto q = b; q < e; ++q) {
        if (q > b) {
          EXPECT_TRUE(hop_ok(g, ro.nodes[q - 1], ro.nodes[q], q == b + 1))
              << "input " << i + 1 << " hop " << q - b;
        }
        if (std::find(seen.begin(), seen.end(), ro.nodes[q]) == seen.end()) seen.push_back(ro.nodes[q]);
      }
      for (auto v : seen) ++load[v];
    }
    EXPECT_EQ(r.routings[k].loads, load);
    EXPECT_EQ(r.routings[k].congestion, *std::max_element(load.begin(), load.end()));
  }
}

CongestionOptions all_routings() {
  CongestionOptions o;
  o.routings_forced = true;
  o.keep_paths = true;
  o.lp = lp_built_in();
  return o;
}

}  // namespace

TEST(CongestionMarked, DistancesRoutingsAndBoundsFollowTheExplicitGraph) {
  int possible = 0, impossible = 0, exhaustive = 0;
  for (const auto& spec : kMarked)
    for (pos_t N = 3; N <= 8; ++N) {
      SCOPED_TRACE(spec + " N=" + std::to_string(N));
      const auto g = build_explicit({spec}, 2 * N);
      const auto d = ref_copy_distances(g, N);
      const auto r = analyse_congestion(spec, N, all_routings());
      // (a) copy distances
      std::vector<pos_t> unreachable;
      for (pos_t i = 0; i < N; ++i)
        if (d[i] == kUnreachable) unreachable.push_back(i);
      ASSERT_EQ(r.copy_possible, unreachable.empty());
      EXPECT_EQ(r.impossible_inputs, unreachable);
      if (!r.copy_possible) {
        ++impossible;
        continue;
      }
      ++possible;
      std::uint64_t sum = 0;
      for (auto x : d) sum += x;
      EXPECT_EQ(r.copy_distance, *std::max_element(d.begin(), d.end()));
      EXPECT_EQ(r.min_distance, *std::min_element(d.begin(), d.end()));
      EXPECT_EQ(r.distance_sum, sum);
      ASSERT_FALSE(r.lower_bounds.empty());
      EXPECT_EQ(r.lower_bounds[0].name, "prop47");
      EXPECT_EQ(r.lower_bounds[0].value,
                static_cast<std::uint32_t>((sum + N + 2 * N - 1) / (2 * N)));  // ceil(sum_i (d_i + 1) / 2N)
      // (b) every routing on the explicit graph
      ASSERT_FALSE(r.routings.empty());
      expect_routings_valid(g, N, r);
      ASSERT_TRUE(r.upper_bound.has_value());
      std::uint32_t best = UINT32_MAX;
      for (auto& s : r.routings) best = std::min(best, s.congestion);
      EXPECT_EQ(*r.upper_bound, best);
      EXPECT_LE(r.lower_bound, *r.upper_bound);
      // (c) the exhaustive optimum over every path of the explicit graph
      if (N > 4) continue;
      ++exhaustive;
      const std::uint32_t opt = brute_optimum(g, N);
      ASSERT_GT(opt, 0u);
      EXPECT_LE(r.lower_bound, opt);
      EXPECT_GE(*r.upper_bound, opt);
      if (r.optimal) {
        EXPECT_EQ(*r.upper_bound, opt);
      }
      for (auto& b : r.lower_bounds)
        if (b.name == "ip" && b.value) {
          EXPECT_EQ(*b.value, opt);
        }
    }
  EXPECT_GE(possible, 40);
  EXPECT_GE(impossible, 3);  // local:2@A|sink:1@B
  EXPECT_GE(exhaustive, 15);
}

TEST(CongestionMarked, MarksChangeTheCopyGraph) {
  // The references tell the parts' marks apart: reading the @A part through B too makes every copy possible.
  const pos_t N = 6;
  const auto marked = ref_copy_distances(build_explicit({"sink:2@B|window:3@A"}, 2 * N), N);
  const auto plain = ref_copy_distances(build_explicit({"sink:2|window:3"}, 2 * N), N);
  EXPECT_NE(marked, plain);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), kUnreachable), 0);
  EXPECT_GT(std::count(marked.begin(), marked.end(), kUnreachable), 0);
  EXPECT_FALSE(analyse_congestion("sink:2@B|window:3@A", N, all_routings()).copy_possible);
  EXPECT_TRUE(analyse_congestion("sink:2|window:3", N, all_routings()).copy_possible);
}

TEST(CongestionMarkedCli, PathsFileFollowsTheExplicitGraph) {
  char tmpl[] = "/tmp/mixgraph_marked_paths_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string file = std::string(tmpl) + "/paths.jsonl";
  const pos_t N = 6;
  for (const std::string spec : {"pow2@A|window:3@B", "window:5@A|sink:2@B|ssm", "ssm@B|block:3@A"})
    for (const std::string routing : {"random", "minmax"}) {
      SCOPED_TRACE(spec + " " + routing);
      const auto r = run_cli("congestion -p '" + spec + "' -N 6 --routing " + routing +
                             " --format json --output " + file);
      ASSERT_EQ(r.code, 0) << r.err;
      const auto j = nlohmann::json::parse(r.out);
      const auto g = build_explicit({spec}, 2 * N);
      std::vector<std::uint32_t> load(g.n, 0);
      std::ifstream in(file);
      std::string line;
      pos_t count = 0;
      while (std::getline(in, line)) {
        const auto p = nlohmann::json::parse(line);
        const auto path = p["path"].get<std::vector<pos_t>>();  // 1-indexed
        ASSERT_GE(path.size(), 2u);
        EXPECT_EQ(p["routing"], routing);
        EXPECT_EQ(p["input"], count + 1);
        EXPECT_EQ(p["hops"], path.size() - 1);
        EXPECT_EQ(path.front(), count + 1);
        EXPECT_EQ(path.back(), count + 1 + N);
        for (std::size_t k = 1; k < path.size(); ++k)
          EXPECT_TRUE(hop_ok(g, path[k - 1] - 1, path[k] - 1, k == 1))
              << "input " << count + 1 << " hop " << k;
        std::vector<pos_t> seen(path.begin(), path.end());
        std::sort(seen.begin(), seen.end());
        seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
        for (auto v : seen) ++load[v - 1];
        ++count;
      }
      EXPECT_EQ(count, N);
      bool found = false;
      for (const auto& ro : j["routings"])
        if (ro["name"] == routing) {
          found = true;
          EXPECT_EQ(ro["loads"].get<std::vector<std::uint32_t>>(), load);
          EXPECT_EQ(ro["congestion"], *std::max_element(load.begin(), load.end()));
        }
      EXPECT_TRUE(found);
    }
  std::filesystem::remove_all(tmpl);
}
