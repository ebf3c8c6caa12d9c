// Tests of validate's cut-rank and routing checks (validate_extra.hpp): they pass on every pattern family,
// and each fails, with a useful detail, when the solved M, a path or the solved distances are corrupted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "cli_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/routing.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/validate.hpp"
#include "mixgraph/validate_extra.hpp"
#include "mixgraph/weights.hpp"

using namespace mixgraph;

namespace {

const char* kRankName = "cut ranks from blocks of the solved M == rank analysis";
const char* kRouteName = "routing paths valid against the solved (min,+) distances";

bool contains(const std::string& s, const std::string& sub) {
  return s.find(sub) != std::string::npos;
}

// A random strictly lower-triangular mask (pattern only) and, optionally, an A file with real values.
struct MtxFiles {
  std::filesystem::path dir;
  std::string b, a;
};
MtxFiles write_mtx(pos_t n, std::uint64_t seed) {
  MtxFiles f;
  f.dir = std::filesystem::temp_directory_path() / ("mixgraph_test_validate_extra_" + std::to_string(seed));
  std::filesystem::create_directories(f.dir);
  std::vector<std::pair<pos_t, pos_t>> b, a;
  for (pos_t i = 1; i < n; ++i) {
    b.push_back({i, i - 1});  // a chain, so copies are possible
    for (pos_t j = 0; j + 1 < i; ++j)
      if (hash_uniform(seed, 3, i, j) < 3.0 / i) b.push_back({i, j});
  }
  for (pos_t i = 0; i < n; ++i) {
    a.push_back({i, i});
    if (i >= 3 && hash_uniform(seed, 4, i, 0) < 0.3) a.push_back({i, i - 3});  // some A reads not in B
  }
  f.b = (f.dir / "B.mtx").string();
  f.a = (f.dir / "A.mtx").string();
  std::ofstream ob(f.b), oa(f.a);
  ob << "%%MatrixMarket matrix coordinate pattern general\n" << n << " " << n << " " << b.size() << "\n";
  for (auto [i, j] : b) ob << i + 1 << " " << j + 1 << "\n";
  oa << "%%MatrixMarket matrix coordinate real general\n" << n << " " << n << " " << a.size() << "\n";
  for (auto [i, j] : a)
    oa << i + 1 << " " << j + 1 << " " << (0.25 + 0.5 * hash_uniform(seed, 5, i, j)) << "\n";
  return f;
}

const ValidateCheck& find_check(const ValidateResult& r, const std::string& name) {
  for (const auto& c : r.checks)
    if (c.name == name) return c;
  static const ValidateCheck missing{"missing", false, "no such check"};
  return missing;
}

}  // namespace

// ---- leading_pattern ----

TEST(ValidateExtra, LeadingPatternEqualsThePatternOnFewerTokens) {
  for (const std::string spec : {"pow2", "sq1", "ssm", "local:8", "attention", "offsets:2,5", "pow2+cache",
                                 "sq1+cache", "local:8+cache"}) {
    const Pattern p = make_pattern(spec, 300);
    for (pos_t m : {1u, 2u, 37u, 128u, 300u}) {
      SCOPED_TRACE(spec + " m = " + std::to_string(m));
      const Pattern q = leading_pattern(p, m), ref = make_pattern(spec, m);
      EXPECT_EQ(q.n, ref.n);
      EXPECT_EQ(q.a_mode, ref.a_mode);
      EXPECT_EQ(q.f_values, ref.f_values);
      EXPECT_EQ(q.b_offsets, ref.b_offsets);
      EXPECT_EQ(q.a_offsets, ref.a_offsets);
      EXPECT_EQ(q.b.ptr, ref.b.ptr);
      EXPECT_EQ(q.b.idx, ref.b.idx);
      EXPECT_EQ(q.a.ptr, ref.a.ptr);
      EXPECT_EQ(q.a.idx, ref.a.idx);
    }
  }
  EXPECT_THROW(leading_pattern(make_pattern("pow2", 10), 11), UsageError);
  EXPECT_THROW(leading_pattern(make_pattern("pow2", 10), 0), UsageError);
}

