// Cut ranks of stacks (stack:P1,P2,...) and of marked unions (P@A|Q@B) against references written here:
// the layered graph built from the brute-force reads, its Menger rank by an Edmonds-Karp max-flow on a dense
// capacity matrix, and the exact rank of the product over a different prime field (2^31 - 1, other random
// weights) by dense Gaussian elimination; the exact product rank against the SVD of the dense double product
// and against the flow rank; the one-layer stack against the plain pattern's exact rank; the windowed flow
// search against the whole-graph search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "../lib/src/pattern/pattern_bruteforce.hpp"
#include "cli_util.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/stack.hpp"
#include "stack_dense.hpp"

using namespace mixgraph;

namespace {

using Rows = std::vector<std::vector<pos_t>>;
struct LayerRows {
  Rows a, b;
};

/// A layer's reads from the brute-force definition where it covers the spec, else from the library.
LayerRows layer_rows(const std::string& spec, pos_t n, bool need_bruteforce = false) {
  if (auto bf = bruteforce_rows(spec, n)) return {bf->a, bf->b};
  EXPECT_FALSE(need_bruteforce) << spec << ": no brute-force construction";
  LayerRows r{Rows(n), Rows(n)};
  const auto p = make_pattern(spec, n);
  for (pos_t i = 0; i < n; ++i) {
    for_each_a_read(p, i, [&](pos_t j) { r.a[i].push_back(j); });
    for_each_b_read(p, i, [&](pos_t j) { r.b[i].push_back(j); });
  }
  return r;
}

/// Menger rank at cut K: vertex-disjoint paths from layer-0 copies of 0..K-1 to layer-L copies of K..n-1,
/// by Edmonds-Karp on the vertex-split stacked graph with a dense capacity matrix.
std::uint32_t menger_reference(const std::vector<LayerRows>& layers, pos_t n, pos_t K) {
  const std::size_t L = layers.size(), V = 2 * (L + 1) * n + 2, S = V - 2, T = V - 1;
  auto in = [&](std::size_t l, pos_t i) { return 2 * (l * n + i); };
  std::vector<std::vector<int>> cap(V, std::vector<int>(V, 0));
  for (std::size_t l = 0; l <= L; ++l)
    for (pos_t i = 0; i < n; ++i) cap[in(l, i)][in(l, i) + 1] = 1;
  for (std::size_t l = 1; l <= L; ++l)
    for (pos_t i = 0; i < n; ++i) {
      for (pos_t j : layers[l - 1].a[i]) cap[in(l - 1, j) + 1][in(l, i)] = 1;
      for (pos_t j : layers[l - 1].b[i]) cap[in(l, j) + 1][in(l, i)] = 1;
    }
  for (pos_t i = 0; i < n; ++i) (i < K ? cap[S][in(0, i)] : cap[in(L, i) + 1][T]) = 1;
  std::uint32_t flow = 0;
  for (;;) {
    std::vector<std::size_t> parent(V, V);
    std::vector<std::size_t> queue{S};
    parent[S] = S;
    for (std::size_t h = 0; h < queue.size() && parent[T] == V; ++h)
      for (std::size_t v = 0; v < V; ++v)
        if (cap[queue[h]][v] > 0 && parent[v] == V) {
          parent[v] = queue[h];
          queue.push_back(v);
        }
    if (parent[T] == V) return flow;
    for (std::size_t v = T; v != S; v = parent[v]) {
      --cap[parent[v]][v];
      ++cap[v][parent[v]];
    }
    ++flow;
  }
}

constexpr std::uint64_t kQ = 2147483647;  // 2^31 - 1: not the library's prime

/// The dense product M_L ... M_1 over GF(q) with weights from `rng`, M_l[i, :] = A_l[i, :] + sum_j
/// beta_ij M_l[j, :].
std::vector<std::vector<std::uint64_t>> field_product(const std::vector<LayerRows>& layers, pos_t n,
                                                      std::mt19937_64& rng) {
  std::uniform_int_distribution<std::uint64_t> draw(1, kQ - 1);
  using Mat = std::vector<std::vector<std::uint64_t>>;
  Mat total(n, std::vector<std::uint64_t>(n, 0));
  for (pos_t i = 0; i < n; ++i) total[i][i] = 1;
  for (const auto& l : layers) {
    Mat m(n, std::vector<std::uint64_t>(n, 0));
    for (pos_t i = 0; i < n; ++i) {
      for (pos_t j : l.a[i]) m[i][j] = (m[i][j] + draw(rng)) % kQ;
      for (pos_t j : l.b[i]) {
        const std::uint64_t w = draw(rng);
        for (pos_t c = 0; c < n; ++c) m[i][c] = (m[i][c] + w * m[j][c]) % kQ;
      }
    }
    Mat next(n, std::vector<std::uint64_t>(n, 0));
    for (pos_t i = 0; i < n; ++i)
      for (pos_t k = 0; k < n; ++k)
        if (m[i][k])
          for (pos_t c = 0; c < n; ++c) next[i][c] = (next[i][c] + m[i][k] * total[k][c]) % kQ;
    total = std::move(next);
  }
  return total;
}

std::uint64_t pow_q(std::uint64_t a, std::uint64_t e) {
  std::uint64_t r = 1;
  for (; e; e >>= 1, a = a * a % kQ)
    if (e & 1) r = r * a % kQ;
  return r;
}

/// rank over GF(q) of M[K..n-1, 0..K-1] by Gaussian elimination.
std::uint32_t field_block_rank(const std::vector<std::vector<std::uint64_t>>& M, pos_t n, pos_t K) {
  std::vector<std::vector<std::uint64_t>> b;
  for (pos_t i = K; i < n; ++i) b.emplace_back(M[i].begin(), M[i].begin() + K);
  std::uint32_t rank = 0;
  for (pos_t c = 0; c < K && rank < b.size(); ++c) {
    std::size_t p = rank;
    while (p < b.size() && b[p][c] == 0) ++p;
    if (p == b.size()) continue;
    std::swap(b[p], b[rank]);
    const std::uint64_t inv = pow_q(b[rank][c], kQ - 2);
    for (std::size_t r = rank + 1; r < b.size(); ++r) {
      const std::uint64_t f = b[r][c] * inv % kQ;
      for (pos_t k = c; k < K; ++k) b[r][k] = (b[r][k] + (kQ - f) * b[rank][k]) % kQ;
    }
    ++rank;
  }
  return rank;
}

const std::vector<std::string> kLayerSpecs = {
    "ssm", "window:3", "local:2",     "pow2",        "sink:2|local:2", "block:4",    "attention",
    "fib", "sq1",      "dilated:2,3", "strided:2,4", "pow2+cache",     "offsets:2,5"};

/// A random stack of 1..4 layers; the spec uses ';' so that layers with commas stay whole.
std::vector<std::string> random_layers(std::mt19937_64& rng) {
  std::vector<std::string> out(1 + rng() % 4);
  for (auto& l : out) l = kLayerSpecs[rng() % kLayerSpecs.size()];
  return out;
}
std::string stack_spec(const std::vector<std::string>& layers) {
  std::string s = "stack:";
  for (std::size_t l = 0; l < layers.size(); ++l) s += (l ? ";" : "") + layers[l];
  return s;
}

}  // namespace

