// Copy-task congestion across stacked layers (docs/math.md §3, "Copy task across layers"): the one-layer
// stack against the plain pattern's analysis; at small n the exact optimum by exhaustive search over the
// paths of a stacked graph built here from the brute-force reads (lib/src/pattern/pattern_bruteforce), with
// lower <= optimum <= upper and every routing's hops checked against that graph; depth never raises the
// optimum; the CLI's formats and refusals.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/stack_congestion.hpp"
#include "stack_explicit.hpp"

using namespace mixgraph;
using namespace mixgraph::test;

namespace {

StackCongestionOptions stack_all_routings() {
  StackCongestionOptions o;
  o.routings_forced = true;
  o.keep_paths = true;
  return o;
}

}  // namespace

TEST(StackCongestion, OneLayerStackEqualsThePattern) {
  for (const std::string p : {"pow2", "sq1", "window:3", "ssm", "local:3", "sink:2|window:2", "pow2+cache",
                              "dilated:3,2", "strided:2,5", "block:4", "attention", "fib"})
    for (pos_t N : {5u, 13u, 40u}) {
      SCOPED_TRACE(p + " N=" + std::to_string(N));
      CongestionOptions co;
      co.routings_forced = true;
      const auto plain = analyse_congestion(p, N, co);
      const auto st = analyse_stack_congestion("stack:" + p, N, stack_all_routings());
      const auto& s = st.base;
      ASSERT_EQ(s.copy_possible, plain.copy_possible);
      EXPECT_EQ(s.impossible_inputs, plain.impossible_inputs);
      if (!plain.copy_possible) continue;
      EXPECT_EQ(s.copy_distance, plain.copy_distance);
      EXPECT_EQ(s.min_distance, plain.min_distance);
      EXPECT_EQ(s.distance_sum, plain.distance_sum);
      EXPECT_EQ(s.lower_bounds[0].value, plain.lower_bounds[0].value);  // prop47
      EXPECT_EQ(s.lower_bounds[1].value, plain.lower_bounds[1].value);  // cut
      EXPECT_EQ(s.kappa, plain.kappa);
      EXPECT_EQ(s.lower_bound, plain.lower_bound);
      EXPECT_EQ(s.prop48_bound, plain.prop48_bound);
      auto cong = [](const CongestionResult& r, const std::string& name) -> std::optional<std::uint32_t> {
        for (auto& x : r.routings)
          if (x.name == name) return x.congestion;
        return std::nullopt;
      };
      EXPECT_EQ(cong(s, "shift"), cong(plain, "shift"));
      // both are checked routings of the same problem: each is >= the other's certified lower bound
      ASSERT_TRUE(s.upper_bound && plain.upper_bound);
      EXPECT_GE(*s.upper_bound, plain.lower_bound);
      EXPECT_GE(*plain.upper_bound, s.lower_bound);
    }
}

TEST(StackCongestion, BoundsBracketTheExhaustiveOptimum) {
  const std::vector<std::string> stacks = {"stack:ssm,window:2",      "stack:local:2,local:2,local:2",
                                           "stack:pow2,ssm",          "stack:sink:1|local:2;ssm",
                                           "stack:window:2,window:2", "stack:local:3,ssm,local:2",
                                           "stack:pow2+cache,sq1",    "stack:block:3,window:2",
                                           "stack:offsets:2,3;ssm",   "stack:ssm"};
  int compared = 0;
  for (const auto& spec : stacks)
    for (pos_t N : {2u, 3u, 4u, 5u, 6u}) {
      SCOPED_TRACE(spec + " N=" + std::to_string(N));
      const auto g = build_explicit(stack_layer_specs(spec), 2 * N);
      const std::uint32_t opt = brute_optimum(g, N);
      const auto r = analyse_stack_congestion(spec, N, stack_all_routings());
      ASSERT_EQ(r.base.copy_possible, opt > 0);
      if (opt == 0) continue;
      ++compared;
      EXPECT_LE(r.base.lower_bound, opt);
      ASSERT_TRUE(r.base.upper_bound.has_value());
      EXPECT_GE(*r.base.upper_bound, opt);
      for (auto& s : r.base.routings) EXPECT_GE(s.congestion, opt) << s.name;
      if (r.base.optimal) {
        EXPECT_EQ(*r.base.upper_bound, opt);
      }
      expect_valid(g, N, r);
    }
  EXPECT_GT(compared, 25);
}

