// Cut ranks (numeric vs Menger flow vs Boost vs full inverse), cache bound, log-linear attention, Ghodsi
// rank.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli_util.hpp"
#include "mixgraph/cancel.hpp"
#include "mixgraph/hierarchical.hpp"
#include "mixgraph/interaction.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/rank.hpp"

using namespace mixgraph;

namespace {

/// A random lower-triangular mask with weights (independent of pattern.cpp): every (i, j), j < i, in B with
/// probability pb; A = diagonal plus each j < i with probability pa. Weights scaled like weights.hpp.
WeightedPattern random_mask(pos_t n, double pb, double pa, std::uint64_t seed) {
  WeightedPattern w;
  for (Csr* m : {&w.a, &w.b}) {
    m->n = n;
    m->ptr.assign(1, 0);
  }
  for (pos_t i = 0; i < n; ++i) {
    std::vector<pos_t> bj, aj;
    for (pos_t j = 0; j < i; ++j) {
      if (hash_uniform(seed, 11, i, j) < pb) bj.push_back(j);
      if (hash_uniform(seed, 12, i, j) < pa) aj.push_back(j);
    }
    aj.push_back(i);
    for (auto [m, v, st] : {std::tuple{&w.b, &bj, 0.9}, std::tuple{&w.a, &aj, 1.0}}) {
      for (pos_t j : *v) {
        m->idx.push_back(j);
        const double u = hash_uniform(seed, 13, i, j);
        m->val.push_back(st / static_cast<double>(v->size()) * (u < 0.5 ? -(0.5 + u) : u));
      }
      m->ptr.push_back(m->idx.size());
    }
  }
  return w;
}

Eigen::MatrixXd to_dense(const Csr& c) {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(c.n, c.n);
  for (pos_t i = 0; i < c.n; ++i) {
    const auto j = c.row(i);
    const auto v = c.row_values(i);
    for (std::size_t k = 0; k < j.size(); ++k) m(i, j[k]) = v[k];
  }
  return m;
}

/// Independent numeric reference: M = (I - B)^{-1} A by a full inverse, block rank by JacobiSVD.
std::vector<std::uint32_t> svd_cut_ranks(const WeightedPattern& w, double rel) {
  const pos_t n = w.a.n;
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd m = (I - to_dense(w.b)).fullPivLu().inverse() * to_dense(w.a);
  std::vector<std::uint32_t> r;
  for (pos_t k = 1; k < n; ++k) {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(m.block(k, 0, n - k, k));
    const auto& s = svd.singularValues();
    std::uint32_t c = 0;
    for (Eigen::Index l = 0; l < s.size(); ++l)
      if (s(l) > rel * s(0)) ++c;
    r.push_back(c);
  }
  return r;
}

/// Brute-force |C_K|: positions j <= K read (A or B) by some t > K.
std::uint32_t brute_cache(const WeightedPattern& w, pos_t K) {
  std::set<pos_t> c;
  for (pos_t t = K; t < w.a.n; ++t) {
    for (pos_t j : w.a.row(t))
      if (j < K) c.insert(j);
    for (pos_t j : w.b.row(t))
      if (j < K) c.insert(j);
  }
  return static_cast<std::uint32_t>(c.size());
}

const std::vector<std::string> kPatterns = {
    "pow2",           "sq1",       "window:3",    "ssm",     "dense",     "pow2+cache", "sq1+cache",
    "window:3+cache", "fib+cache", "pow:3+cache", "local:4", "attention", "offsets:2",  "offsets:3,5"};

}  // namespace

TEST(CutRank, DenseAndFlowAgreeOnNamedPatterns) {
  for (const auto& spec : kPatterns) {
    const pos_t n = spec == "dense" || spec == "attention" ? 96 : 160;
    const auto p = make_pattern(spec, n);
    const auto iw = induced_weights(p, 7);
    const auto cuts = all_cuts(n);
    const auto num = cut_ranks_dense(iw.w, cuts);
    const auto flo = cut_ranks_flow(iw.w, cuts);
    for (std::size_t c = 0; c < cuts.size(); ++c)
      EXPECT_EQ(num.rank[c], flo.rank[c]) << spec << " K = " << cuts[c];
  }
}