TEST(StackRank, FlowAndExactMatchIndependentReferencesOnRandomStacks) {
  std::mt19937_64 rng(2026);
  for (int trial = 0; trial < 40; ++trial) {
    const auto names = random_layers(rng);
    const std::string spec = stack_spec(names);
    const pos_t n = 2 + static_cast<pos_t>(rng() % 23);
    const auto s = make_stack(spec, n);
    std::vector<LayerRows> rows;
    for (const auto& l : names) rows.push_back(layer_rows(l, n));
    StackRankOptions ro;
    ro.seed = 5 + trial;
    ro.numeric = false;
    const auto flow = stack_cut_ranks(s, ro);
    ro.exact = true;
    ro.numeric = true;
    ro.flow = false;
    const auto exact = stack_cut_ranks(s, ro);
    ASSERT_TRUE(flow.flow_done && exact.numeric_done && exact.numeric_method == "exact");
    EXPECT_LT(exact.failure_bound, 1e-15);
    const auto M = field_product(rows, n, rng);
    for (std::size_t c = 0; c < flow.cuts.size(); ++c) {
      const pos_t K = flow.cuts[c];
      const std::uint32_t menger = menger_reference(rows, n, K);
      EXPECT_EQ(flow.flow[c], menger) << spec << " n=" << n << " K=" << K;
      // exact <= flow always; = for independent generic weights on a DAG (Lindstrom-Gessel-Viennot)
      EXPECT_EQ(exact.numeric[c], menger) << spec << " n=" << n << " K=" << K;
      EXPECT_EQ(exact.numeric[c], field_block_rank(M, n, K)) << spec << " n=" << n << " K=" << K;
    }
  }
}

TEST(StackRank, FlowWindowsNeverChangeTheAnswer) {
  std::mt19937_64 rng(77);
  for (int trial = 0; trial < 30; ++trial) {
    const auto names = random_layers(rng);
    const std::string spec = stack_spec(names);
    const pos_t n = 8 + static_cast<pos_t>(rng() % 40);
    const auto s = make_stack(spec, n);
    std::vector<LayerRows> rows;
    for (const auto& l : names) rows.push_back(layer_rows(l, n));
    std::vector<std::uint32_t> want;
    for (pos_t K : all_cuts(n)) want.push_back(menger_reference(rows, n, K));
    for (pos_t w : {0u, 1u, 2u, 3u, 7u, 256u}) {
      StackRankOptions ro;
      ro.numeric = false;
      ro.flow_window = w;
      ro.cuts = all_cuts(n);
      std::reverse(ro.cuts.begin(), ro.cuts.end());  // any order: every cut starts from no flow
      auto got = stack_cut_ranks(s, ro).flow;
      std::reverse(got.begin(), got.end());
      EXPECT_EQ(got, want) << spec << " n=" << n << " window=" << w;
    }
  }
}

