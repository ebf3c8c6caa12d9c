// Copy-task routings and congestion bounds, checked against independent references: brute force over
// every routing of tiny instances, a hand-written max-flow, closed forms (popcount), and the CLI.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_util.hpp"
#include "mixgraph/build_info.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/routing.hpp"

using namespace mixgraph;

namespace {

// ----------------------------------------------------------------------------- independent references

bool ref_b_reads(const Pattern& p, pos_t v, pos_t u) {
  bool f = false;
  for_each_b_read(p, v, [&](pos_t j) { f |= j == u; });
  return f;
}
bool ref_a_reads(const Pattern& p, pos_t v, pos_t u) {
  bool f = false;
  for_each_a_read(p, v, [&](pos_t j) { f |= j == u; });
  return f;
}
bool ref_first_hop(const Pattern& p, pos_t u, pos_t v) {
  return v > u && (ref_a_reads(p, v, u) || (ref_a_reads(p, u, u) && ref_b_reads(p, v, u)));
}

/// Every path x_i -> y_{i+N} of the layered DAG, as position lists (linear scans over the Pattern only).
std::vector<std::vector<pos_t>> all_paths(const Pattern& p, pos_t N, pos_t i) {
  std::vector<std::vector<pos_t>> out;
  std::vector<pos_t> cur{i};
  std::function<void(pos_t, bool)> rec = [&](pos_t u, bool first) {
    if (u == i + N) {
      out.push_back(cur);
      return;
    }
    for (pos_t v = u + 1; v <= i + N; ++v) {
      if (first ? ref_first_hop(p, u, v) : ref_b_reads(p, v, u)) {
        cur.push_back(v);
        rec(v, false);
        cur.pop_back();
      }
    }
  };
  rec(i, true);
  return out;
}

/// The true C(G): branch and bound over every routing (one path per input).
std::uint32_t brute_force_congestion(const Pattern& p, pos_t N) {
  std::vector<std::vector<std::vector<pos_t>>> paths(N);
  for (pos_t i = 0; i < N; ++i) {
    paths[i] = all_paths(p, N, i);
    if (paths[i].empty()) return 0;
  }
  std::vector<std::uint32_t> load(2 * N, 0);
  std::uint32_t best = N + 1;
  std::function<void(pos_t, std::uint32_t)> rec = [&](pos_t i, std::uint32_t cmax) {
    if (cmax >= best) return;
    if (i == N) {
      best = cmax;
      return;
    }
    for (auto& path : paths[i]) {
      std::uint32_t c = cmax;
      for (pos_t v : path) c = std::max(c, ++load[v]);
      rec(i + 1, c);
      for (pos_t v : path) --load[v];
    }
  };
  rec(0, 0);
  return best;
}

/// Max number of position-disjoint input -> output paths: Edmonds-Karp on a node-split graph, written
/// here from scratch (the library uses Boost's push-relabel).
pos_t ref_kappa(const Pattern& p, pos_t N) {
  const pos_t n = 2 * N;
  const int V = 2 * n + 2, S = 2 * n, T = 2 * n + 1;
  std::vector<std::map<int, int>> cap(V);
  auto add = [&](int a, int b) { cap[a][b] += 1, cap[b][a] += 0; };
  for (pos_t v = 0; v < n; ++v) add(v, n + v);
  for (pos_t i = 0; i < N; ++i) add(S, i);
  for (pos_t o = N; o < n; ++o) add(n + o, T);
  for (pos_t u = 0; u < n; ++u)
    for (pos_t v = u + 1; v < n; ++v)
      if (ref_b_reads(p, v, u) || (u < N && ref_first_hop(p, u, v))) add(n + u, v);
  pos_t flow = 0;
  while (true) {
    std::vector<int> prev(V, -1);
    std::deque<int> q{S};
    prev[S] = S;
    while (!q.empty() && prev[T] < 0) {
      int a = q.front();
      q.pop_front();
      for (auto& [b, c] : cap[a])
        if (c > 0 && prev[b] < 0) {
          prev[b] = a;
          q.push_back(b);
        }
    }
    if (prev[T] < 0) break;
    for (int b = T; b != S; b = prev[b]) {
      cap[prev[b]][b] -= 1;
      cap[b][prev[b]] += 1;
    }
    ++flow;
  }
  return flow;
}

CopyGraph copy_graph(const std::string& spec, pos_t N) {
  return make_copy_graph(make_pattern(spec, 2 * N), N);
}

const std::vector<std::string> kTiny = {"pow2",       "sq1",       "pow:3",     "fib",
                                        "window:2",   "ssm",       "dense",     "offsets:1,3",
                                        "pow2+cache", "sq1+cache", "attention", "offsets:2,3"};

}  // namespace