TEST(CutRank, DenseAndFlowAgreeOnRandomMasks) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const auto w = random_mask(90, 0.02 * static_cast<double>(seed), 0.03, seed);
    const auto cuts = all_cuts(90);
    const auto num = cut_ranks_dense(w, cuts);
    const auto flo = cut_ranks_flow(w, cuts);
    EXPECT_EQ(num.rank, flo.rank) << "seed " << seed;
  }
}

TEST(CutRank, FlowMatchesBoostMaxFlow) {
  for (const auto& spec : kPatterns) {
    const auto p = make_pattern(spec, 70);
    const auto iw = induced_weights(p, 3);
    const auto cuts = all_cuts(70);
    EXPECT_EQ(cut_ranks_flow(iw.w, cuts).rank, cut_ranks_flow_boost(iw.w, cuts)) << spec;
  }
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto w = random_mask(80, 0.04, 0.05, seed + 100);
    // unsorted cut lists with jumps: the incremental flow sorts internally
    const std::vector<pos_t> cuts = {40, 3, 77, 41, 12, 60, 1, 79};
    EXPECT_EQ(cut_ranks_flow(w, cuts).rank, cut_ranks_flow_boost(w, cuts)) << seed;
  }
}

TEST(CutRank, DenseMatchesFullInverseSvd) {
  for (const auto& spec : {"pow2", "sq1+cache", "window:2", "ssm", "dense"}) {
    const auto iw = induced_weights(make_pattern(spec, 48), 5);
    EXPECT_EQ(cut_ranks_dense(iw.w, all_cuts(48)).rank, svd_cut_ranks(iw.w, 1e-10)) << spec;
  }
  const auto w = random_mask(50, 0.05, 0.05, 9);
  EXPECT_EQ(cut_ranks_dense(w, all_cuts(50)).rank, svd_cut_ranks(w, 1e-10));
}

TEST(CutRank, SketchMatchesDense) {
  for (const auto& spec :
       {"pow2", "sq1", "pow2+cache", "sq1+cache", "window:3", "ssm", "local:6", "local:64"}) {
    const auto iw = induced_weights(make_pattern(spec, 300), 2);
    const auto cuts = spaced_cuts(300, 17);
    EXPECT_EQ(cut_ranks_sketch(iw.w, cuts).rank, cut_ranks_dense(iw.w, cuts).rank) << spec;
  }
  const auto w = random_mask(200, 0.01, 0.02, 4);
  const auto cuts = spaced_cuts(200, 9);
  EXPECT_EQ(cut_ranks_sketch(w, cuts).rank, cut_ranks_dense(w, cuts).rank);
}

TEST(CutRank, ExpectedFindings) {
  CutRankParams prm;
  const auto full = cut_rank_profile(make_pattern("pow2", 256), prm);
  ASSERT_EQ(full.cuts.size(), 255u);
  EXPECT_EQ(full.flow[127], 128u);  // r(128)
  EXPECT_EQ(full.numeric[127], 128u);
  EXPECT_TRUE(full.agree);
  const auto ce = cut_rank_profile(make_pattern("pow2+cache", 256), prm);
  EXPECT_EQ(ce.max_cut_rank, 14u);
  EXPECT_EQ(ce.max_cache, 8u);
  EXPECT_TRUE(ce.agree);
  EXPECT_TRUE(ce.bound_violations.empty());
}

TEST(CutRank, CacheBoundAgainstBruteForceCache) {
  for (const auto& spec : {"pow2+cache", "sq1+cache", "ssm", "window:4", "local:3", "pow2"}) {
    const auto p = make_pattern(spec, 128);
    CutRankParams prm;
    const auto r = cut_rank_profile(p, prm);
    const auto iw = induced_weights(p, 1);
    EXPECT_EQ(r.a_diagonal, std::string(spec) == "ssm");
    for (std::size_t c = 0; c < r.cuts.size(); ++c) {
      const auto cache = brute_cache(iw.w, r.cuts[c]);
      EXPECT_EQ(r.cache_at_cut[c], cache) << spec << " K = " << r.cuts[c];
      EXPECT_LE(r.flow[c], (r.a_diagonal ? 1u : 2u) * cache) << spec << " K = " << r.cuts[c];
    }
    EXPECT_TRUE(r.bound_violations.empty()) << spec;
  }
}