TEST(StackRank, ExactMatchesTheSvdOfTheDenseProduct) {
  for (const std::string spec : {"stack:ssm,window:2", "stack:local:2,local:3,ssm", "stack:(ssm)*3",
                                 "stack:sink:1,block:4,pow2+cache", "stack:window:3,pow2"})
    for (pos_t n : {8u, 12u}) {
      StackRankOptions ro;
      ro.seed = 11;
      ro.exact = true;
      test::expect_ranks_match_dense_product(spec, n, ro);
    }
}

TEST(StackRank, OneLayerStackExactEqualsThePlainPattern) {
  for (const std::string spec : {"pow2", "sq1+cache", "ssm", "sink:2|window:2", "window:3@B|ssm@A", "fib"})
    for (pos_t n : {2u, 9u, 40u}) {
      const auto s = make_stack("stack:" + spec, n);
      StackRankOptions ro;
      ro.seed = 4;
      ro.exact = true;
      const auto sr = stack_cut_ranks(s, ro);
      NumericRankOptions no;
      no.seed = 4;
      const auto w = induced_weights(make_pattern(spec, n), 4);
      const auto plain = cut_ranks_exact(w.w, all_cuts(n), no);
      EXPECT_EQ(sr.numeric, plain.rank) << spec << " n=" << n;
      EXPECT_DOUBLE_EQ(sr.failure_bound, plain.failure_bound) << spec;
    }
}

TEST(StackRank, MarkedUnionsMatchTheBruteForceReads) {
  const std::vector<std::string> marked = {
      "window:4@B|ssm@A",      "pow2@A|window:3@B",    "sink:2@B|local:3@A",     "ssm@B|block:3@A",
      "window:3@B|window:3@A", "sq1@AB|dilated:2,3@B", "window:5@A|sink:2@B|ssm"};
  std::mt19937_64 rng(9);
  for (const auto& spec : marked)
    for (pos_t n : {6u, 13u, 20u}) {
      const auto rows = layer_rows(spec, n, true);
      const auto w = induced_weights(make_pattern(spec, n), 3);
      const auto cuts = all_cuts(n);
      const auto flow = cut_ranks_flow(w.w, cuts);
      NumericRankOptions no;
      no.seed = 3;
      const auto exact = cut_ranks_exact(w.w, cuts, no);
      const auto M = field_product({rows}, n, rng);
      for (std::size_t c = 0; c < cuts.size(); ++c) {
        const std::uint32_t menger = menger_reference({rows}, n, cuts[c]);
        EXPECT_EQ(flow.rank[c], menger) << spec << " n=" << n << " K=" << cuts[c];
        EXPECT_EQ(exact.rank[c], field_block_rank(M, n, cuts[c])) << spec << " n=" << n << " K=" << cuts[c];
        EXPECT_EQ(exact.rank[c], menger) << spec << " n=" << n << " K=" << cuts[c];
      }
    }
  // marked unions as stack layers
  for (const std::string layers : {"window:3@B|ssm@A;sink:2@B|local:3@A", "ssm@B|block:3@A;pow2@A|ssm@B"}) {
    const pos_t n = 14;
    const auto s = make_stack("stack:" + layers, n);
    std::vector<LayerRows> rows;
    for (const auto& l : s.layer_specs) rows.push_back(layer_rows(l, n, true));
    StackRankOptions ro;
    ro.exact = true;
    const auto r = stack_cut_ranks(s, ro);
    const auto M = field_product(rows, n, rng);
    for (std::size_t c = 0; c < r.cuts.size(); ++c) {
      EXPECT_EQ(r.flow[c], menger_reference(rows, n, r.cuts[c])) << layers << " K=" << r.cuts[c];
      EXPECT_EQ(r.numeric[c], field_block_rank(M, n, r.cuts[c])) << layers << " K=" << r.cuts[c];
    }
  }
}

TEST(StackRankCli, MethodExactOnAStack) {
  using mixgraph::test::run_cli;
  auto r = run_cli("rank -p 'stack:ssm,window:4' -n 32 --method exact --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("numeric_method"), "exact");
  EXPECT_TRUE(j.at("flow").is_null());
  EXPECT_TRUE(j.at("tolerance").is_null());
  EXPECT_LT(j.at("failure_bound").get<double>(), 1e-15);
  // against the library's flow ranks of the same stack
  const auto f = stack_cut_ranks(make_stack("stack:ssm,window:4", 32), {});
  EXPECT_EQ(j.at("numeric").get<std::vector<std::uint32_t>>(), f.flow);
  EXPECT_EQ(run_cli("rank -p 'stack:ssm,window:4' -n 32 --method sketch").code, 2);
}