TEST(ValidateExtra, LeadingPatternOfAMatrixKeepsRowsAndValues) {
  const auto f = write_mtx(60, 7);
  const Pattern p = make_pattern("mtx:" + f.a + "," + f.b, 0);
  const Pattern q = leading_pattern(p, 25);
  ASSERT_EQ(q.n, 25u);
  for (pos_t i = 0; i < 25; ++i) {
    EXPECT_TRUE(std::equal(q.b.row(i).begin(), q.b.row(i).end(), p.b.row(i).begin(), p.b.row(i).end()));
    EXPECT_TRUE(std::equal(q.a.row(i).begin(), q.a.row(i).end(), p.a.row(i).begin(), p.a.row(i).end()));
    EXPECT_TRUE(std::equal(q.a.row_values(i).begin(), q.a.row_values(i).end(), p.a.row_values(i).begin(),
                           p.a.row_values(i).end()));
  }
  std::filesystem::remove_all(f.dir);
}

// ---- the solved operator against an independent dense M ----

TEST(ValidateExtra, SolvedOperatorIsTheDenseOperator) {
  for (const std::string spec : {"sq1", "pow2+cache", "local:8"}) {
    const Pattern p = make_pattern(spec, 90);
    const auto w = random_weights(p, 3);
    std::string kernel;
    const auto M = solved_operator(p, w, ValidateOptions{}, kernel);
    EXPECT_FALSE(kernel.empty());
    const Eigen::MatrixXd mt = dense_operator_transposed(w);  // rank.hpp, built row by row
    double err = 0;
    for (pos_t i = 0; i < 90; ++i)
      for (pos_t j = 0; j < 90; ++j) err = std::max(err, std::abs(M[std::size_t(i) * 90 + j] - mt(j, i)));
    EXPECT_LT(err, 1e-12) << spec;
  }
}

// ---- cut ranks ----

TEST(ValidateExtra, CutRankCheckPassesOnEveryFamily) {
  const auto f = write_mtx(120, 11);
  for (const std::string& spec :
       std::vector<std::string>{"pow2", "sq1", "pow2+cache", "ssm", "local:8", "attention", "mtx:" + f.b,
                                "mtx:" + f.a + "," + f.b}) {
    SCOPED_TRACE(spec);
    const Pattern p = make_pattern(spec, spec.rfind("mtx:", 0) == 0 ? 0 : 120);
    ValidateOptions o;
    o.rank_cuts = 20;
    std::vector<std::string> kernels;
    const auto c = check_solved_cut_ranks(p, o, kernels);
    EXPECT_EQ(c.name, kRankName);
    EXPECT_TRUE(c.passed) << c.detail;
    EXPECT_TRUE(contains(c.detail, "20 cuts on all 120 positions")) << c.detail;
    EXPECT_EQ(kernels.size(), 1u);
    if (spec.find(',') != std::string::npos)  // A's values come from the file: not generic
      EXPECT_TRUE(contains(c.detail, "Menger ranks not compared")) << c.detail;
    else
      EXPECT_TRUE(contains(c.detail, "Menger")) << c.detail;
  }
  std::filesystem::remove_all(f.dir);
}

TEST(ValidateExtra, CutRankCheckMeetsTheMathExamplesOnEveryCut) {
  // docs/math.md §5: pow2+cache at n = 256 has max cut rank 14; ssm (1-semiseparable) has rank 1.
  ValidateOptions o;
  o.rank_cuts = 1000;  // every cut
  std::vector<std::string> kernels;
  auto c = check_solved_cut_ranks(make_pattern("pow2+cache", 256), o, kernels);
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_TRUE(contains(c.detail, "255 cuts on all 256 positions")) << c.detail;
  EXPECT_TRUE(contains(c.detail, "max rank 14 ")) << c.detail;
  c = check_solved_cut_ranks(make_pattern("ssm", 256), o, kernels);
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_TRUE(contains(c.detail, "max rank 1 at cut 1")) << c.detail;
}