// ----------------------------------------------------------------------------- distances

TEST(CopyDistances, Pow2IsPopcount) {
  for (pos_t N : {1u, 5u, 7u, 12u, 100u, 1000u}) {
    auto d = copy_distances(copy_graph("pow2", N));
    for (auto x : d) EXPECT_EQ(x, static_cast<std::uint32_t>(std::popcount(N))) << N;
  }
}

TEST(CopyDistances, MatchBruteForceShortestPaths) {
  for (const auto& spec : kTiny)
    for (pos_t N = 1; N <= 7; ++N) {
      auto p = make_pattern(spec, 2 * N);
      auto d = copy_distances(make_copy_graph(p, N));
      for (pos_t i = 0; i < N; ++i) {
        std::uint32_t best = kUnreachable;
        for (auto& path : all_paths(p, N, i)) best = std::min<std::uint32_t>(best, path.size() - 1);
        EXPECT_EQ(d[i], best) << spec << " N=" << N << " i=" << i;
      }
    }
}

// ----------------------------------------------------------------------------- brute force vs everything

TEST(Congestion, BoundsAndRoutingsAgainstBruteForce) {
  CongestionOptions o;
  o.lp = true;
  for (const auto& spec : kTiny)
    for (pos_t N = 1; N <= 6; ++N) {
      const std::uint32_t truth = brute_force_congestion(make_pattern(spec, 2 * N), N);
      auto r = analyse_congestion(spec, N, o);
      SCOPED_TRACE(spec + " N=" + std::to_string(N));
      if (truth == 0) {
        EXPECT_FALSE(r.copy_possible);
        continue;
      }
      ASSERT_TRUE(r.copy_possible);
      EXPECT_LE(r.lower_bound, truth);
      for (auto& b : r.lower_bounds)
        if (b.value) {
          EXPECT_LE(*b.value, truth) << b.name;
        }
      for (auto& s : r.routings) EXPECT_GE(s.congestion, truth) << s.name;
      ASSERT_TRUE(r.congestion);
      EXPECT_GE(*r.congestion, truth);
      if (r.lp_value) {
        EXPECT_LE(*r.lp_value, truth + 1e-6);
      }
      if (build_info().glpk) {
        ASSERT_TRUE(r.lower_bounds[3].value) << "the IP should solve tiny instances";
        EXPECT_EQ(*r.lower_bounds[3].value, truth);  // GLPK's proven optimum = brute force
        EXPECT_EQ(*r.congestion, truth);             // the exact routing passes the checker
        EXPECT_TRUE(r.optimal);
      }
      if (r.prop48_bound) {
        EXPECT_LE(*r.upper_bound, *r.prop48_bound);
      }
      EXPECT_EQ(r.optimal, *r.congestion == r.lower_bound);
    }
}

TEST(Congestion, MinmaxReachesBruteForceOptimumOnTinyInstances) {
  CongestionOptions o;
  o.shift = o.random = false;
  o.minmax = true;
  o.routings_forced = true;
  int hits = 0, total = 0;
  for (const auto& spec : kTiny)
    for (pos_t N = 2; N <= 6; ++N) {
      const std::uint32_t truth = brute_force_congestion(make_pattern(spec, 2 * N), N);
      if (truth == 0) continue;
      auto r = analyse_congestion(spec, N, o);
      ASSERT_EQ(r.routings.size(), 1u);
      EXPECT_GE(r.routings[0].congestion, truth);
      ++total;
      hits += r.routings[0].congestion == truth;
    }
  EXPECT_GE(hits, total * 9 / 10) << hits << " of " << total;  // a heuristic: nearly always optimal here
}

TEST(Congestion, CutKappaMatchesReferenceMaxFlow) {
  for (const auto& spec : kTiny)
    for (pos_t N : {1u, 2u, 3u, 5u, 8u, 11u}) {
      auto p = make_pattern(spec, 2 * N);
      EXPECT_EQ(copy_cut_kappa(make_copy_graph(p, N)), ref_kappa(p, N)) << spec << " N=" << N;
    }
}

