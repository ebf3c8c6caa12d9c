// stack:P1,P2,... (docs/math.md §3, "Stacked layers"): distances against an explicit construction of the
// layered graph with a 0-1 BFS written here, the one-layer stack against the plain pattern on every analysis
// stacks support, the product operator's numeric rank against a dense Eigen product, the grammar and its
// refusals (library and CLI exit codes).
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include "../lib/src/pattern/pattern_bruteforce.hpp"
#include "cli_util.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/stack.hpp"
#include "stack_dense.hpp"

using namespace mixgraph;

namespace {

constexpr std::uint32_t kInf = UNREACHABLE;

/// The stacked graph, built here: node (l, i) = l * n + i; arcs with cost 0 (diagonal A) or 1.
struct Layered {
  pos_t n = 0;
  std::size_t L = 0;
  std::vector<std::vector<std::pair<std::size_t, int>>> out;  // node -> (head, cost)
};

/// Each layer's reads from the brute-force definitions where they cover the spec, else from the library.
Layered build_layered(const std::vector<std::string>& layers, pos_t n) {
  Layered g;
  g.n = n;
  g.L = layers.size();
  g.out.resize((g.L + 1) * n);
  for (std::size_t l = 1; l <= g.L; ++l) {
    std::vector<std::vector<pos_t>> a(n), b(n);
    if (auto bf = bruteforce_rows(layers[l - 1], n)) {
      a = bf->a;
      b = bf->b;
    } else {
      const auto p = make_pattern(layers[l - 1], n);
      for (pos_t i = 0; i < n; ++i) {
        for_each_a_read(p, i, [&](pos_t j) { a[i].push_back(j); });
        for_each_b_read(p, i, [&](pos_t j) { b[i].push_back(j); });
      }
    }
    for (pos_t i = 0; i < n; ++i) {
      for (pos_t j : a[i]) g.out[(l - 1) * n + j].push_back({l * n + i, j == i ? 0 : 1});
      for (pos_t j : b[i]) g.out[l * n + j].push_back({l * n + i, 1});
    }
  }
  return g;
}

/// 0-1 BFS from layer-0 copy of `source`; returns dist per node.
std::vector<std::uint32_t> bfs01(const Layered& g, pos_t source) {
  std::vector<std::uint32_t> d(g.out.size(), kInf);
  std::deque<std::size_t> q;
  d[source] = 0;
  q.push_back(source);
  while (!q.empty()) {
    const auto u = q.front();
    q.pop_front();
    for (auto [v, c] : g.out[u])
      if (d[u] + c < d[v]) {
        d[v] = d[u] + c;
        c ? q.push_back(v) : q.push_front(v);
      }
  }
  return d;
}

const std::vector<std::string>& stack_examples() {
  static const std::vector<std::string> e = {
      "stack:ssm,window:3",
      "stack:local:2,local:3,ssm",
      "stack:local:2,local:2,local:2,local:2",
      "stack:ssm,window:4,ssm,window:4",
      "stack:pow2+cache;sink:2|local:3;block:4",
      "stack:(ssm,window:2)*3",
      "stack:attention,ssm",
      "stack:dilated:2,3;strided:2,5;fib",
      "stack:block:4,local:2,block:3",
      "stack:sq1+cache,pow2",
      "stack:bigbird:2,1,1,7;local:2",
      "stack:offsets:2,3",
      "stack:offsets:3,offsets:2",
      "stack:offsets:2,5;offsets:3;local:1",
      "stack:window:2|dilated:2,5+cache;ssm",
  };
  return e;
}

}  // namespace