TEST(StackCongestion, DepthNeverRaisesTheOptimum) {
  // A second layer whose A has the diagonal carries every one-layer path along unchanged (same positions).
  for (const std::string p : {"pow2", "window:2", "ssm", "sq1", "sink:1|window:2", "pow2+cache", "local:3"})
    for (pos_t N : {2u, 3u, 4u, 5u}) {
      SCOPED_TRACE(p + " N=" + std::to_string(N));
      const auto one = brute_optimum(build_explicit({p}, 2 * N), N);
      const auto two = brute_optimum(build_explicit({p, p}, 2 * N), N);
      if (one == 0) continue;
      ASSERT_GT(two, 0u);
      EXPECT_LE(two, one);
      const auto r = analyse_stack_congestion("stack:" + p + "," + p, N, stack_all_routings());
      EXPECT_LE(r.base.lower_bound, one);  // certified for the deeper stack, so below its optimum
      EXPECT_LE(r.base.lower_bound, two);
    }
}

TEST(StackCongestion, CheckerRejectsABadHop) {
  const Stack s = make_stack("stack:ssm,window:2", 8);
  std::vector<pos_t> bad;
  StackRouting r = stack_random_routing(s, 4, 1, bad);
  ASSERT_TRUE(bad.empty());
  EXPECT_NO_THROW(check_stack_routing(s, 4, r));
  r.nodes[1] += 1;  // path of input 1: its first hop now skips a position through layer 1 (ssm: diagonal A)
  r.loads.clear();
  EXPECT_THROW(check_stack_routing(s, 4, r), RuntimeFailure);
}

TEST(StackCongestionCli, FormatsAndRefusals) {
  using mixgraph::test::run_cli;
  auto r = run_cli("congestion -p 'stack:ssm,window:4' -N 20 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["depth"], 2);
  EXPECT_EQ(j["layers"].size(), 2u);
  const auto lib = analyse_stack_congestion("stack:ssm,window:4", 20, StackCongestionOptions{});
  EXPECT_EQ(j["lower_bound"], lib.base.lower_bound);
  EXPECT_EQ(j["upper_bound"], *lib.base.upper_bound);
  r = run_cli("congestion -p 'stack:ssm,window:4' -N 20 --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 2);
  for (const std::string cmd :
       {"congestion -p 'stack:ssm,ssm' -N 8 --checkpoint x", "congestion -p 'stack:ssm' --sweep 4..8",
        "congestion -p 'stack:ssm' -p ssm -N 8", "congestion -p 'stack:ssm' -N 0"}) {
    r = run_cli(cmd);
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << cmd << ": " << r.err;
  }
}

TEST(StackCongestionCli, PathsFileFollowsTheStackedGraph) {
  using mixgraph::test::run_cli;
  char tmpl[] = "/tmp/mixgraph_stack_paths_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string file = std::string(tmpl) + "/paths.jsonl";
  const std::string spec = "stack:sink:1|local:2;ssm";
  const pos_t N = 5;
  auto r = run_cli("congestion -p '" + spec + "' -N 5 --routing random --output " + file);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto g = build_explicit(stack_layer_specs(spec), 2 * N);
  std::ifstream in(file);
  std::string line;
  pos_t count = 0;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    const auto path = j["path"].get<std::vector<std::size_t>>();
    const auto layers = j["layers"].get<std::vector<std::size_t>>();
    ASSERT_EQ(path.size(), layers.size());
    EXPECT_EQ(j["input"], count + 1);
    EXPECT_EQ(path.front(), count + 1);
    EXPECT_EQ(layers.front(), 0u);
    EXPECT_EQ(path.back(), count + 1 + N);
    EXPECT_EQ(layers.back(), g.L);
    for (std::size_t k = 1; k < path.size(); ++k)
      EXPECT_TRUE(g.edges.count({layers[k - 1] * g.n + path[k - 1] - 1, layers[k] * g.n + path[k] - 1}));
    ++count;
  }
  EXPECT_EQ(count, N);
  std::filesystem::remove_all(tmpl);
}

TEST(StackCongestion, RandomRoutingDoesNotDependOnThreads) {
  const Stack s = make_stack("stack:sink:2|window:3;ssm;window:2", 120);
  std::vector<pos_t> bad;
  omp_set_num_threads(1);
  const auto one = stack_random_routing(s, 60, 7, bad);
  omp_set_num_threads(2);
  const auto two = stack_random_routing(s, 60, 7, bad);
  EXPECT_EQ(one.nodes, two.nodes);
  EXPECT_EQ(one.copies, two.copies);
  EXPECT_EQ(one.ptr, two.ptr);
}