TEST(Congestion, LpSanity) {
  if (!lp_built_in()) GTEST_SKIP() << "GLPK not built in";
  for (const auto& spec : {"pow2", "sq1", "pow2+cache", "window:3"})
    for (pos_t N : {3u, 5u, 9u, 14u}) {
      auto g = copy_graph(spec, N);
      auto lp = lp_congestion(g, false);
      ASSERT_TRUE(lp.solved) << lp.status;
      EXPECT_LE(lp.dual_value, lp.value + 1e-6);
      EXPECT_NEAR(lp.dual_value, lp.value, 1e-4);
      const auto d = copy_distances(g);
      EXPECT_GE(lp.value + 1e-6, static_cast<double>(prop47_bound(d)) - 1.0);  // LP >= sum/2N > prop47 - 1
      if (N <= 5) {
        EXPECT_LE(lp.bound, brute_force_congestion(g.pattern, N)) << spec << " N=" << N;
      }
      const auto best = check_routing(g, g.ti ? shift_routing(g) : random_routing(g, 1)).congestion;
      EXPECT_LE(lp.value, best + 1e-6) << spec << " N=" << N;
    }
}

// ----------------------------------------------------------------------------- the paper's examples

TEST(Congestion, Pow3At777BeatsTheShiftRouting) {
  CongestionOptions o;
  auto r = analyse_congestion("pow:3", 777, o);
  ASSERT_TRUE(r.copy_possible);
  EXPECT_EQ(r.copy_distance, 5u);
  ASSERT_TRUE(r.prop48_bound);
  EXPECT_EQ(*r.prop48_bound, 5u);
  ASSERT_TRUE(r.congestion);
  EXPECT_LE(*r.congestion, 4u);
  EXPECT_EQ(r.best_routing, "minmax");
  EXPECT_GE(*r.congestion, r.lower_bound);
}

TEST(Congestion, Pow2PowerOfTwoIsOne) {
  for (pos_t N : {1u, 2u, 64u, 1024u}) {
    auto r = analyse_congestion("pow2", N, {});
    EXPECT_EQ(r.copy_distance, 1u);
    EXPECT_EQ(*r.congestion, 1u);
    EXPECT_TRUE(r.optimal);
  }
}

TEST(Congestion, SsmIsN) {
  for (pos_t N : {1u, 7u, 50u}) {
    auto r = analyse_congestion("ssm", N, {});
    EXPECT_EQ(r.copy_distance, N);
    EXPECT_EQ(*r.congestion, N);
    EXPECT_EQ(r.lower_bound, N);  // the cut bound: kappa = 1
    EXPECT_TRUE(r.optimal);
  }
}

TEST(Congestion, Pow2At1000IsBetweenFourAndSix) {
  auto r = analyse_congestion("pow2", 1000, {});
  EXPECT_EQ(r.copy_distance, 6u);
  EXPECT_EQ(*r.lower_bounds[0].value, 4u);  // ceil((6 + 1) / 2)
  EXPECT_EQ(*r.prop48_bound, 6u);
  EXPECT_GE(*r.congestion, 4u);
  EXPECT_LE(*r.congestion, 6u);
  for (auto& s : r.routings)
    if (s.name == "shift") {
      EXPECT_EQ(s.congestion, 6u);  // Prop. 4.8: exactly d
    }
}

TEST(Congestion, AttentionIsOneAndLocalWindowIsImpossible) {
  auto a = analyse_congestion("attention", 40, {});
  EXPECT_EQ(*a.congestion, 1u);
  EXPECT_TRUE(a.optimal);
  auto l = analyse_congestion("local:4", 7, {});
  EXPECT_FALSE(l.copy_possible);
  EXPECT_EQ(l.impossible_inputs.size(), 7u);
  EXPECT_NE(l.impossible_reason.find("B = 0"), std::string::npos);
  auto o = analyse_congestion("offsets:2", 7, {});
  EXPECT_FALSE(o.copy_possible);
  EXPECT_NE(o.impossible_reason.find("multiple of 2"), std::string::npos);
  EXPECT_TRUE(analyse_congestion("offsets:2", 8, {}).copy_possible);
}

TEST(Congestion, NoReportedCongestionBelowACertifiedBound) {
  CongestionOptions o;
  o.lp = lp_built_in();
  for (const auto& spec : {"pow2", "sq1", "window:3", "pow2+cache", "sq1+cache", "fib", "pow:3"})
    for (pos_t N : {9u, 13u, 24u}) {
      auto r = analyse_congestion(spec, N, o);
      for (auto& s : r.routings)
        for (auto& b : r.lower_bounds)
          if (b.value) {
            EXPECT_GE(s.congestion, *b.value) << spec << " N=" << N << " " << s.name << " " << b.name;
          }
    }
}

// ----------------------------------------------------------------------------- routings and checker