TEST(PatternStack, GrammarExpandsLayersAndRepetitions) {
  EXPECT_EQ(stack_layer_specs("stack:ssm,window:64,ssm,window:64"),
            (std::vector<std::string>{"ssm", "window:64", "ssm", "window:64"}));
  EXPECT_EQ(stack_layer_specs("stack:bigbird:4,1,2;ssm"), (std::vector<std::string>{"bigbird:4,1,2", "ssm"}));
  EXPECT_EQ(stack_layer_specs("stack:(ssm,window:8)*2,attention"),
            (std::vector<std::string>{"ssm", "window:8", "ssm", "window:8", "attention"}));
  EXPECT_EQ(stack_layer_specs("stack:(bigbird:4,1,2;(ssm)*2)*2"),
            (std::vector<std::string>{"bigbird:4,1,2", "ssm", "ssm", "bigbird:4,1,2", "ssm", "ssm"}));
  EXPECT_EQ(stack_layer_specs(" stack: pow2 "), (std::vector<std::string>{"pow2"}));
  // a piece that names no pattern ("3", "B.mtx") makes the whole comma list one spec
  EXPECT_EQ(stack_layer_specs("stack:offsets:2,3"), (std::vector<std::string>{"offsets:2,3"}));
  EXPECT_EQ(stack_layer_specs("stack:bigbird:2,1,1"), (std::vector<std::string>{"bigbird:2,1,1"}));
  EXPECT_EQ(stack_layer_specs("stack:mtx:A.mtx,B.mtx"), (std::vector<std::string>{"mtx:A.mtx,B.mtx"}));
  EXPECT_EQ(stack_layer_specs("stack:(offsets:1,4)*2;ssm"),
            (std::vector<std::string>{"offsets:1,4", "offsets:1,4", "ssm"}));
  EXPECT_EQ(stack_layer_specs("stack:window:2|sink:1,ssm+cache"),
            (std::vector<std::string>{"window:2|sink:1", "ssm+cache"}));
  const auto s = make_stack("stack:(ssm,window:8)*3", 50);
  EXPECT_EQ(s.depth(), 6u);
  EXPECT_EQ(s.layers[0].get(), s.layers[2].get());  // equal specs share one built layer
  EXPECT_TRUE(s.translation_invariant());
  EXPECT_FALSE(make_stack("stack:ssm,sink:2", 50).translation_invariant());
}

TEST(PatternStack, GrammarRefusesClearly) {
  auto refuses = [](const std::string& spec, const std::string& words) {
    try {
      make_stack(spec, 32);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << spec << ": " << e.what();
    }
  };
  refuses("stack:", "give the layers");
  refuses("stack:ssm,,window:2", "empty layer");
  refuses("stack:bigbird:4,1,2,ssm", "separate layers with ';'");
  refuses("stack:(ssm", "unbalanced");
  refuses("stack:ssm)", "without its '('");
  refuses("stack:(ssm)", "*k");
  refuses("stack:(ssm)*0", "*k");
  refuses("stack:(ssm)*5000", "at most 4096 layers");
  refuses("stack:ssm,stack:ssm", "cannot be nested");
  refuses("stack:heads:ssm;window:2", "not a stack layer");
  refuses("stack:nosuch", "unknown pattern");
  refuses("stack:loglinear+cache", "no cache-efficient variant");  // +cache refusals pass through
  // a stack is not a single-layer pattern: make_pattern, unions and heads refuse it
  for (const std::string spec : {"stack:ssm", "ssm|stack:ssm", "heads:ssm;stack:ssm"}) {
    try {
      make_pattern(spec, 16);
      ADD_FAILURE() << spec;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("not a single-layer pattern"), std::string::npos) << e.what();
    }
  }
}