TEST(ValidateExtra, CutRankCheckUsesTheLeadingPositionsBeyondTheLimit) {
  ValidateOptions o;
  o.rank_max_n = 100;
  o.rank_cuts = 10;
  std::vector<std::string> kernels;
  const auto c = check_solved_cut_ranks(make_pattern("sq1+cache", 5000), o, kernels);
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_TRUE(contains(c.detail, "10 cuts on the first 100 of 5000 positions")) << c.detail;
}

TEST(ValidateExtra, CutRankCheckFailsOnACorruptedSolvedM) {
  // A second backend that solves right but corrupts one entry of M: every block contains M[n, 1].
  ValidateOptions o;
  o.rank_cuts = 16;
  o.other_name = "broken";
  o.other_f64 = [](const MixerWeights<double>& w, const double* x, double* y, std::size_t d) {
    solve_mixer(w, x, y, d, 1);
    y[(w.s.n - 1) * d + 0] += 0.5;
    return std::string("broken-kernel");
  };
  for (const std::string spec : {"pow2+cache", "ssm", "local:8"}) {
    SCOPED_TRACE(spec);
    std::vector<std::string> kernels;
    const auto c = check_solved_cut_ranks(make_pattern(spec, 100), o, kernels);
    EXPECT_FALSE(c.passed) << c.detail;
    EXPECT_TRUE(contains(c.detail, "M solved on broken by broken-kernel")) << c.detail;
    EXPECT_TRUE(contains(c.detail, "differ from")) << c.detail;
    EXPECT_TRUE(contains(c.detail, "first cut K = ")) << c.detail;
    EXPECT_EQ(kernels, std::vector<std::string>{"broken-kernel"});
  }
  // and through validate_solve: the check keeps its name and fails
  const auto r = validate_solve(make_pattern("ssm", 64), o);
  EXPECT_FALSE(r.all_passed);
  EXPECT_FALSE(find_check(r, kRankName).passed) << find_check(r, kRankName).detail;
}

TEST(ValidateExtra, CompareCutRanksNamesTheFirstMismatch) {
  CutRankParams cp;
  cp.method = CutRankMethod::Both;
  cp.cuts = spaced_cuts(80, 8);
  const auto prof = cut_rank_profile(make_pattern("sq1", 80), cp);
  auto solved = prof.numeric;
  EXPECT_TRUE(compare_cut_ranks(solved, prof, "x").passed);
  solved[3] -= 1;
  solved[5] += 1;
  const auto c = compare_cut_ranks(solved, prof, "x");
  EXPECT_FALSE(c.passed);
  EXPECT_TRUE(contains(c.detail, "2 cuts differ")) << c.detail;
  EXPECT_TRUE(contains(c.detail, "first cut K = " + std::to_string(prof.cuts[3]) + ": solved M rank " +
                                     std::to_string(solved[3])))
      << c.detail;
  solved.pop_back();  // a missing rank fails too
  solved[3] += 1;
  solved[5] -= 1;
  EXPECT_FALSE(compare_cut_ranks(solved, prof, "x").passed);
}

TEST(ValidateExtra, CutRanksOfOperatorMatchTheDenseRanks) {
  const Pattern p = make_pattern("sq1+cache", 70);
  const auto w = random_weights(p, 1);
  std::string kernel;
  const auto M = solved_operator(p, w, ValidateOptions{}, kernel);
  const auto cuts = all_cuts(70);
  const auto mine = cut_ranks_of_operator(M, 70, cuts, default_rank_tolerance(70), 1);
  // Reference: Eigen's own column-pivoted QR rank on the blocks of rank.hpp's dense operator.
  const Eigen::MatrixXd mt = dense_operator_transposed(w);
  for (std::size_t c = 0; c < cuts.size(); ++c) {
    const pos_t K = cuts[c];
    Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(mt.block(0, K, K, 70 - K).transpose());
    qr.setThreshold(1e-10);
    EXPECT_EQ(mine[c], static_cast<std::uint32_t>(qr.rank())) << "cut " << K;
  }
}

// ---- routings ----