TEST(CutRank, SpacedCuts) {
  EXPECT_EQ(spaced_cuts(10, 100), all_cuts(10));
  const auto c = spaced_cuts(65536, 64);
  EXPECT_EQ(c.size(), 64u);
  EXPECT_TRUE(std::is_sorted(c.begin(), c.end()));
  EXPECT_GE(c.front(), 1u);
  EXPECT_LE(c.back(), 65535u);
}

TEST(CutRank, SlowSketchAndFlowAtLargerN) {
  const auto iw = induced_weights(make_pattern("pow2+cache", 4096), 1);
  const auto cuts = spaced_cuts(4096, 8);
  EXPECT_EQ(cut_ranks_sketch(iw.w, cuts).rank, cut_ranks_flow(iw.w, cuts).rank);
  EXPECT_EQ(cut_ranks_flow(iw.w, cuts).rank, cut_ranks_flow_boost(iw.w, cuts));
}

// ---------------------------------------------------------------------------------------------------------
// Log-linear attention

TEST(LogLinear, BucketsMatchBruteForce) {
  for (std::uint64_t t = 0; t < 600; ++t) {
    std::set<std::uint32_t> levels;
    for (std::uint64_t s = 0; s <= t; ++s) {
      std::uint32_t l = 0;
      for (std::uint64_t x = t ^ s; x; x >>= 1) ++l;  // bit length by hand
      levels.insert(l);
      EXPECT_EQ(loglinear_level(t, s), l);
    }
    EXPECT_EQ(loglinear_buckets(t), levels.size()) << t;
  }
}

TEST(LogLinear, MaxLevelsAndLevelIndices) {
  for (std::uint64_t T : {1ull, 2ull, 3ull, 8ull, 100ull, 513ull}) {
    std::set<std::uint32_t> all_levels;
    std::size_t mx = 0;
    for (std::uint64_t t = 0; t < T; ++t) {
      std::set<std::uint32_t> lv;
      for (std::uint64_t s = 0; s <= t; ++s) {
        lv.insert(loglinear_level(t, s));
        all_levels.insert(loglinear_level(t, s));
      }
      mx = std::max(mx, lv.size());
    }
    const auto s = loglinear_summary(T, 1, 0);
    EXPECT_EQ(s.max_levels, mx) << T;
    EXPECT_EQ(s.level_indices, all_levels.size()) << T;
  }
  const auto big = loglinear_summary(131072, 1, 0);
  EXPECT_EQ(big.max_levels, 18u);     // not the 19 of ceil(log2 t + 1) + 1
  EXPECT_EQ(big.level_indices, 18u);  // bit_length(131071) + 1
  EXPECT_TRUE(big.dyadic_blocks_rank_le_1);
}

TEST(LogLinear, DyadicBlocksNumericallyRankOne) {
  const std::uint64_t T = 96;  // not a power of two: clipped blocks
  const Eigen::MatrixXd mt = loglinear_mask_transposed(T, 3);
  // independent check of the mask's definition and of every dyadic block's rank
  for (std::uint64_t t = 0; t < T; ++t)
    for (std::uint64_t s = 0; s < T; ++s) {
      if (s > t)
        EXPECT_EQ(mt(s, t), 0.0);
      else
        EXPECT_GE(mt(s, t), 0.5);
    }
  std::uint32_t worst = 0;
  for (std::uint64_t bs = 1; bs < T; bs *= 2)
    for (std::uint64_t c0 = 0; c0 + bs < T; c0 += 2 * bs) {
      const auto rows = std::min(bs, T - c0 - bs);
      Eigen::MatrixXd blk = mt.block(c0, c0 + bs, bs, rows).transpose();
      Eigen::JacobiSVD<Eigen::MatrixXd> svd(blk);
      const auto& sv = svd.singularValues();
      std::uint32_t r = 0;
      for (Eigen::Index l = 0; l < sv.size(); ++l)
        if (sv(l) > 1e-10 * sv(0)) ++r;
      worst = std::max(worst, r);
    }
  EXPECT_EQ(worst, 1u);
  const auto s = loglinear_summary(T, 3, 1024);
  ASSERT_TRUE(s.numeric_done);
  EXPECT_TRUE(s.dyadic_blocks_rank_le_1);
  for (auto r : s.numeric.max_rank) EXPECT_EQ(r, 1u);
  // a pattern's M is not HODLR-rank-1: pow2's largest dyadic block has full rank
  const auto iw = induced_weights(make_pattern("pow2", 64), 1);
  const auto d = dyadic_block_ranks_transposed(dense_operator_transposed(iw.w), 1e-10);
  EXPECT_EQ(d.max_rank.back(), 32u);
}

