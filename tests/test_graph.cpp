// Communication graph, Boost.Graph adapter, Matrix Market input, decode cost and cache profile — each
// against an independent reference (brute force over the definition, or Boost.Graph's own CSR graph).
#include <gtest/gtest.h>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "mixgraph/boost_adapter.hpp"
#include "mixgraph/commgraph.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/mtx.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/weights.hpp"

using namespace mixgraph;
namespace fs = std::filesystem;

namespace {

fs::path tmpdir() {
  auto d = fs::temp_directory_path() / ("mixgraph_test_graph_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

std::string write_text(const std::string& name, const std::string& text) {
  const auto p = tmpdir() / name;
  std::ofstream(p) << text;
  return p.string();
}

/// Brute-force reads of 1-indexed position i straight from the spec's semantics.
std::set<std::uint64_t> brute_b_reads(const std::vector<std::uint64_t>& offs, std::uint64_t i) {
  std::set<std::uint64_t> s;
  for (auto o : offs)
    if (o < i) s.insert(i - o);
  return s;
}

struct Brute {
  std::vector<std::uint32_t> decode, cache;
};

/// decode(i) = #{j < i read by i through A or B}; |C_i| = #{j <= i : some t in (i, n] reads j} — O(n^2).
Brute brute_profile(const Pattern& p) {
  const pos_t n = p.n;
  std::vector<std::set<pos_t>> reads(n);
  for (pos_t i = 0; i < n; ++i) {
    for_each_b_read(p, i, [&](pos_t j) { reads[i].insert(j); });
    for_each_a_read(p, i, [&](pos_t j) {
      if (j != i) reads[i].insert(j);
    });
  }
  Brute b;
  for (pos_t i = 0; i < n; ++i) b.decode.push_back(static_cast<std::uint32_t>(reads[i].size()));
  for (pos_t i = 0; i < n; ++i) {
    std::set<pos_t> c;
    for (pos_t t = i + 1; t < n; ++t)
      for (pos_t j : reads[t])
        if (j <= i) c.insert(j);
    b.cache.push_back(static_cast<std::uint32_t>(c.size()));
  }
  return b;
}

Pattern random_mask(pos_t n, double density, std::uint64_t seed, bool with_a) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution coin(density);
  std::string b = "%%MatrixMarket matrix coordinate real general\n";
  std::string body;
  std::size_t cnt = 0;
  for (pos_t i = 1; i <= n; ++i)
    for (pos_t j = 1; j < i; ++j)
      if (coin(rng)) {
        body += std::to_string(i) + " " + std::to_string(j) + " 0.5\n";
        ++cnt;
      }
  const auto bpath =
      write_text("rand_b_" + std::to_string(seed) + ".mtx",
                 b + std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(cnt) + "\n" + body);
  if (!with_a) return make_pattern("mtx:" + bpath, 0);
  std::string abody;
  cnt = 0;
  for (pos_t i = 1; i <= n; ++i)
    for (pos_t j = 1; j <= i; ++j)
      if (coin(rng)) {
        abody += std::to_string(i) + " " + std::to_string(j) + "\n";
        ++cnt;
      }
  const auto apath = write_text("rand_a_" + std::to_string(seed) + ".mtx",
                                "%%MatrixMarket matrix coordinate pattern general\n" + std::to_string(n) +
                                    " " + std::to_string(n) + " " + std::to_string(cnt) + "\n" + abody);
  return make_pattern("mtx:" + apath + "," + bpath, 0);
}

}  // namespace

TEST(CommGraph, CsrMatchesBruteForceReadsBothDirections) {
  for (const std::string spec : {"pow2", "sq1", "fib", "window:3", "offsets:2,7", "dense"}) {
    const pos_t n = 120;
    const auto p = make_pattern(spec, n);
    const auto g = build_comm_graph(p);
    nnz_t edges = 0;
    for (pos_t i = 0; i < n; ++i) {
      std::set<std::uint64_t> got;
      for (pos_t j : g.in.row(i)) got.insert(j + 1);
      ASSERT_EQ(got, brute_b_reads(p.f_values, i + 1)) << spec << " row " << i + 1;
      edges += got.size();
      for (pos_t t : g.out.row(i)) {  // every out-edge j -> t is an in-edge of t
        auto r = g.in.row(t);
        ASSERT_TRUE(std::binary_search(r.begin(), r.end(), i));
      }
    }
    EXPECT_EQ(g.num_edges(), edges);
    EXPECT_EQ(g.out.nnz(), edges);
  }
}

TEST(CommGraph, BoostBfsOnAdapterMatchesBoostOwnCsrGraph) {
  std::mt19937_64 rng(3);
  std::vector<Pattern> pats;
  for (const std::string spec : {"pow2", "sq1", "pow2+cache", "sq1+cache", "offsets:3,4", "ssm"})
    pats.push_back(make_pattern(spec, 500));
  pats.push_back(random_mask(150, 0.03, 11, false));
  for (const auto& p : pats) {
    const auto g = build_comm_graph(p);
    std::vector<std::pair<pos_t, pos_t>> edges;
    for (pos_t j = 0; j < g.n; ++j)
      for (pos_t i : g.out.row(j)) edges.emplace_back(j, i);
    using BG = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                  boost::no_property, pos_t, nnz_t>;
    BG ref(boost::edges_are_sorted, edges.begin(), edges.end(), g.n);
    for (int trial = 0; trial < 3; ++trial) {
      const pos_t src = static_cast<pos_t>(rng() % g.n);
      const pos_t inf = std::numeric_limits<pos_t>::max();
      std::vector<pos_t> d1(g.n, inf), d2(g.n, inf);
      d1[src] = d2[src] = 0;
      boost::breadth_first_search(
          g, src,
          boost::visitor(boost::make_bfs_visitor(boost::record_distances(d1.data(), boost::on_tree_edge()))));
      boost::breadth_first_search(
          ref, src,
          boost::visitor(boost::make_bfs_visitor(boost::record_distances(d2.data(), boost::on_tree_edge()))));
      ASSERT_EQ(d1, d2) << p.spec << " from " << src + 1;
    }
  }
}

TEST(CommGraph, TransposeIsAnInvolution) {
  const auto p = make_pattern("sq1+cache", 300);
  const Csr b = b_csr(p);
  const Csr tt = transpose(transpose(b));
  EXPECT_EQ(tt.ptr, b.ptr);
  EXPECT_EQ(tt.idx, b.idx);
}

TEST(CommGraph, RefusesBeyondMemoryLimit) {
  const auto p = make_pattern("sq1", 100000);
  EXPECT_THROW(build_comm_graph(p, 1 << 20), RuntimeFailure);
}

TEST(Profile, MatchesBruteForceOnEveryFamily) {
  std::vector<Pattern> pats;
  for (const std::string spec :
       {"pow2", "sq1", "sq", "fib", "window:4", "ssm", "dense", "local:3", "attention", "offsets:2,7",
        "pow2+cache", "sq1+cache", "offsets:5+cache", "local:3+cache", "window:3+cache"})
    for (pos_t n : {1u, 2u, 7u, 64u, 97u}) pats.push_back(make_pattern(spec, n));
  pats.push_back(random_mask(80, 0.05, 1, false));
  pats.push_back(random_mask(80, 0.05, 2, true));
  pats.push_back(random_mask(60, 0.2, 3, true));
  for (const auto& p : pats) {
    const auto prof = cache_profile(p);
    const auto ref = brute_profile(p);
    ASSERT_EQ(prof.decode_cost, ref.decode) << p.spec << " n=" << p.n;
    ASSERT_EQ(prof.cache_size, ref.cache) << p.spec << " n=" << p.n;
    EXPECT_EQ(prof.max_cache, *std::max_element(ref.cache.begin(), ref.cache.end()));
    nnz_t total = 0;
    for (auto x : ref.decode) total += x;
    EXPECT_EQ(prof.total_decode_cost, total);
    EXPECT_EQ(prof.nnz_b, b_csr(p).nnz()) << p.spec;
    EXPECT_EQ(prof.nnz_a, a_csr(p).nnz()) << p.spec;
    // Without per-position lists the totals are the same.
    ProfileOptions o;
    o.per_position = false;
    const auto t = cache_profile(p, o);
    EXPECT_EQ(t.max_cache, prof.max_cache);
    EXPECT_TRUE(t.cache_size.empty());
  }
}

TEST(Profile, PaperFacts) {
  // Decode cost: 2^k gives ceil(log2 i) for i >= 2; k^2+1 gives ceil(sqrt(i-1)) (docs/math.md §2).
  const auto pw = cache_profile(make_pattern("pow2", 5000));
  const auto sq = cache_profile(make_pattern("sq1", 5000));
  for (std::uint32_t i = 2; i <= 5000; ++i) {
    ASSERT_EQ(pw.decode_cost[i - 1], static_cast<std::uint32_t>(std::ceil(std::log2(i))));
    ASSERT_EQ(sq.decode_cost[i - 1], static_cast<std::uint32_t>(std::ceil(std::sqrt(i - 1.0))));
  }
  // Cache-efficient pow2: kept-set bound |C_i| <= |S_i| <= #{k : f(k) < i} + 1, max cache 8 at n = 256.
  const auto p = make_pattern("pow2+cache", 256);
  const auto ce = cache_profile(p);
  EXPECT_EQ(ce.max_cache, 8u);
  for (pos_t i = 0; i < 256; ++i) {
    EXPECT_LE(ce.kept_set[i], pw.decode_cost[i] + 1);
    if (i + 1 < 256) {
      EXPECT_LE(ce.cache_size[i], ce.kept_set[i]);
    }
  }
}

TEST(Mtx, ReadsValidFilesAndRefusesBadOnes) {
  const auto ok = write_text(
      "ok.mtx", "%%MatrixMarket matrix coordinate real general\n% comment\n3 3 2\n2 1 0.5\n3 1 -2\n");
  const Csr m = read_mtx_triangular(ok, Triangle::StrictlyLower);
  EXPECT_EQ(m.n, 3u);
  EXPECT_EQ(m.nnz(), 2u);
  EXPECT_EQ(m.val, (std::vector<double>{0.5, -2}));
  // round trip
  const auto rt = (tmpdir() / "rt.mtx").string();
  write_mtx(rt, m);
  const Csr m2 = read_mtx_triangular(rt, Triangle::StrictlyLower);
  EXPECT_EQ(m2.idx, m.idx);
  EXPECT_EQ(m2.val, m.val);

  struct Case {
    std::string text, needle;
    Triangle tri;
  };
  const std::vector<Case> bad = {
      {"", "empty file", Triangle::Lower},
      {"hello\n", "not a Matrix Market file", Triangle::Lower},
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "need 'coordinate'", Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 1\n", "symmetry", Triangle::Lower},
      {"%%MatrixMarket matrix coordinate complex general\n2 2 1\n2 1 1 0\n", "field", Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n2 3 1\n2 1 1\n", "not square", Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1\n", "not lower triangular",
       Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 1\n2 2 1\n", "strictly lower",
       Triangle::StrictlyLower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 1\n4 1 1\n", "outside", Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 1\n2 1 nan\n", "not finite", Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 1\n2 1 inf\n", "not finite", Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 2\n2 1 1\n", "announces 2 entries",
       Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 1\n2 1 1\n3 1 1\n", "more entries",
       Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 2\n2 1 1\n2 1 3\n", "more than once",
       Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 1\n2 x 1\n", "malformed entry", Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 1\n2 1\n", "missing value", Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 1\n2 1 1 7\n", "trailing", Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3\n", "size line", Triangle::Lower},
      {"%%MatrixMarket matrix coordinate real general\n3 3 9\n", "cannot fit", Triangle::StrictlyLower},
  };
  int k = 0;
  for (const auto& c : bad) {
    const auto path = write_text("bad" + std::to_string(k++) + ".mtx", c.text);
    try {
      read_mtx_triangular(path, c.tri);
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(read_mtx_triangular((tmpdir() / "missing.mtx").string(), Triangle::Lower), InputError);
}

TEST(Mtx, PatternsFromFiles) {
  const auto b =
      write_text("b4.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 3\n2 1 0.5\n4 2 1\n4 3 1\n");
  const auto a3 =
      write_text("a3.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 1\n2 2\n3 3\n");
  auto p = make_pattern("mtx:" + b, 0);
  EXPECT_EQ(p.n, 4u);
  EXPECT_EQ(p.family, PatternFamily::Matrix);
  EXPECT_EQ(make_pattern("mtx:" + b, 4).n, 4u);
  EXPECT_THROW(make_pattern("mtx:" + b, 5), UsageError);
  EXPECT_THROW(make_pattern("mtx:" + a3 + "," + b, 0), InputError);  // sizes differ
  // weights: B's from the file, A's drawn (deterministic in the seed)
  const auto w1 = random_weights(p, 5), w2 = random_weights(p, 5), w3 = random_weights(p, 6);
  EXPECT_EQ(w1.b.val, (std::vector<double>{0.5, 1, 1}));
  EXPECT_EQ(w1.a.val, w2.a.val);
  EXPECT_NE(w1.a.val, w3.a.val);
}

TEST(Weights, RowSumsBoundedAndNonzero) {
  const auto p = make_pattern("sq1", 500);
  const auto w = random_weights(p, 1);
  for (pos_t i = 0; i < p.n; ++i) {
    double sb = 0, sa = 0;
    for (double v : w.b.row_values(i)) {
      ASSERT_GE(std::fabs(v), 0.45 / std::max<double>(1, w.b.row_size(i)));
      sb += std::fabs(v);
    }
    for (double v : w.a.row_values(i)) sa += std::fabs(v);
    EXPECT_LE(sb, 0.9 + 1e-12);
    EXPECT_LE(sa, 1.0 + 1e-12);
  }
}

TEST(Profile, SameResultForAnyThreadCount) {
  for (const std::string spec : {"pow2+cache", "sq1+cache", "local:5+cache"}) {
    const auto p = make_pattern(spec, 20000);
    ProfileOptions one, two, three;
    one.threads = 1;
    two.threads = 2;
    three.threads = 3;
    const auto a = cache_profile(p, one), b = cache_profile(p, two), c = cache_profile(p, three);
    EXPECT_EQ(a.cache_size, b.cache_size) << spec;
    EXPECT_EQ(a.cache_size, c.cache_size) << spec;
    EXPECT_EQ(a.decode_cost, c.decode_cost) << spec;
    EXPECT_EQ(a.total_decode_cost, c.total_decode_cost) << spec;
    EXPECT_EQ(a.max_kept_set, c.max_kept_set) << spec;
  }
}