TEST(ValidateExtra, RoutingCheckPassesOnEveryFamily) {
  const auto f = write_mtx(120, 13);
  for (const std::string& spec : std::vector<std::string>{"pow2", "sq1", "pow2+cache", "sq1+cache", "ssm",
                                                          "dense", "mtx:" + f.b, "mtx:" + f.a + "," + f.b}) {
    SCOPED_TRACE(spec);
    const Pattern p = make_pattern(spec, spec.rfind("mtx:", 0) == 0 ? 0 : 120);
    const auto c = check_routings_against_distances(p, ValidateOptions{});
    EXPECT_EQ(c.name, kRouteName);
    EXPECT_TRUE(c.passed) << c.detail;
    EXPECT_TRUE(contains(c.detail, "copy length N = 60 on all 120 positions")) << c.detail;
    EXPECT_TRUE(contains(c.detail, "random (==)")) << c.detail;
    EXPECT_TRUE(contains(c.detail, "minmax (>=)")) << c.detail;
    EXPECT_EQ(contains(c.detail, "shift (==)"), p.translation_invariant()) << c.detail;
  }
  std::filesystem::remove_all(f.dir);
}

TEST(ValidateExtra, RoutingCheckOnLocalAttentionAndImpossibleCopies) {
  // local:8 reads up to 8 positions back: a copy of length 7 works (one A hop), 100 does not.
  auto c = check_routings_against_distances(make_pattern("local:8", 14), ValidateOptions{});
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_TRUE(contains(c.detail, "21 paths")) << c.detail;  // shift, random, minmax: 7 each
  for (const std::string spec : {"local:8", "local:8+cache"}) {
    c = check_routings_against_distances(make_pattern(spec, 200), ValidateOptions{});
    EXPECT_TRUE(c.passed) << c.detail;
    EXPECT_TRUE(contains(c.detail, "copy impossible for 100 of 100 inputs")) << spec << ": " << c.detail;
  }
  c = check_routings_against_distances(make_pattern("offsets:2", 2 * 31), ValidateOptions{});  // N odd
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_TRUE(contains(c.detail, "copy impossible for 31 of 31 inputs")) << c.detail;
  ValidateOptions o;
  o.routing_max_n = 40;  // N = 20 on the first 40 of 1000 positions
  c = check_routings_against_distances(make_pattern("sq1+cache", 1000), o);
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_TRUE(contains(c.detail, "copy length N = 20 on the first 40 of 1000 positions")) << c.detail;
}

TEST(ValidateExtra, CorruptedHopsAndLengthsAreCaught) {
  const pos_t N = 64;
  const CopyGraph g = make_copy_graph(make_pattern("pow2", 2 * N), N);
  const auto d = solved_copy_distances(g.pattern, 1);
  const Routing good = random_routing(g, 1);
  std::uint64_t hops = 0;
  EXPECT_EQ(compare_routing_with_distances(g, good, true, d, &hops), "");
  EXPECT_EQ(hops, good.nodes.size() - N);
  // pow2 with N = 64 is one hop (d = popcount(64) = 1): make a two-hop detour 5 -> 8 -> 69 instead.
  Routing detour = good;
  detour.nodes.clear();
  detour.ptr.assign(1, 0);
  for (pos_t i = 0; i < N; ++i) {
    detour.nodes.push_back(i);
    if (i == 5) detour.nodes.push_back(i + 3);  // 3 is no power of two: not a read
    detour.nodes.push_back(i + N);
    detour.ptr.push_back(detour.nodes.size());
  }
  std::string msg = compare_routing_with_distances(g, detour, false, d);
  EXPECT_TRUE(contains(msg, "input 6")) << msg;
  EXPECT_TRUE(contains(msg, "hop 6 -> 9 is no read")) << msg;
  // a second hop that is no read: 5 -> 6 -> 69 (69 - 6 = 63)
  detour.nodes[detour.ptr[5] + 1] = 5 + 1;
  detour.nodes[detour.ptr[5] + 2] = 5 + N;
  msg = compare_routing_with_distances(g, detour, false, d);
  EXPECT_TRUE(contains(msg, "hop 7 -> 70 is no read")) << msg;  // 69 - 6 = 63: not a power of two
  // a valid but longer path: 5 -> 37 -> 69 (offsets 32 and 32): fine for >=, not for ==
  detour.nodes[detour.ptr[5] + 1] = 5 + 32;
  EXPECT_EQ(compare_routing_with_distances(g, detour, false, d), "");
  msg = compare_routing_with_distances(g, detour, true, d);
  EXPECT_TRUE(contains(msg, "2 hops, solved shortest distance 1")) << msg;
  // a path that ends in the wrong place
  detour.nodes[detour.ptr[5] + 2] = 5 + N - 1;
  msg = compare_routing_with_distances(g, detour, false, d);
  EXPECT_TRUE(contains(msg, "does not run from 6 to 70")) << msg;
  // corrupted solved distances are caught too (the solve engine as the suspect)
  auto dd = d;
  dd.first[std::size_t(5 + N) * dd.n + 5] = 2;
  msg = compare_routing_with_distances(g, good, true, dd);
  EXPECT_TRUE(contains(msg, "input 6")) << msg;
}