// ---------------------------------------------------------------------------------------------------------
// Ghodsi interaction rank

TEST(Ghodsi, RotationExample) {
  for (std::uint64_t n = 2; n <= 40; ++n) {
    const auto r = ssm_interaction_rank(rotation_ssm(), n, 0);
    EXPECT_EQ(r.rank, 2u) << n;
    double odd = 0;
    for (std::uint64_t tau = 1; tau < n; tau += 2) odd += static_cast<double>(n - tau);
    EXPECT_NEAR(r.residual_by_heads[1], std::sqrt(2.0 * odd), 1e-9 * std::sqrt(2.0 * odd)) << n;
    EXPECT_GE(r.residual_by_heads[1], 1.0) << n;
    EXPECT_LT(r.residual_by_heads[2], 1e-9);
  }
  EXPECT_EQ(ssm_interaction_rank(rotation_ssm(), 1, 0).rank, 1u);
}

TEST(Ghodsi, ResidualsMatchDirectSvd) {
  const auto m = random_stable_ssm(6, 3, 4, 11);
  EXPECT_NEAR(Eigen::JacobiSVD<Eigen::MatrixXd>(m.A).singularValues()(0), 0.95, 1e-12);
  const std::uint64_t n = 50;
  // independent stack: explicit matrix powers, pair by pair (sum over i >= j of ||W(i-j)||^2 weights)
  Eigen::MatrixXd S(n, 12);
  for (std::uint64_t tau = 0; tau < n; ++tau) {
    Eigen::MatrixXd P = Eigen::MatrixXd::Identity(6, 6);
    for (std::uint64_t q = 0; q < tau; ++q) P = P * m.A;
    const Eigen::MatrixXd W = m.C * P * m.B;
    for (int c = 0; c < 4; ++c)
      for (int rr = 0; rr < 3; ++rr) S(tau, c * 3 + rr) = std::sqrt(static_cast<double>(n - tau)) * W(rr, c);
  }
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(S, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const auto r = ssm_interaction_rank(m, n, 1e-8);
  ASSERT_EQ(r.singular_values.size(), 12u);
  for (int l = 0; l < 12; ++l)
    EXPECT_NEAR(r.singular_values[l], svd.singularValues()(l), 1e-9 * svd.singularValues()(0));
  EXPECT_LE(r.rank, 6u);  // <= N
  EXPECT_GE(r.rank, 1u);
  for (std::uint32_t H = 0; H <= 12; ++H) {
    // Eckart-Young: the truncated SVD's Frobenius error
    Eigen::MatrixXd SH = svd.matrixU().leftCols(H) * svd.singularValues().head(H).asDiagonal() *
                         svd.matrixV().leftCols(H).transpose();
    EXPECT_NEAR(r.residual_by_heads[H], (S - SH).norm(), 1e-9 * S.norm()) << H;
  }
  EXPECT_GT(r.residual_by_heads[r.rank - 1], 1e-8 * r.singular_values[0]);
  EXPECT_LT(r.residual_by_heads[r.rank], 1e-6 * r.singular_values[0]);
}

TEST(Ghodsi, HeadsRankAtMostH) {
  const pos_t n = 24;
  std::vector<WeightedPattern> heads;
  std::vector<Eigen::MatrixXd> vals;
  const std::vector<std::string> specs = {"pow2", "ssm", "local:3"};
  for (std::size_t h = 0; h < specs.size(); ++h) {
    heads.push_back(induced_weights(make_pattern(specs[h], n), 1 + h).w);
    vals.push_back(random_value_matrix(3, 3, 5, static_cast<std::uint32_t>(h)));
  }
  const auto r = heads_interaction_rank(heads, vals, 0);
  // independent: W_ij from full inverses, stack of all pairs, JacobiSVD rank
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(n * (n + 1) / 2, 9);
  for (std::size_t h = 0; h < heads.size(); ++h) {
    const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(n, n);
    const Eigen::MatrixXd M = (I - to_dense(heads[h].b)).inverse() * to_dense(heads[h].a);
    int row = 0;
    for (pos_t i = 0; i < n; ++i)
      for (pos_t j = 0; j <= i; ++j, ++row)
        for (int q = 0; q < 9; ++q) S(row, q) += M(i, j) * vals[h](q % 3, q / 3);
  }
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(S);
  std::uint32_t k = 0;
  for (int l = 0; l < 9; ++l)
    if (svd.singularValues()(l) > 1e-8 * svd.singularValues()(0)) ++k;
  EXPECT_EQ(r.rank, k);
  EXPECT_EQ(r.rank, 3u);
}

// ---------------------------------------------------------------------------------------------------------
// CLI end to end

namespace {
struct RankCliResult {
  int code = -1;
  std::string out;
};
RankCliResult rank_run_cli(const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string out = (dir / ("mixgraph_rank_" + std::to_string(::getpid()) + ".out")).string();
  const std::string cmd = mixgraph::test::cli_path() + " rank " + args + " > " + out + " 2>/dev/null";
  const int st = std::system(cmd.c_str());
  RankCliResult r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  r.out = ss.str();
  std::filesystem::remove(out);
  return r;
}
nlohmann::json rank_run_json(const std::string& args) {
  const auto r = rank_run_cli(args + " --format json");
  EXPECT_EQ(r.code, 0) << args;
  return nlohmann::json::parse(r.out);
}
std::string write_file(const std::string& name, const std::string& text) {
  const auto p =
      std::filesystem::temp_directory_path() / ("mixgraph_rank_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p.string();
}
}  // namespace

TEST(Cli, RankJsonFields) {
  const auto j = rank_run_json("--pattern pow2+cache --n 256");
  EXPECT_EQ(j["schema"], "mixgraph.rank/1");
  ASSERT_EQ(j["cuts"].size(), 255u);
  EXPECT_EQ(j["cuts"][0], 1);
  EXPECT_EQ(j["cut_rank_numeric"].size(), 255u);
  EXPECT_EQ(j["cut_rank_flow"], j["cut_rank_numeric"]);
  EXPECT_EQ(j["cache_at_cut"].size(), 255u);
  EXPECT_EQ(j["max_cut_rank"], 14);
  EXPECT_EQ(j["max_cache"], 8);
  EXPECT_EQ(j["agree"], true);
  EXPECT_TRUE(j["tolerance"].is_null());  // the default here is the exact rank: no floating-point tolerance
  EXPECT_TRUE(j["tolerance_rule"].is_string());
  EXPECT_EQ(j["cache_bound"]["holds"], true);
  const auto dn = rank_run_json("--pattern pow2+cache --n 256 --method dense");
  EXPECT_TRUE(dn["tolerance"].is_number());
  EXPECT_TRUE(dn["tolerance_rule"].is_string());
  const auto f = rank_run_json("--pattern pow2 --n 2000 --method flow --cuts 1000,");
  EXPECT_TRUE(f["tolerance"].is_null());  // no numeric rank ran
  EXPECT_TRUE(f["tolerance_rule"].is_null());
  EXPECT_EQ(f["cuts"], nlohmann::json::array({1000}));
  EXPECT_EQ(f["cut_rank_flow"][0], 1000);
  EXPECT_TRUE(f["cut_rank_numeric"].is_null());
  const auto s = rank_run_json("--pattern sq1+cache --n 3000 --cuts 5");
  EXPECT_EQ(s["numeric_method"], "exact");  // seeded weights: exact ranks over GF(2^61-1)
  EXPECT_EQ(s["cuts"].size(), 5u);
  EXPECT_EQ(s["agree"], true);
}

TEST(Cli, RankSubcommands) {
  const auto l = rank_run_json("loglinear --T 131072");
  EXPECT_EQ(l["schema"], "mixgraph.rank.loglinear/1");
  EXPECT_EQ(l["max_levels"], 18);
  EXPECT_EQ(l["dyadic_blocks_rank_le_1"], true);
  const auto l2 = rank_run_json("loglinear --T 64 --pattern pow2");
  EXPECT_EQ(l2["buckets_per_query"].size(), 64u);
  EXPECT_TRUE(l2["pattern_dyadic"].is_object());
  const auto r = rank_run_json("ssm --n 16 --example rotation");
  EXPECT_EQ(r["interaction_rank"], 2);
  EXPECT_GE(r["residual_by_heads"][1].get<double>(), 1.0);
  const auto s = rank_run_json("ssm --n 200 --state 8 --p 3 --d 3");
  EXPECT_EQ(s["schema"], "mixgraph.rank.ssm/1");
  EXPECT_LE(s["interaction_rank"].get<int>(), 8);
  EXPECT_EQ(s["singular_values"].size(), 9u);
  EXPECT_EQ(s["residual_by_heads"].size(), 10u);
  const auto h = rank_run_json("heads --pattern pow2 --pattern ssm --n 32 --p 2 --d 2");
  EXPECT_EQ(h["interaction_rank"], 2);
}

TEST(Cli, RankFileWeightsMayDisagree) {
  // A = all ones (lower), B = 0 except one entry: M's block at K = 2 has rank 1, Menger says 2.
  const auto a =
      write_file("A.mtx",
                 "%%MatrixMarket matrix coordinate real general\n4 4 10\n1 1 1\n2 1 1\n2 2 1\n3 1 1\n3 2 1\n"
                 "3 3 1\n4 1 1\n4 2 1\n4 3 1\n4 4 1\n");
  const auto b = write_file("B.mtx", "%%MatrixMarket matrix coordinate real general\n4 4 1\n4 3 0\n");
  const auto j = rank_run_json("--pattern mtx:" + a + "," + b);
  EXPECT_EQ(j["weights"], "file");
  EXPECT_EQ(j["agree"], false);
  ASSERT_GE(j["disagreements"].size(), 1u);
  const auto m = write_file("M.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
  const auto bad = write_file("bad.mtx", "not a matrix market file\n");
  EXPECT_EQ(rank_run_cli("ssm --n 8 --matrices " + m + "," + m + "," + bad).code, 3);
  std::filesystem::remove(a);
  std::filesystem::remove(b);
  std::filesystem::remove(m);
  std::filesystem::remove(bad);
}

TEST(Cli, RankUsageErrors) {
  EXPECT_EQ(rank_run_cli("--pattern pow2 --n 1").code, 2);
  EXPECT_EQ(rank_run_cli("--pattern pow2").code, 2);
  EXPECT_EQ(rank_run_cli("--n 64").code, 2);
  EXPECT_EQ(rank_run_cli("--pattern pow2 --n 64 --method fast").code, 2);
  EXPECT_EQ(rank_run_cli("--pattern pow2 --n 64 --cuts 0,5").code, 2);
  EXPECT_EQ(rank_run_cli("--pattern pow2 --n 64 --cuts 64,").code, 2);
  EXPECT_EQ(rank_run_cli("--pattern nosuch --n 64").code, 2);
  EXPECT_EQ(rank_run_cli("loglinear --T 0").code, 2);
  EXPECT_EQ(rank_run_cli("ssm --n 10").code, 2);
  EXPECT_EQ(rank_run_cli("ssm --n 10 --example spin").code, 2);
  EXPECT_EQ(rank_run_cli("--pattern pow2 --n 2^20 --method dense --mem-limit 1G").code, 1);
}

TEST(CutRank, SameResultsForAnyThreadCount) {
  const auto iw = induced_weights(make_pattern("sq1+cache", 600), 4);
  const auto cuts = spaced_cuts(600, 12);
#ifdef _OPENMP
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = cut_ranks_sketch(iw.w, cuts);
  omp_set_num_threads(3);
  const auto three = cut_ranks_sketch(iw.w, cuts);
  omp_set_num_threads(before);
  EXPECT_EQ(one.rank, three.rank);
  EXPECT_EQ(one.columns, three.columns);
#else
  GTEST_SKIP() << "built without OpenMP";
#endif
}

// The sketch's blocks are factored in panels of 64 columns: a deficit found past the first panel of a block
// (sink:200 has rank 200 = 128 + 72 at the middle cuts: the block of 128 columns after a basis of 128) must
// count the same rank as the Menger flow (generic weights) and the dense factorisation.
TEST(CutRank, SketchCountsADeficitPastTheFirstPanel) {
  const auto iw = induced_weights(make_pattern("sink:200", 700), 3);
  const auto cuts = spaced_cuts(700, 7);
  const auto sk = cut_ranks_sketch(iw.w, cuts);
  EXPECT_EQ(sk.rank, cut_ranks_flow(iw.w, cuts).rank);
  EXPECT_EQ(sk.rank, cut_ranks_dense(iw.w, cuts).rank);
  EXPECT_EQ(*std::max_element(sk.rank.begin(), sk.rank.end()), 200u);
  EXPECT_GT(sk.largest_dropped, 0.0);  // the deficit was counted by the pivoted QR
  EXPECT_LT(sk.largest_dropped, sk.tolerance);
}

// A set cancel flag stops the dense and the sketched cut ranks with Cancelled: set before the call (no cut
// starts), and set by another thread 0.3 s into one cut of several seconds (the loops inside the cut look
// at it: the operator's rows, the pivoted QR's columns, the sketch's solves and panels). A clear flag
// changes nothing.
TEST(CutRank, CancelFlagStopsOneDenseOrSketchedCut) {
  using namespace std::chrono_literals;
  const auto iw = induced_weights(make_pattern("sq1", 3072), 1);
  const std::vector<pos_t> one_cut{1536};
  for (const bool sketch : {false, true}) {
    const auto run = [&] {
      return sketch ? cut_ranks_sketch(iw.w, one_cut) : cut_ranks_dense(iw.w, one_cut);
    };
    std::atomic<bool> flag{true};
    const CancelScope scope(&flag);
    EXPECT_THROW(run(), Cancelled) << (sketch ? "sketch" : "dense") << ", flag set before";
    flag = false;
    std::thread setter([&] {
      std::this_thread::sleep_for(300ms);
      flag = true;
    });
    EXPECT_THROW(run(), Cancelled) << (sketch ? "sketch" : "dense") << ", flag set during the cut";
    setter.join();
  }
  const auto small = induced_weights(make_pattern("sq1+cache", 300), 2);
  const auto cuts = spaced_cuts(300, 9);
  const auto plain = cut_ranks_sketch(small.w, cuts);
  std::atomic<bool> clear{false};
  const CancelScope scope(&clear);
  const auto scoped = cut_ranks_sketch(small.w, cuts);
  EXPECT_EQ(scoped.rank, plain.rank);
  EXPECT_EQ(scoped.smallest_kept, plain.smallest_kept);
  EXPECT_EQ(cut_ranks_dense(small.w, cuts).rank, plain.rank);
}

// The method names: the CLI's --method choices, each read back to its method; any other text is refused.
TEST(CutRankMethodNames, EveryNameReadsBackAndNothingElseIs) {
  const std::vector<std::pair<CutRankMethod, std::string>> all = {
      {CutRankMethod::Auto, "auto"}, {CutRankMethod::Dense, "dense"}, {CutRankMethod::Sketch, "sketch"},
      {CutRankMethod::Flow, "flow"}, {CutRankMethod::Both, "both"},   {CutRankMethod::Exact, "exact"}};
  for (const auto& [m, name] : all) {
    EXPECT_EQ(to_string(m), name);
    EXPECT_EQ(cut_rank_method_from(name), m);
  }
  for (const char* bad : {"", "Dense", "dense ", "svd", "both,flow"})
    EXPECT_FALSE(cut_rank_method_from(bad).has_value()) << bad;
}

// The flow ranks look at a CancelScope's flag between cuts (no progress hook needed): a set flag stops them
// with Cancelled; a clear one changes nothing.
TEST(CutRank, CancelFlagStopsTheFlowBetweenCuts) {
  const auto iw = induced_weights(make_pattern("pow2", 512), 1);
  const auto cuts = all_cuts(512);
  const auto plain = cut_ranks_flow(iw.w, cuts);
  std::atomic<bool> clear{false};
  {
    const CancelScope scope(&clear);
    EXPECT_EQ(cut_ranks_flow(iw.w, cuts).rank, plain.rank);
  }
  std::atomic<bool> set{true};
  const CancelScope scope(&set);
  EXPECT_THROW(cut_ranks_flow(iw.w, cuts), Cancelled);
}
