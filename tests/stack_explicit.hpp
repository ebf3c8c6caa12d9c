#pragma once
// Test helpers: the stacked graph built explicitly from the brute-force reads
// (lib/src/pattern/pattern_bruteforce), the exhaustive optimum congestion of its copy task at tiny n, and a
// hop-by-hop check of reported routings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "../lib/src/pattern/pattern_bruteforce.hpp"
#include "mixgraph/stack_congestion.hpp"

namespace mixgraph::test {

/// The stacked graph on n = 2N positions from the brute-force rows: node (l, v) = l * n + v.
struct Explicit {
  pos_t n = 0;
  std::size_t L = 0;
  std::vector<std::vector<std::size_t>> out;
  std::set<std::pair<std::size_t, std::size_t>> edges;
};

inline Explicit build_explicit(const std::vector<std::string>& layers, pos_t n) {
  Explicit g;
  g.n = n;
  g.L = layers.size();
  g.out.resize((g.L + 1) * n);
  for (std::size_t l = 1; l <= g.L; ++l) {
    auto bf = bruteforce_rows(layers[l - 1], n);
    EXPECT_TRUE(bf.has_value()) << layers[l - 1] << " has no brute-force rows";
    if (!bf) return g;
    for (pos_t v = 0; v < n; ++v) {
      for (pos_t u : bf->a[v]) g.out[(l - 1) * n + u].push_back(l * n + v);
      for (pos_t u : bf->b[v]) g.out[l * n + u].push_back(l * n + v);
    }
  }
  for (std::size_t x = 0; x < g.out.size(); ++x)
    for (auto y : g.out[x]) g.edges.insert({x, y});
  return g;
}

/// The distinct position sets (bit masks) of every path (0, i) -> (L, i + N).
inline std::vector<std::uint32_t> path_masks(const Explicit& g, pos_t i, pos_t N) {
  std::set<std::uint32_t> masks;
  const std::size_t target = g.L * g.n + i + N;
  std::function<void(std::size_t, std::uint32_t)> dfs = [&](std::size_t x, std::uint32_t m) {
    m |= 1u << (x % g.n);
    if (x == target) {
      masks.insert(m);
      return;
    }
    for (auto y : g.out[x]) dfs(y, m);
  };
  dfs(i, 0);
  return {masks.begin(), masks.end()};
}

/// Exact C(G): the smallest C such that one path per input keeps every position's load <= C (exhaustive
/// search over the position sets). 0 when some input has no path.
inline std::uint32_t brute_optimum(const Explicit& g, pos_t N) {
  std::vector<std::vector<std::uint32_t>> cand(N);
  for (pos_t i = 0; i < N; ++i) {
    cand[i] = path_masks(g, i, N);
    if (cand[i].empty()) return 0;
    std::sort(cand[i].begin(), cand[i].end(),
              [](auto a, auto b) { return __builtin_popcount(a) < __builtin_popcount(b); });
  }
  std::vector<std::uint32_t> load(g.n, 0);
  std::function<bool(pos_t, std::uint32_t)> fits = [&](pos_t i, std::uint32_t C) {
    if (i == N) return true;
    for (auto m : cand[i]) {
      bool ok = true;
      for (pos_t v = 0; v < g.n && ok; ++v)
        if ((m >> v & 1) && load[v] + 1 > C) ok = false;
      if (!ok) continue;
      for (pos_t v = 0; v < g.n; ++v) load[v] += m >> v & 1;
      const bool done = fits(i + 1, C);
      for (pos_t v = 0; v < g.n; ++v) load[v] -= m >> v & 1;
      if (done) return true;
    }
    return false;
  };
  for (std::uint32_t C = 1;; ++C)
    if (fits(0, C)) return C;
}

/// Every kept path follows edges of the explicit graph from (0, i) to (L, i + N); its recounted loads give
/// the reported congestion.
inline void expect_valid(const Explicit& g, pos_t N, const StackCongestionResult& r) {
  ASSERT_EQ(r.paths.size(), r.base.routings.size());
  for (std::size_t k = 0; k < r.paths.size(); ++k) {
    const auto& ro = r.paths[k];
    SCOPED_TRACE(ro.name);
    std::vector<std::uint32_t> load(g.n, 0);
    for (pos_t i = 0; i < N; ++i) {
      const auto b = ro.ptr[i], e = ro.ptr[i + 1];
      ASSERT_LT(b, e);
      EXPECT_EQ(ro.copies[b], 0);
      EXPECT_EQ(ro.nodes[b], i);
      EXPECT_EQ(ro.copies[e - 1], g.L);
      EXPECT_EQ(ro.nodes[e - 1], i + N);
      std::set<pos_t> visited;
      for (auto q = b; q < e; ++q) {
        visited.insert(ro.nodes[q]);
        if (q > b) {
          EXPECT_TRUE(
              g.edges.count({ro.copies[q - 1] * g.n + ro.nodes[q - 1], ro.copies[q] * g.n + ro.nodes[q]}))
              << "input " << i + 1 << " hop " << q - b;
        }
      }
      for (auto v : visited) ++load[v];
    }
    EXPECT_EQ(*std::max_element(load.begin(), load.end()), r.base.routings[k].congestion);
    EXPECT_EQ(load, r.base.routings[k].loads);
  }
}

}  // namespace mixgraph::test