TEST(Routing, ShiftHasCongestionExactlyD) {
  for (const auto& spec : {"pow2", "sq1", "window:4", "fib", "pow:3"})
    for (pos_t N : {5u, 37u, 100u, 333u}) {
      auto g = copy_graph(spec, N);
      auto s = check_routing(g, shift_routing(g));
      EXPECT_EQ(s.congestion, copy_distances(g)[0]) << spec << " N=" << N;
      EXPECT_EQ(s.min_len, s.max_len);
    }
}

TEST(Routing, RandomIsShortestDeterministicAndRoughlyUniform) {
  for (const auto& spec : {"pow2", "sq1", "pow2+cache", "sq1+cache"}) {
    auto g = copy_graph(spec, 45);
    const auto d = copy_distances(g);
    auto a = random_routing(g, 7), b = random_routing(g, 7);
    EXPECT_EQ(a.nodes, b.nodes);
    auto s = check_routing(g, a);
    for (pos_t i = 0; i < g.N; ++i) EXPECT_EQ(a.ptr[i + 1] - a.ptr[i] - 1, d[i]);
    (void)s;
  }
  // pow2, N = 3: the shortest paths 0 -> 3 are 1+2 and 2+1; each should come up about half the time.
  auto g = copy_graph("pow2", 3);
  int first_one = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    auto r = random_routing(g, seed);
    first_one += r.nodes[1] == 1;  // input 1's path: 0 -> 1 -> 3
  }
  EXPECT_GT(first_one, 65);
  EXPECT_LT(first_one, 135);
}

TEST(Routing, CheckerRejectsBadPathsAndLoads) {
  auto g = copy_graph("pow2", 5);  // 5 = 4 + 1
  auto r = shift_routing(g);
  EXPECT_NO_THROW(check_routing(g, r));
  auto bad = r;
  bad.nodes[1] += 1;  // 0 -> 2? first hop of input 1 becomes 0 -> 2 (valid) but then 2 -> 5 is offset 3
  EXPECT_THROW(check_routing(g, bad), RuntimeFailure);
  bad = r;
  bad.loads[3] += 1;
  EXPECT_THROW(check_routing(g, bad), RuntimeFailure);
  bad = r;
  bad.nodes.back() -= 1;
  EXPECT_THROW(check_routing(g, bad), RuntimeFailure);
}

TEST(Routing, MinmaxNeverWorseThanItsStartAndValid) {
  for (const auto& spec : {"pow2", "sq1", "pow2+cache", "window:8", "fib"}) {
    auto g = copy_graph(spec, 200);
    auto start = g.ti ? shift_routing(g) : random_routing(g, 3);
    const auto c0 = check_routing(g, start).congestion;
    MinmaxOptions mo;
    auto m = minmax_routing(g, start, mo);
    EXPECT_LE(check_routing(g, m).congestion, c0) << spec;
  }
}

// ----------------------------------------------------------------------------- CLI end to end

namespace {
struct CliRun {
  int rc;
  std::string out;
};
CliRun cli(const std::string& args) {
  const std::string cmd = mixgraph::test::cli_path() + " " + args + " 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  std::size_t k;
  while ((k = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, k);
  const int st = pclose(f);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}
}  // namespace

TEST(CongestionCli, JsonFields) {
  auto r = cli("congestion --pattern pow2 --n 1000 --format json");
  ASSERT_EQ(r.rc, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "mixgraph.congestion/1");
  EXPECT_EQ(j["copy_possible"], true);
  EXPECT_EQ(j["copy_distance"], 6);
  EXPECT_EQ(j["prop48_bound"], 6);
  for (const char* k : {"prop47", "cut", "lp", "ip"}) EXPECT_TRUE(j["lower_bounds"].contains(k)) << k;
  EXPECT_EQ(j["lower_bounds"]["prop47"], 4);
  EXPECT_GE(j["lower_bound"].get<int>(), 4);
  EXPECT_LE(j["upper_bound"].get<int>(), 6);
  EXPECT_EQ(j["upper_bound"], j["congestion"]);
  std::vector<std::string> names;
  for (auto& x : j["routings"]) {
    names.push_back(x["name"]);
    EXPECT_EQ(x["loads"].size(), 2000u);
    EXPECT_GE(x["congestion"].get<int>(), j["lower_bound"].get<int>());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"shift", "random", "minmax"}));
  EXPECT_EQ(j["optimal"], j["congestion"] == j["lower_bound"]);
}

TEST(CongestionCli, ImpossibleCopy) {
  auto r = cli("congestion -p local:3 --n 10 --format json");
  ASSERT_EQ(r.rc, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["copy_possible"], false);
  EXPECT_TRUE(j["copy_distance"].is_null());
  EXPECT_TRUE(j["upper_bound"].is_null());
  EXPECT_EQ(j["impossible_inputs"].size(), 10u);
  EXPECT_EQ(j["optimal"], false);
}