TEST(PatternStack, DistancesMatchAnExplicitLayeredGraph) {
  for (const auto& spec : stack_examples())
    for (pos_t n : {1u, 2u, 9u, 32u}) {
      const auto s = make_stack(spec, n);
      const auto g = build_layered(s.layer_specs, n);
      std::vector<std::vector<std::uint64_t>> hist(s.depth());
      std::vector<std::uint64_t> unreachable(s.depth(), 0);
      for (pos_t j = 0; j < n; ++j) {
        const auto want = bfs01(g, j);
        const auto got = stack_distances_from(s, j);
        ASSERT_EQ(got.size(), s.depth() + 1);
        for (std::size_t l = 0; l <= s.depth(); ++l)
          for (pos_t i = 0; i < n; ++i)
            ASSERT_EQ(got[l][i], want[l * n + i])
                << spec << " n=" << n << " j=" << j << " l=" << l << " i=" << i;
        EXPECT_EQ(stack_single_source(s, j), got.back());
        for (std::size_t l = 1; l <= s.depth(); ++l)
          for (pos_t i = j + 1; i < n; ++i) {
            const auto v = want[l * n + i];
            if (v == kInf) {
              ++unreachable[l - 1];
              continue;
            }
            if (hist[l - 1].size() <= v) hist[l - 1].resize(v + 1, 0);
            ++hist[l - 1][v];
          }
      }
      const auto sum = stack_distance_summary(s, {});
      ASSERT_EQ(sum.by_depth.size(), s.depth());
      for (std::size_t l = 0; l < s.depth(); ++l) {
        std::uint32_t diameter = 0;
        std::uint64_t reach = 0;
        for (std::size_t v = 1; v < hist[l].size(); ++v)
          if (hist[l][v]) {
            diameter = static_cast<std::uint32_t>(v);
            reach += hist[l][v];
          }
        EXPECT_EQ(sum.by_depth[l].diameter, diameter) << spec << " n=" << n << " depth " << l + 1;
        EXPECT_EQ(sum.by_depth[l].reachable_pairs, reach) << spec << " n=" << n;
        EXPECT_EQ(sum.by_depth[l].unreachable_pairs, unreachable[l]) << spec << " n=" << n;
        for (std::size_t v = 1; v < hist[l].size(); ++v)
          EXPECT_EQ(v < sum.by_depth[l].histogram.size() ? sum.by_depth[l].histogram[v] : 0, hist[l][v])
              << spec;
      }
    }
}

TEST(PatternStack, LocalWindowsReachFartherWithDepth) {
  // local:w has no multi-hop path in one layer; L layers reach L * w, in ceil(m / w) hops
  const auto s = make_stack("stack:(local:3)*4", 40);
  const auto sum = stack_distance_summary(s, {});
  ASSERT_TRUE(sum.from_profile);
  for (std::size_t l = 1; l <= 4; ++l)
    for (pos_t m = 0; m < 40; ++m) {
      const std::uint32_t want = m == 0 ? 0 : (m <= 3 * l ? (m + 2) / 3 : kInf);
      EXPECT_EQ(sum.profile[l - 1][m], want) << "depth " << l << " m " << m;
    }
}

TEST(PatternStack, OneLayerStackEqualsThePlainPattern) {
  for (const std::string spec : {"pow2", "sq1+cache", "local:3", "ssm", "sink:2|window:2", "block:4",
                                 "attention", "bigbird:2,1,1", "fib|local:2", "pow2+cache"})
    for (pos_t n : {1u, 5u, 33u, 64u}) {
      const auto p = make_pattern(spec, n);
      const auto s = make_stack("stack:" + spec, n);
      // pattern: decode cost and cache
      const auto want = cache_profile(p, {});
      const auto got = stack_profile(s, {});
      EXPECT_EQ(got.nnz_a, want.nnz_a) << spec;
      EXPECT_EQ(got.nnz_b, want.nnz_b) << spec;
      EXPECT_EQ(got.total_decode_cost, want.total_decode_cost) << spec;
      EXPECT_EQ(got.max_decode_cost, want.max_decode_cost) << spec;
      EXPECT_EQ(got.max_cache, want.max_cache) << spec;
      EXPECT_EQ(got.argmax_cache, want.argmax_cache) << spec << " n=" << n;
      EXPECT_EQ(std::vector<std::uint64_t>(want.decode_cost.begin(), want.decode_cost.end()),
                got.decode_cost);
      EXPECT_EQ(std::vector<std::uint64_t>(want.cache_size.begin(), want.cache_size.end()), got.cache_size);
      // distances: every source, and the summary
      for (pos_t j = 0; j < n; ++j)
        EXPECT_EQ(stack_single_source(s, j), single_source_distances(p, j)) << spec;
      AllPairsOptions ap;
      ap.eccentricities = false;
      const auto ds = all_pairs_summary(p, ap);
      const auto ss = stack_distance_summary(s, {});
      ASSERT_EQ(ss.by_depth.size(), 1u);
      EXPECT_EQ(ss.by_depth[0].diameter, ds.diameter) << spec;
      EXPECT_EQ(ss.by_depth[0].histogram, ds.histogram) << spec << " n=" << n;
      EXPECT_EQ(ss.by_depth[0].reachable_pairs, ds.reachable_pairs) << spec;
      EXPECT_EQ(ss.by_depth[0].unreachable_pairs, ds.unreachable_pairs) << spec;
      EXPECT_NEAR(ss.by_depth[0].mean_distance, ds.mean_distance, 1e-12) << spec;
      // rank: the same seeded weights, flow and dense numeric ranks
      if (n < 2) continue;
      StackRankOptions ro;
      ro.seed = 7;
      const auto sr = stack_cut_ranks(s, ro);
      const auto w = induced_weights(p, 7);
      EXPECT_EQ(sr.flow, cut_ranks_flow(w.w, all_cuts(n)).rank) << spec << " n=" << n;
      EXPECT_EQ(sr.numeric, cut_ranks_dense(w.w, all_cuts(n), {}).rank) << spec << " n=" << n;
    }
}