TEST(ValidateExtra, LaterHopsMustBeBReads) {
  // local:8 has no B: i -> i+1 -> i+5 is two A reads, valid as a first hop only.
  const pos_t N = 5;
  const CopyGraph g = make_copy_graph(make_pattern("local:8", 2 * N), N);
  const auto d = solved_copy_distances(g.pattern, 1);
  Routing r = random_routing(g, 1);
  EXPECT_EQ(compare_routing_with_distances(g, r, true, d), "");
  r.nodes.clear();
  r.ptr.assign(1, 0);
  for (pos_t i = 0; i < N; ++i) {
    r.nodes.push_back(i);
    if (i == 2) r.nodes.push_back(i + 1);
    r.nodes.push_back(i + N);
    r.ptr.push_back(r.nodes.size());
  }
  const std::string msg = compare_routing_with_distances(g, r, false, d);
  EXPECT_TRUE(contains(msg, "input 3")) << msg;
  EXPECT_TRUE(contains(msg, "hop 4 -> 8 is no read (solved B-only distance inf")) << msg;
}

// ---- validate_solve and the CLI ----

TEST(ValidateExtra, ValidateSolveRunsBothChecks) {
  for (const std::string spec : {"pow2", "sq1", "pow2+cache", "ssm", "local:8"}) {
    SCOPED_TRACE(spec);
    const auto r = validate_solve(make_pattern(spec, 96), ValidateOptions{});
    EXPECT_TRUE(r.all_passed);
    EXPECT_TRUE(find_check(r, kRankName).passed) << find_check(r, kRankName).detail;
    EXPECT_TRUE(find_check(r, kRouteName).passed) << find_check(r, kRouteName).detail;
    std::set<std::string> names;
    for (const auto& c : r.checks) names.insert(c.name);
    EXPECT_EQ(names.size(), r.checks.size());  // names stay unique
  }
  // n = 1: no cut and no copy task, so neither check is added
  const auto r1 = validate_solve(make_pattern("pow2", 1), ValidateOptions{});
  EXPECT_EQ(find_check(r1, kRankName).name, "missing");
  EXPECT_EQ(find_check(r1, kRouteName).name, "missing");
}

TEST(ValidateExtra, CliListsBothChecks) {
  const auto j_run = test::run_cli("validate --pattern pow2+cache --n 128 --backend cpu --format json");
  ASSERT_EQ(j_run.code, 0) << j_run.err;
  const auto j = nlohmann::json::parse(j_run.out);
  std::set<std::string> names;
  for (const auto& c : j["checks"]) {
    names.insert(c["name"]);
    EXPECT_TRUE(c["passed"].get<bool>()) << c["name"] << ": " << c["detail"];
  }
  EXPECT_TRUE(names.count(kRankName));
  EXPECT_TRUE(names.count(kRouteName));
  const auto t = test::run_cli("validate --pattern ssm --n 64 --backend cpu");
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_TRUE(contains(t.out, kRankName)) << t.out;
  EXPECT_TRUE(contains(t.out, kRouteName)) << t.out;
}