TEST(CongestionCli, PathsExportIsValidJsonLines) {
  const auto file = std::filesystem::temp_directory_path() / "mixgraph_test_paths.jsonl";
  auto r = cli("congestion -p sq1 --n 57 --routing minmax --paths " + file.string() + " --format json");
  ASSERT_EQ(r.rc, 0);
  auto j = nlohmann::json::parse(r.out);
  std::ifstream in(file);
  std::string line;
  int count = 0;
  std::vector<int> load(114, 0);
  auto p = make_pattern("sq1", 114);
  while (std::getline(in, line)) {
    auto x = nlohmann::json::parse(line);
    ++count;
    EXPECT_EQ(x["routing"], "minmax");
    auto path = x["path"].get<std::vector<int>>();
    EXPECT_EQ(path.front(), x["input"].get<int>());
    EXPECT_EQ(path.back(), x["input"].get<int>() + 57);
    for (std::size_t k = 1; k < path.size(); ++k) EXPECT_TRUE(ref_b_reads(p, path[k] - 1, path[k - 1] - 1));
    for (int v : path) ++load[v - 1];
  }
  EXPECT_EQ(count, 57);
  EXPECT_EQ(*std::max_element(load.begin(), load.end()), j["routings"][0]["congestion"].get<int>());
  std::filesystem::remove(file);
}

TEST(CongestionCli, SweepTableAndErrors) {
  auto r = cli("congestion -p pow2 -p window:8 -p ssm --sweep 100,300,1000 --format json");
  ASSERT_EQ(r.rc, 0);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["rows"].size(), 9u);
  auto t = cli("congestion -p pow2 -p sq1 --sweep 100,1000");
  EXPECT_EQ(t.rc, 0);
  EXPECT_NE(t.out.find("optimal"), std::string::npos);
  EXPECT_EQ(cli("congestion -p pow2 --n 0").rc, 2);
  EXPECT_EQ(cli("congestion -p pow2 --n 10 --routing nope").rc, 2);
  EXPECT_EQ(cli("congestion -p pow2").rc, 2);
  EXPECT_EQ(cli("congestion -p nosuch --n 10").rc, 2);
  EXPECT_EQ(cli("congestion -p pow2 --sweep 10,20 --paths x.jsonl").rc, 2);
}

TEST(Congestion, ExplicitAMatrixPatternsAgainstBruteForce) {
  // A with its own reads (x_1 -> y_4, x_2 -> y_6, x_3 -> y_5) and no diagonal at 3 (so the B edge 3 -> 4
  // is no first hop of input 3); B a chain plus 2 -> 5.
  const auto dir = std::filesystem::temp_directory_path() / "mixgraph_test_congestion_mtx";
  std::filesystem::create_directories(dir);
  const auto a = dir / "A.mtx", b = dir / "B.mtx";
  std::ofstream(a)
      << "%%MatrixMarket matrix coordinate pattern general\n8 8 10\n1 1\n2 2\n4 1\n6 2\n5 3\n4 4\n5 5\n6 6\n"
         "7 7\n8 8\n";
  std::ofstream(b)
      << "%%MatrixMarket matrix coordinate pattern general\n8 8 8\n2 1\n3 2\n4 3\n5 4\n6 5\n7 6\n8 7\n5 2\n";
  for (const std::string& spec : {"mtx:" + a.string() + "," + b.string(), "mtx:" + b.string()}) {
    const auto p = make_pattern(spec, 0);
    const std::uint32_t truth = brute_force_congestion(p, 4);
    CongestionOptions o;
    o.lp = true;
    auto r = analyse_congestion(spec, 0, o);  // N = n / 2 = 4
    ASSERT_EQ(r.N, 4u);
    if (truth == 0) {
      EXPECT_FALSE(r.copy_possible) << spec;
      continue;
    }
    ASSERT_TRUE(r.copy_possible) << spec;
    auto d = copy_distances(make_copy_graph(p, 4));
    for (pos_t i = 0; i < 4; ++i) {
      std::uint32_t best = kUnreachable;
      for (auto& path : all_paths(p, 4, i)) best = std::min<std::uint32_t>(best, path.size() - 1);
      EXPECT_EQ(d[i], best) << spec << " i=" << i;
    }
    EXPECT_LE(r.lower_bound, truth) << spec;
    EXPECT_GE(*r.congestion, truth) << spec;
    if (lp_built_in()) {
      EXPECT_EQ(*r.congestion, truth) << spec;
    }
  }
  std::filesystem::remove_all(dir);
}
