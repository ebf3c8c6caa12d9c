// Sparse-attention families (bigbird, loglinear, topk-blocks) and heads:P1;P2;...: reads, decode cost and
// distances against brute-force relations from the definitions in docs/math.md §2, cut ranks against a dense
// Eigen construction of M = (I - B)^{-1} A from those relations, and the refusals.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/hierarchical.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/npy.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/rank.hpp"
#include "pattern_ref.hpp"

using namespace mixgraph;
using namespace pattern_ref;

namespace {

// --- the bigbird random part, re-derived from docs/math.md §2's recipe ---------------------------------
std::uint64_t mix(std::uint64_t& state) {
  state += 0x9E3779B97F4A7C15ull;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/// Row i (1-indexed) of bigbird: the random positions (1-indexed) among g+1 .. i-w-1.
std::set<std::uint64_t> ref_random(std::uint64_t seed, std::uint64_t i, std::uint64_t w, std::uint64_t g,
                                   std::uint64_t r) {
  std::set<std::uint64_t> out;
  const std::uint64_t lo = g + 1, hi = i >= w + 1 ? i - w - 1 : 0;  // candidates lo..hi
  if (hi < lo) return out;
  const std::uint64_t m = hi - lo + 1;
  if (r >= m) {
    for (auto j = lo; j <= hi; ++j) out.insert(j);
    return out;
  }
  std::uint64_t state = seed ^ (i * 0xD1B54A32D192ED03ull);
  std::set<std::uint64_t> c;
  for (std::uint64_t u = m - r; u < m; ++u) {
    std::uint64_t v;
    const std::uint64_t bound = u + 1;
    const std::uint64_t threshold = (~bound + 1) % bound;  // 2^64 mod bound
    do v = mix(state);
    while (v < threshold);
    v %= bound;
    c.insert(c.count(v) ? u : v);
  }
  for (auto x : c) out.insert(lo + x);
  return out;
}

Ref bigbird_ref(std::uint64_t n, std::uint64_t w, std::uint64_t g, std::uint64_t r, std::uint64_t seed) {
  auto rows = std::make_shared<std::vector<std::set<std::uint64_t>>>(n + 1);
  for (std::uint64_t i = 1; i <= n; ++i) (*rows)[i] = ref_random(seed, i, w, g, r);
  return shared(
      [=](std::uint64_t i, std::uint64_t j) { return i - j <= w || j <= g || (*rows)[i].count(j); });
}

/// Cut ranks of M = (I - B)^{-1} A built densely from a reference with random weights, every cut.
std::vector<std::uint32_t> dense_ref_ranks(const Ref& ref, std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n), B = Eigen::MatrixXd::Zero(n, n);
  for (std::uint64_t i = 1; i <= n; ++i) {
    std::uint64_t cnt = 0;
    for (std::uint64_t j = 1; j < i; ++j) cnt += ref.b(i, j);
    for (std::uint64_t j = 1; j <= i; ++j) {
      if (ref.a(i, j)) A(i - 1, j - 1) = u(gen);
      if (j < i && ref.b(i, j)) B(i - 1, j - 1) = 0.9 * u(gen) / static_cast<double>(cnt);
    }
  }
  const Eigen::MatrixXd M = (Eigen::MatrixXd::Identity(n, n) - B).triangularView<Eigen::Lower>().solve(A);
  std::vector<std::uint32_t> out;
  for (std::uint64_t K = 1; K < n; ++K) {
    Eigen::FullPivLU<Eigen::MatrixXd> lu(M.block(K, 0, n - K, K));
    lu.setThreshold(1e-9);
    out.push_back(static_cast<std::uint32_t>(lu.rank()));
  }
  return out;
}

void expect_flow_ranks_match_dense(const std::string& spec, std::uint64_t n, const Ref& ref) {
  SCOPED_TRACE(spec);
  CutRankParams cp;
  cp.method = CutRankMethod::Flow;
  const auto prof = cut_rank_profile(make_pattern(spec, n), cp);
  ASSERT_EQ(prof.cuts.size(), n - 1);
  EXPECT_EQ(prof.flow, dense_ref_ranks(ref, n, 7));
}

/// Largest finite d(i, j) over j < i, by the same layered-graph recursion as expect_matches.
std::uint32_t brute_diameter(const Ref& ref, std::uint64_t n) {
  std::uint32_t diam = 0;
  for (std::uint64_t src = 1; src <= n; ++src) {
    std::vector<std::uint32_t> d(n + 1, UNREACHABLE);
    for (std::uint64_t i = src; i <= n; ++i) {
      if (ref.a(i, src)) d[i] = i == src ? 0 : 1;
      for (std::uint64_t j = src; j < i; ++j)
        if (ref.b(i, j) && d[j] != UNREACHABLE) d[i] = std::min(d[i], d[j] + 1);
      if (i > src && d[i] != UNREACHABLE) diam = std::max(diam, d[i]);
    }
  }
  return diam;
}

std::string write_scores(const std::string& name, std::uint64_t nb, const std::vector<double>& v) {
  const std::string path = ::testing::TempDir() + "/" + name;
  NpyArray a;
  a.rows = a.cols = nb;
  a.fp64 = true;
  a.f64 = v;
  write_npy(path, a);
  return path;
}

int cli_rc(const std::string& args) {
  const std::string cmd = mixgraph::test::cli_path() + " " + args + " > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

// run_cli writes to files named by process and call, so tests running in parallel never share one
nlohmann::json sparse_cli_json(const std::string& args) {
  const auto r = mixgraph::test::run_cli(args + " --format json");
  EXPECT_EQ(r.code, 0) << args << ": " << r.err;
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST(PatternSparse, BigBirdReadsWindowGlobalsAndSeededRandom) {
  for (std::uint64_t n : {1u, 2u, 9u, 80u})
    for (auto [w, g, r] : std::vector<std::array<std::uint64_t, 3>>{
             {3, 2, 2}, {1, 0, 1}, {0, 3, 0}, {4, 1, 5}, {2, 2, 40}, {0, 0, 3}})
      for (std::uint64_t seed : {0u, 11u}) {
        std::string spec = "bigbird:" + std::to_string(w) + "," + std::to_string(g) + "," + std::to_string(r);
        if (seed) spec.append(",").append(std::to_string(seed));
        expect_matches(spec, n, bigbird_ref(n, w, g, r, seed));
      }
  const auto p = make_pattern("bigbird:2,1,3", 100);
  EXPECT_EQ(p.family, PatternFamily::Matrix);
  EXPECT_EQ(p.a_mode, AMode::Shared);
  // the same spec twice: the same rows; another seed: other rows
  EXPECT_EQ(make_pattern("bigbird:2,1,3", 100).b.idx, p.b.idx);
  EXPECT_EQ(make_pattern("bigbird:2,1,3,0", 100).b.idx, p.b.idx);
  EXPECT_NE(make_pattern("bigbird:2,1,3,5", 100).b.idx, p.b.idx);
}

TEST(PatternSparse, BigBirdRandomPartIsUniform) {
  // w = g = 0, r = 3 of the first 20 positions for 20000 rows i = 21..: each position is drawn with
  // probability 3/20; chi-square with 19 degrees of freedom stays far below 60 for a uniform sampler.
  const std::uint64_t n = 20021;
  const auto p = make_pattern("bigbird:0,0,3,42", n);
  std::vector<double> count(20, 0);
  for (pos_t i = 20; i + 1 < n; ++i) {
    std::vector<pos_t> row = lib_b(p, i);
    ASSERT_EQ(row.size(), 3u);
    for (auto j : row)
      if (j < 20) count[j] += 1;
  }
  // rows beyond 21 have more candidates: use only the first-20 share, compared to its expectation
  double total = 0;
  for (double c : count) total += c;
  double chi2 = 0;
  for (double c : count) chi2 += (c - total / 20) * (c - total / 20) / (total / 20);
  EXPECT_LT(chi2, 60.0) << "total " << total;
  EXPECT_GT(total, 0.0);
}

TEST(PatternSparse, BigBirdFlowRanksMatchDenseOperator) {
  expect_flow_ranks_match_dense("bigbird:2,1,2,3", 40, bigbird_ref(40, 2, 1, 2, 3));
}

TEST(PatternSparse, LogLinearReadsEveryEarlierPositionThroughA) {
  const Ref att{[](std::uint64_t, std::uint64_t) { return false; },
                [](std::uint64_t, std::uint64_t) { return true; }};
  for (std::uint64_t n : {1u, 2u, 33u, 100u}) expect_matches("loglinear", n, att);
  const auto p = make_pattern("loglinear", 64);
  EXPECT_EQ(p.family, PatternFamily::TranslationInvariant);
  EXPECT_EQ(p.a_mode, AMode::Explicit);
  expect_error<UsageError>("loglinear+cache", 64, "no cache-efficient variant");
}

TEST(PatternSparse, LogLinearLevelsAreTheFenwickBuckets) {
  // The Fenwick walk x = t, x -= lowbit(x) cuts [0, t) into [x - lowbit(x), x): each such bucket must be
  // exactly the keys of one level l >= 1 with 2^(l-1) = lowbit(x); level 0 is {t}.
  for (std::uint64_t t = 0; t < 600; ++t) {
    std::map<std::uint32_t, std::set<std::uint64_t>> by_level;
    for (std::uint64_t s = 0; s <= t; ++s) by_level[loglinear_level(t, s)].insert(s);
    std::map<std::uint32_t, std::set<std::uint64_t>> fenwick;
    fenwick[0] = {t};
    for (std::uint64_t x = t; x > 0; x -= x & (~x + 1)) {
      const std::uint64_t low = x & (~x + 1);
      std::uint32_t l = 1;
      while ((std::uint64_t{1} << (l - 1)) != low) ++l;
      for (std::uint64_t s = x - low; s < x; ++s) fenwick[l].insert(s);
    }
    ASSERT_EQ(by_level, fenwick) << "t = " << t;
    EXPECT_EQ(loglinear_buckets(t), fenwick.size());
  }
}

TEST(PatternSparse, TopkBlocksSelectsByScoreCausallyWithTheDiagonal) {
  std::mt19937_64 gen(3);
  for (std::uint64_t n : {1u, 7u, 30u, 64u})
    for (std::uint64_t b : {1u, 4u, 7u})
      for (std::uint64_t k : {1u, 2u, 3u, 50u}) {
        const std::uint64_t nb = (n + b - 1) / b;
        std::vector<double> s(nb * nb);
        for (auto& v : s) v = static_cast<double>(gen() % 4);  // many ties
        const std::string path = write_scores("topk.npy", nb, s);
        // brute force: block q keeps q and the k-1 best earlier blocks (score desc, then index asc)
        std::vector<std::set<std::uint64_t>> chosen(nb);
        for (std::uint64_t q = 0; q < nb; ++q) {
          std::vector<std::pair<double, std::uint64_t>> c;
          for (std::uint64_t j = 0; j < q; ++j) c.push_back({-s[q * nb + j], j});
          std::sort(c.begin(), c.end());
          chosen[q].insert(q);
          for (std::uint64_t x = 0; x + 1 < k && x < c.size(); ++x) chosen[q].insert(c[x].second);
        }
        const Ref ref{
            [](std::uint64_t, std::uint64_t) { return false; },
            [&, b](std::uint64_t i, std::uint64_t j) { return chosen[(i - 1) / b].count((j - 1) / b) > 0; }};
        expect_matches("topk-blocks:" + std::to_string(b) + "," + std::to_string(k) + "," + path, n, ref,
                       n <= 30);
      }
  // k = 1 is block-local attention
  const std::string path = write_scores("topk1.npy", 5, std::vector<double>(25, 1.0));
  EXPECT_EQ(make_pattern("topk-blocks:8,1," + path, 40).a.idx, make_pattern("block:8", 40).a.idx);
}

TEST(PatternSparse, TopkBlocksFlowRanksMatchDenseOperator) {
  const std::vector<double> s = {0, 0, 0, 0, 0,  //
                                 1, 0, 0, 0, 0,  //
                                 5, 2, 0, 0, 0,  //
                                 1, 3, 2, 0, 0,  //
                                 4, 4, 1, 9, 0};
  const std::string path = write_scores("topk_rank.npy", 5, s);
  const std::set<std::pair<int, int>> keep = {{0, 0}, {1, 1}, {1, 0}, {2, 2}, {2, 0},
                                              {3, 3}, {3, 1}, {4, 4}, {4, 3}};
  const Ref ref{[](std::uint64_t, std::uint64_t) { return false; },
                [&](std::uint64_t i, std::uint64_t j) {
                  return keep.count({static_cast<int>((i - 1) / 8), static_cast<int>((j - 1) / 8)}) > 0;
                }};
  expect_matches("topk-blocks:8,2," + path, 40, ref);
  expect_flow_ranks_match_dense("topk-blocks:8,2," + path, 40, ref);
}

TEST(PatternSparse, TopkBlocksRefusesBadInput) {
  const std::string ok = write_scores("topk_ok.npy", 4, std::vector<double>(16, 0.5));
  expect_error<InputError>("topk-blocks:4,2," + ok, 20, "needs (5, 5)");
  std::vector<double> bad(16, 0.5);
  bad[2 * 4 + 1] = std::nan("");
  const std::string nan = write_scores("topk_nan.npy", 4, bad);
  expect_error<InputError>("topk-blocks:4,2," + nan, 16, "non-finite score at (3, 2)");
  expect_error<InputError>("topk-blocks:4,2," + ::testing::TempDir() + "/missing.npy", 16, "missing.npy");
  expect_error<UsageError>("topk-blocks:4,0," + ok, 16, ">= 1");
  expect_error<UsageError>("topk-blocks:4,2", 16, "topk-blocks:b,k,SCORES.npy");
  expect_error<UsageError>("topk-blocks:4,2," + ok + "+cache", 16, "not a translation-invariant pattern");
  // memory: refused before the rows are allocated, the exit code of a memory refusal at the CLI
  set_default_mem_limit(256);  // rows need 16 ptrs + up to 16*8 reads
  expect_error<RuntimeFailure>("topk-blocks:4,2," + ok, 16, "limit");
  set_default_mem_limit(0);
  EXPECT_EQ(cli_rc("pattern -p 'topk-blocks:4,2," + ok + "' --n 16 --mem-limit 1000"), 1);
  EXPECT_EQ(cli_rc("pattern -p 'topk-blocks:4,2," + ok + "' --n 20"), 3);
  EXPECT_EQ(cli_rc("pattern -p 'topk-blocks:4,2," + ok + "' --n 16"), 0);
}

TEST(PatternSparse, BigBirdRefusesBadParametersAndLargeRows) {
  expect_error<UsageError>("bigbird:2,1", 10, "bigbird:w,g,r");
  expect_error<UsageError>("bigbird:2,1,1,1,1", 10, "bigbird:w,g,r");
  expect_error<UsageError>("bigbird:0,0,0", 10, "all 0");
  expect_error<UsageError>("bigbird:a,1,1", 10, "not a non-negative integer");
  expect_error<UsageError>("bigbird:2,1,1+cache", 10, "not a translation-invariant pattern");
  EXPECT_EQ(cli_rc("pattern -p bigbird:512,64,64 --n 1e6 --mem-limit 1M"), 1);
  EXPECT_EQ(cli_rc("pattern -p bigbird:2,1 --n 64"), 2);
}

TEST(PatternSparse, HeadsAreTheUnionWithPerHeadSpecs) {
  const auto p = make_pattern("heads:window:2;sink:1", 50);
  EXPECT_EQ(p.heads, (std::vector<std::string>{"window:2", "sink:1"}));
  expect_matches("heads:window:2;sink:1", 50,
                 shared([](std::uint64_t i, std::uint64_t j) { return i - j <= 2 || j <= 1; }));
  // a head may be a union or end in +cache (that head only); pow2+cache's reads from Prop. 4.12's closed form
  std::vector<std::uint64_t> f;
  for (std::uint64_t v = 1; v < 64; v *= 2) f.push_back(v);
  const Csr ce = *cache_efficient_closed_form(f, 64);
  expect_matches("heads:pow2+cache;local:3|sink:2", 64,
                 {[&](std::uint64_t i, std::uint64_t j) {  // sink:2 is shared: it reads 1, 2 through B
                    if (j <= 2) return true;
                    for (pos_t x : ce.row(static_cast<pos_t>(i - 1)))
                      if (x + 1 == j) return true;
                    return false;
                  },
                  [&](std::uint64_t i, std::uint64_t j) {
                    if (i == j || i - j <= 3 || j <= 2) return true;
                    for (pos_t x : ce.row(static_cast<pos_t>(i - 1)))
                      if (x + 1 == j) return true;
                    return false;
                  }});
  EXPECT_EQ(make_pattern("heads:pow2+cache;local:3|sink:2", 64).heads.size(), 2u);
  // translation-invariant heads with one A mode stay translation-invariant
  EXPECT_EQ(make_pattern("heads:window:2;dilated:3,4", 64).family, PatternFamily::TranslationInvariant);
  expect_error<UsageError>("heads:window:2;;sink:1", 50, "empty part");
  expect_error<UsageError>("heads:window:2;heads:sink:1", 50, "cannot be nested");
  expect_error<UsageError>("window:2|heads:sink:1;ssm", 50, "outermost");
  expect_error<UsageError>("heads:window:2;loglinear+cache", 50, "no cache-efficient variant");
  expect_error<UsageError>("heads:window:2;sink:1|ssm+cache", 50, "translation-invariant patterns only");
}

TEST(PatternSparse, HeadsCliGivesPerHeadAndCombinedResults) {
  const auto j = sparse_cli_json("pattern -p 'heads:window:4;sink:2' --n 64");
  ASSERT_TRUE(j.contains("heads")) << j.dump();
  ASSERT_EQ(j["heads"].size(), 2u);
  // brute force: window:4 has sum_i min(4, i-1) B reads; sink:2 has sum_i min(2, i-1); the union per row
  std::uint64_t w = 0, s = 0, u = 0;
  for (std::uint64_t i = 1; i <= 64; ++i) {
    w += std::min<std::uint64_t>(4, i - 1);
    s += std::min<std::uint64_t>(2, i - 1);
    std::uint64_t row = 0;
    for (std::uint64_t x = 1; x < i; ++x) row += (i - x <= 4 || x <= 2);
    u += row;
  }
  EXPECT_EQ(j["heads"][0]["pattern"], "window:4");
  EXPECT_EQ(j["heads"][0]["nnz_B"], w);
  EXPECT_EQ(j["heads"][1]["nnz_B"], s);
  EXPECT_EQ(j["nnz_B"], u);
  const auto d = sparse_cli_json("distances -p 'heads:window:4;sink:2' --n 64");
  ASSERT_TRUE(d.contains("heads")) << d.dump();
  const auto win = shared([](std::uint64_t i, std::uint64_t j) { return i - j <= 4; });
  const auto snk = shared([](std::uint64_t, std::uint64_t j) { return j <= 2; });
  const auto uni = shared([](std::uint64_t i, std::uint64_t j) { return i - j <= 4 || j <= 2; });
  EXPECT_EQ(d["heads"][0]["diameter"], brute_diameter(win, 64));
  EXPECT_EQ(d["heads"][1]["diameter"], brute_diameter(snk, 64));
  EXPECT_EQ(d["diameter"], brute_diameter(uni, 64));
  EXPECT_EQ(brute_diameter(win, 64), 16u);  // ceil(63 / 4): the reference itself is sane
}

TEST(PatternSparse, GalleryRowsMatchTheDefinitions) {
  const auto j = sparse_cli_json("gallery --n 64 -p window:4 -p ssm --cuts 63");
  ASSERT_EQ(j["designs"].size(), 2u);
  std::uint64_t decode = 0;
  for (std::uint64_t i = 1; i <= 64; ++i) decode += std::min<std::uint64_t>(4, i - 1);
  const auto& w = j["designs"][0];
  EXPECT_EQ(w["pattern"], "window:4");
  EXPECT_EQ(w["total_decode_cost"], decode);
  EXPECT_EQ(w["max_cache"], 4);
  EXPECT_EQ(w["diameter"],
            brute_diameter(shared([](std::uint64_t i, std::uint64_t j) { return i - j <= 4; }), 64));
  EXPECT_EQ(w["max_cut_rank"], 4);  // generic rank of a w-th order recurrence at an interior cut: w
  const auto& s = j["designs"][1];
  EXPECT_EQ(s["diameter"], 63);       // y_64 reaches x_1 only through 63 steps of the recurrence
  EXPECT_EQ(s["copy_distance"], 32);  // d(i + 32, i) = 32 on 32 + 32 tokens
  EXPECT_EQ(s["max_cut_rank"], 1);
  EXPECT_EQ(cli_rc("gallery --n 2"), 2);
}