TEST(PatternStack, ProductRankMatchesADenseEigenProduct) {
  for (const std::string spec : {"stack:ssm,window:2", "stack:local:2,local:3,ssm", "stack:(ssm)*3",
                                 "stack:sink:1,block:4,pow2+cache", "stack:block:4,block:4"})
    for (pos_t n : {8u, 24u}) {
      // dense reference: M_l = (I - B_l)^{-1} A_l from the same weights, multiplied in the test
      StackRankOptions ro;
      ro.seed = 3;
      test::expect_ranks_match_dense_product(spec, n, ro);
    }
}

TEST(PatternStack, FlowRankOfTwoSsmLayersIsAtMostTwo) {
  // a scalar SSM has cut rank 1; a product of two (a 2-layer SSM) has rank <= 2 (2 disjoint paths: one
  // crossing the cut in each layer), and 2 once both sides have 2 positions
  const auto s = make_stack("stack:ssm,ssm", 16);
  const auto r = stack_cut_ranks(s, {});
  for (std::size_t c = 0; c < r.cuts.size(); ++c) {
    const pos_t K = r.cuts[c];
    EXPECT_EQ(r.flow[c], (K >= 2 && 16 - K >= 2) ? 2u : 1u) << K;
    EXPECT_EQ(r.numeric[c], r.flow[c]) << K;
  }
}

TEST(PatternStack, HybridIsCheapAtLargeN) {
  const auto s = make_stack("stack:ssm,window:64,ssm,window:64", 100000);
  const auto prof = stack_profile(s, {});
  EXPECT_EQ(prof.max_decode_cost, 1u + 64u + 1u + 64u);
  const auto d = stack_distance_summary(s, {});
  ASSERT_TRUE(d.from_profile);
  // each hop moves at most 64 positions, and any run of 64 can be covered by one window hop
  EXPECT_EQ(d.by_depth.back().diameter, (100000u - 1 + 63) / 64);
  EXPECT_EQ(d.by_depth.back().unreachable_pairs, 0u);
}

TEST(PatternStackCli, CommandsAcceptOrRefuseStacks) {
  using mixgraph::test::run_cli;
  auto r = run_cli("pattern -p 'stack:ssm,window:4' -n 32 --format json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"layers\""), std::string::npos);
  r = run_cli("distances -p 'stack:(local:2)*3' -n 20 --format json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"by_depth\""), std::string::npos);
  r = run_cli("rank -p 'stack:ssm,ssm' -n 12 --format json");
  EXPECT_EQ(r.code, 0) << r.err;
  for (const std::string cmd :
       {"congestion -p 'stack:ssm,ssm' -N 8 --sweep 4..8", "validate -p 'stack:ssm' -n 16",
        "solve -p 'stack:ssm' -n 16 --random 2 --backend cpu", "pattern -p 'window:2|stack:ssm' -n 16",
        "pattern -p 'stack:bigbird:2,1,1,ssm' -n 16"}) {
    r = run_cli(cmd);
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("mixgraph: error:"), std::string::npos) << cmd;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << cmd << ": " << r.err;
  }
}
