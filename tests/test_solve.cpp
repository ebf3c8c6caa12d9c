// Tests of the solve engine (solve.hpp), its GPU backend (gpu_solve.hpp) and the validate / solve commands.
// References: dense Eigen, brute-force BFS on the pattern's reads, closed forms of docs/math.md (popcount).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_util.hpp"
#include "dense_mixer.hpp"
#include "mixgraph/analysis/gpu_options_env.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/npy.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/solve_backend.hpp"
#include "mixgraph/validate.hpp"
#include "mixgraph/weights.hpp"

using namespace mixgraph;

namespace {

using mixgraph::test::dense;  // Y_h = (I - B_h)^{-1} A_h X_h through the explicit inverse
using mixgraph::test::inputs;

// Brute-force d(i, s) on the layered DAG: BFS over the pattern's reads, first hop through A.
std::vector<std::uint32_t> brute_dist(const Pattern& p, pos_t s) {
  const pos_t n = p.n;
  std::vector<std::uint32_t> d(n, kUnreachable);
  for (pos_t i = s; i < n; ++i) {
    std::uint32_t best = kUnreachable;
    for_each_a_read(p, i, [&](pos_t j) {
      if (j == s) best = std::min<std::uint32_t>(best, i == s ? 0 : 1);
    });
    for_each_b_read(p, i, [&](pos_t j) {
      if (d[j] != kUnreachable) best = std::min(best, d[j] + 1);
    });
    d[i] = best;
  }
  return d;
}

std::vector<WeightedPattern> head_weights(const Pattern& p, int heads, std::uint64_t seed) {
  std::vector<WeightedPattern> w;
  for (int h = 0; h < heads; ++h) w.push_back(random_weights(p, seed + h));
  return w;
}

struct Case {
  std::string spec;
  pos_t n;
  int heads;
  std::size_t dh;
};

class SolveVsDense : public ::testing::TestWithParam<Case> {};

TEST_P(SolveVsDense, Fp64AndFp32MatchDenseEigen) {
  const auto& c = GetParam();
  const Pattern p = make_pattern(c.spec, c.n);
  const auto hs = head_weights(p, c.heads, 11);
  const std::size_t d = c.heads * c.dh;
  const auto x = inputs(p.n, d, 5);
  const auto ref = dense(hs, p.n, x, d);
  const auto w64 = mixer_weights_from<double>(p, hs);
  std::vector<double> y(x.size());
  const auto info = solve_mixer(w64, x.data(), y.data(), d, 2);
  EXPECT_FALSE(info.kernel.empty());
  EXPECT_LE(relative_frobenius(y.data(), ref.data(), y.size()), 1e-12) << c.spec << " " << info.kernel;
  std::vector<double> yr(x.size());
  solve_recurrence<double>(hs, p.n, x.data(), yr.data(), d);
  EXPECT_LE(relative_frobenius(yr.data(), ref.data(), y.size()), 1e-12);
  const auto w32 = mixer_weights_from<float>(p, hs);
  std::vector<float> xf(x.begin(), x.end()), yf(x.size());
  solve_mixer(w32, xf.data(), yf.data(), d, 1);
  EXPECT_LE(relative_frobenius(yf.data(), ref.data(), y.size()), 1e-5);
  // make_mixer_weights is the same as drawing the heads with seeds seed + h
  const auto w2 = make_mixer_weights<double>(p, c.heads, 11);
  EXPECT_EQ(w2.a, w64.a);
  EXPECT_EQ(w2.b, w64.b);
}

INSTANTIATE_TEST_SUITE_P(Patterns, SolveVsDense,
                         ::testing::Values(Case{"pow2", 200, 1, 3}, Case{"pow2", 97, 3, 5},
                                           Case{"sq1", 150, 2, 4}, Case{"pow2+cache", 180, 2, 2},
                                           Case{"sq1+cache", 120, 1, 40}, Case{"ssm", 90, 7, 1},
                                           Case{"window:3", 64, 4, 1}, Case{"local:4", 80, 2, 3},
                                           Case{"attention", 40, 1, 2}, Case{"offsets:2,5", 70, 1, 33},
                                           Case{"dense", 50, 2, 1}, Case{"pow2", 130, 64, 1},
                                           Case{"pow2", 140, 1, 64}, Case{"sq1", 140, 2, 32}));

TEST(Solve, SameBitsForAnyThreadCount) {
  const Pattern p = make_pattern("sq1", 3000);
  const auto w = make_mixer_weights<double>(p, 2, 3);
  const auto x = inputs(p.n, 128, 1);
  std::vector<double> y1(x.size()), y2(x.size());
  solve_mixer(w, x.data(), y1.data(), 128, 1);
  solve_mixer(w, x.data(), y2.data(), 128, 2);
  EXPECT_EQ(y1, y2);
}

// Two threads per tile (one gathers the far reads up to 16 blocks ahead, one finishes the rows) when threads
// are at least twice the tiles: same bits as one thread, far reads (offsets >= 4096) included, for tiles of
// 64 and 32 columns and for several heads, and the kernel name says so.
TEST(Solve, PipelinedTilesGiveTheSameBitsAsOneThread) {
  for (const std::string spec : {"pow2", "sq1"}) {
    const Pattern p = make_pattern(spec, 20011);
    for (const auto& [heads, d, threads] :
         std::vector<std::tuple<int, std::size_t, int>>{{1, 64, 2}, {1, 96, 4}, {2, 128, 4}, {1, 64, 3}}) {
      const auto hs = head_weights(p, heads, 5);
      const auto w = mixer_weights_from<double>(p, hs);
      const auto x = inputs(p.n, d, 2);
      std::vector<double> y1(x.size()), y2(x.size());
      const auto i1 = solve_mixer(w, x.data(), y1.data(), d, 1);
      const auto i2 = solve_mixer(w, x.data(), y2.data(), d, threads);
      EXPECT_EQ(i1.kernel, "cpu-implicit-tiled");
      EXPECT_EQ(i2.kernel, "cpu-implicit-tiled-pipelined") << spec << " d=" << d;
      EXPECT_EQ(y1, y2) << spec << " d=" << d << " heads=" << heads;
      std::vector<double> ref(x.size());  // Eq. 1, row by row
      solve_recurrence<double>(hs, p.n, x.data(), ref.data(), d);
      EXPECT_LE(relative_frobenius(y2.data(), ref.data(), y2.size()), 1e-12) << spec << " d=" << d;
    }
  }
}

TEST(Solve, RejectsColumnsNotMultipleOfHeads) {
  const Pattern p = make_pattern("pow2", 16);
  const auto w = make_mixer_weights<double>(p, 3, 1);
  std::vector<double> x(16 * 4), y(16 * 4);
  EXPECT_THROW(solve_mixer(w, x.data(), y.data(), 4, 1), UsageError);
}

TEST(SolveSemiring, DistancesMatchBruteForceAllFamilies) {
  for (const std::string spec : {"pow2", "sq1", "pow2+cache", "sq1+cache", "ssm", "offsets:2", "local:3",
                                 "attention", "fib", "window:4"}) {
    const Pattern p = make_pattern(spec, 150);
    std::vector<pos_t> src;
    for (pos_t s = 0; s < p.n; ++s) src.push_back(s);
    const auto d = solve_distances(p, src, 2);
    for (pos_t s = 0; s < p.n; ++s) {
      const auto ref = brute_dist(p, s);
      for (pos_t i = 0; i < p.n; ++i)
        ASSERT_EQ(d[i * src.size() + s], ref[i]) << spec << " i=" << i + 1 << " s=" << s + 1;
    }
  }
}

TEST(SolveSemiring, Pow2DistanceIsPopcountAndCountsAreFactorials) {
  // docs/math.md §3, Cor. 4.5: delta(m) = popcount(m); the shortest paths are the popcount(m)! orders of the
  // powers.
  const pos_t n = 1024;
  const Pattern p = make_pattern("pow2", n);
  const auto s = solve_structure(p);
  const auto pc = solve_path_counts(s, {0, 17}, 1);
  EXPECT_FALSE(pc.overflow);
  for (pos_t i = 0; i < n; ++i)
    for (int c = 0; c < 2; ++c) {
      const pos_t src = c == 0 ? 0 : 17;
      const std::size_t k = std::size_t(i) * 2 + c;
      if (i < src) {
        EXPECT_EQ(pc.dist[k], kUnreachable);
        EXPECT_EQ(pc.count[k], 0u);
        continue;
      }
      const int m = std::popcount(i - src);
      std::uint64_t f = 1;
      for (int q = 2; q <= m; ++q) f *= q;
      ASSERT_EQ(pc.dist[k], std::uint32_t(m)) << i;
      ASSERT_EQ(pc.count[k], f) << i;
    }
}

TEST(SolveSemiring, CountsSaturateWithFlagSlow) {
  // pow2 from position 1: popcount(m)! shortest paths to position m + 1; 21! > 2^64 > 20!.
  const pos_t n = (1u << 21);
  SolveStructure s;
  s.n = n;
  s.implicit = true;
  for (pos_t o = 1; o < n; o <<= 1) s.b_offsets.push_back(o);
  s.a_offsets = {0};
  // one source, one column: O(n log n)
  const auto pc = solve_path_counts(s, {0}, 1);
  EXPECT_TRUE(pc.overflow);
  EXPECT_EQ(pc.count[n - 1], UINT64_MAX);  // popcount(2^21 - 1) = 21, 21! = 5.1e19 > 1.8e19
  EXPECT_EQ(pc.dist[n - 1], 21u);
  EXPECT_EQ(pc.count[(1u << 20) - 1], 2432902008176640000ULL);  // 20!
}

TEST(SolveSemiring, ReachabilityOffsetsTwoKeepsParity) {
  const Pattern p = make_pattern("offsets:2", 40);
  const auto s = solve_structure(p);
  const auto r = solve_reachability(s, {0, 1}, 1);
  for (pos_t i = 0; i < 40; ++i) {
    EXPECT_EQ(r[i * 2 + 0], (i % 2 == 0) ? 1 : 0) << i;
    EXPECT_EQ(r[i * 2 + 1], (i >= 1 && i % 2 == 1) ? 1 : 0) << i;
  }
}

TEST(Validate, AllChecksPassOnEveryFamily) {
  for (const std::string spec : {"pow2", "sq1+cache", "ssm", "local:3"}) {
    ValidateOptions o;
    const auto r = validate_solve(make_pattern(spec, 200), o);
    EXPECT_TRUE(r.all_passed) << spec;
    EXPECT_GE(r.checks.size(), 9u);
    for (const auto& c : r.checks) EXPECT_TRUE(c.passed) << spec << ": " << c.name << ": " << c.detail;
  }
}

TEST(Validate, DetectsAWrongSecondBackend) {
  ValidateOptions o;
  o.other_name = "broken";
  o.other_f64 = [](const MixerWeights<double>& w, const double* x, double* y, std::size_t d) {
    solve_mixer(w, x, y, d, 1);
    y[3] += 1e-6;
    return std::string("broken-kernel");
  };
  const auto r = validate_solve(make_pattern("pow2", 64), o);
  EXPECT_FALSE(r.all_passed);
}

// ---- npy ----

TEST(Npy, RoundTripAndStrictness) {
  const auto dir = std::filesystem::temp_directory_path() / "mixgraph_test_npy";
  std::filesystem::create_directories(dir);
  const std::string f = (dir / "a.npy").string();
  NpyArray a;
  a.rows = 3;
  a.cols = 2;
  a.fp64 = true;
  a.f64 = {1, 2, 3, 4, 5, 6.5};
  write_npy(f, a);
  const auto b = read_npy(f);
  EXPECT_EQ(b.rows, 3u);
  EXPECT_EQ(b.cols, 2u);
  EXPECT_TRUE(b.fp64);
  EXPECT_EQ(b.f64, a.f64);
  NpyArray c;
  c.rows = 2;
  c.cols = 2;
  c.fp64 = false;
  c.f32 = {1.5f, -2, 3, 4};
  write_npy(f, c);
  const auto e = read_npy(f);
  EXPECT_FALSE(e.fp64);
  EXPECT_EQ(e.f32, c.f32);
  {
    std::ofstream bad(dir / "bad.npy", std::ios::binary);
    bad << "not an npy file";
  }
  EXPECT_THROW(read_npy((dir / "bad.npy").string()), InputError);
  EXPECT_THROW(read_npy((dir / "missing.npy").string()), InputError);
  std::filesystem::remove_all(dir);
}

// ---- CLI ----

int run_cli(const std::string& args, std::string* out = nullptr) {
  const std::string cmd = mixgraph::test::cli_path() + " " + args + " 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  std::string s;
  char buf[4096];
  while (std::size_t k = std::fread(buf, 1, sizeof buf, f)) s.append(buf, k);
  const int rc = pclose(f);
  if (out) *out = s;
  return WEXITSTATUS(rc);
}

TEST(CliValidate, JsonReportsChecks) {
  std::string out;
  ASSERT_EQ(run_cli("validate --pattern sq1 --n 300 --backend cpu --format json", &out), 0);
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "mixgraph.validate/1");
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_TRUE(j["all_passed"].get<bool>());
  ASSERT_TRUE(j["checks"].is_array());
  for (const auto& c : j["checks"]) {
    EXPECT_TRUE(c.contains("name"));
    EXPECT_TRUE(c["passed"].get<bool>()) << c["name"];
    EXPECT_TRUE(c.contains("detail"));
  }
}

TEST(CliValidate, GpuBackendWithoutGpuExits4) {
  if (gpu::device_info().usable()) GTEST_SKIP() << "a GPU is present, so --backend gpu does not fail here";
  EXPECT_EQ(run_cli("validate --pattern pow2 --n 64 --backend gpu"), 4);
  EXPECT_EQ(run_cli("solve --pattern pow2 --n 64 --random 4 --backend gpu"), 4);
}

TEST(CliValidate, BadInputsAreUsageErrors) {
  EXPECT_EQ(run_cli("validate --pattern nosuch --n 64"), 2);
  EXPECT_EQ(run_cli("validate --pattern pow2 --n 64 --backend tpu"), 2);
}

TEST(CliSolve, NpyInOutMatchesLibrary) {
  const auto dir = std::filesystem::temp_directory_path() / "mixgraph_test_cli_solve";
  std::filesystem::create_directories(dir);
  const pos_t n = 100;
  NpyArray x;
  x.rows = n;
  x.cols = 6;
  x.fp64 = true;
  x.f64 = inputs(n, 6, 9);
  write_npy((dir / "x.npy").string(), x);
  std::string out;
  ASSERT_EQ(run_cli("solve --pattern sq1 --n 100 --heads 2 --seed 4 --input " + (dir / "x.npy").string() +
                        " --output " + (dir / "y.npy").string() + " --backend cpu --format json",
                    &out),
            0);
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "mixgraph.solve/1");
  EXPECT_FALSE(j["kernel"].get<std::string>().empty());
  const auto y = read_npy((dir / "y.npy").string());
  ASSERT_EQ(y.rows, n);
  ASSERT_EQ(y.cols, 6u);
  const auto w = make_mixer_weights<double>(make_pattern("sq1", n), 2, 4);
  std::vector<double> ref(x.f64.size());
  solve_mixer(w, x.f64.data(), ref.data(), 6, 1);
  EXPECT_LE(relative_frobenius(y.f64.data(), ref.data(), ref.size()), 1e-15);
  std::filesystem::remove_all(dir);
}

TEST(CliSolve, RandomTimingRun) {
  std::string out;
  ASSERT_EQ(
      run_cli(
          "solve --pattern pow2 --n 4096 --random 16 --heads 4 --precision fp32 --backend cpu --format json",
          &out),
      0);
  const auto j = nlohmann::json::parse(out);
  EXPECT_GT(j["seconds"].get<double>(), 0);
  EXPECT_EQ(j["backend"], "cpu");
}

// ---- GPU ----

// Solves on the GPU (with the planner options o) and compares with the fp64 recurrence; `kernel` (if not
// empty) must occur in the name of the kernel that ran.
// kernel: a part of the kernel's name that must appear, or "!part" for one that must not
void gpu_vs_cpu(const std::string& spec, pos_t n, int heads, std::size_t dh, bool fp64,
                const std::string& kernel = "", const gpu::SolveOptions& o = {}) {
  const auto name_ok = [&](const std::string& name) {
    return kernel.empty() || kernel[0] != '!' ? name.find(kernel) != std::string::npos
                                              : name.find(kernel.substr(1)) == std::string::npos;
  };
  const Pattern p = make_pattern(spec, n);
  const std::size_t d = heads * dh;
  const auto x = inputs(p.n, d, 2);
  const auto hs = head_weights(p, heads, 21);
  std::vector<double> ref(x.size());
  solve_recurrence<double>(hs, p.n, x.data(), ref.data(), d);
  BackendChoice be;
  be.gpu = true;
  if (fp64) {
    const auto w = mixer_weights_from<double>(p, hs);
    std::vector<double> y(x.size());
    const auto info = solve_on(be, w, x.data(), y.data(), d, 0, o);
    std::printf("  %s n=%u H=%d d_h=%zu fp64: %s\n", spec.c_str(), unsigned(p.n), heads, dh,
                info.kernel.c_str());
    EXPECT_NE(info.kernel.find("gpu"), std::string::npos);
    EXPECT_TRUE(name_ok(info.kernel)) << kernel << " in " << info.kernel;
    EXPECT_LE(relative_frobenius(y.data(), ref.data(), y.size()), 1e-12) << spec << " " << info.kernel;
  } else {
    const auto w = mixer_weights_from<float>(p, hs);
    std::vector<float> xf(x.begin(), x.end()), y(x.size());
    const auto info = solve_on(be, w, xf.data(), y.data(), d, 0, o);
    std::printf("  %s n=%u H=%d d_h=%zu fp32: %s\n", spec.c_str(), unsigned(p.n), heads, dh,
                info.kernel.c_str());
    EXPECT_TRUE(name_ok(info.kernel)) << kernel << " in " << info.kernel;
    EXPECT_LE(relative_frobenius(y.data(), ref.data(), y.size()), 1e-5) << spec << " " << info.kernel;
  }
}

// The CLI's and the benchmarks' only reading of the environment: each MIXGRAPH_GPU_* variable as docs/cli.md
// documents it, and none set gives the planner's defaults.
TEST(GpuOptions, FromEnvironmentMapsEachVariable) {
  const char* const vars[] = {"MIXGRAPH_GPU_KERNEL", "MIXGRAPH_GPU_CHUNK",   "MIXGRAPH_GPU_RING",
                              "MIXGRAPH_GPU_SPLIT",  "MIXGRAPH_GPU_COPY",    "MIXGRAPH_GPU_TMA",
                              "MIXGRAPH_GPU_YTMA",   "MIXGRAPH_GPU_MMA",     "MIXGRAPH_GPU_WS",
                              "MIXGRAPH_GPU_SWZ",    "MIXGRAPH_GPU_VERBOSE", "MIXGRAPH_GPU_PROFILE",
                              "MIXGRAPH_GPU_LAYOUT"};
  for (const char* v : vars) ::unsetenv(v);
  const gpu::SolveOptions def, o0 = gpu_options_from_env();
  EXPECT_EQ(o0.kernel, gpu::SolveOptions::Kernel::Auto);
  EXPECT_EQ(o0.chunk, 0u);
  EXPECT_EQ(o0.ring, 0u);
  EXPECT_EQ(o0.split, gpu::SolveOptions::Split::Auto);
  EXPECT_EQ(o0.copy, 2);
  EXPECT_TRUE(o0.tma && o0.ytma && o0.mma && o0.ws && o0.swz);
  EXPECT_FALSE(o0.verbose || o0.profile);
  EXPECT_EQ(o0.layout, gpu::SolveOptions::Layout::Auto);
  EXPECT_EQ(o0.copy, def.copy);
  const std::pair<const char*, const char*> set[] = {
      {"MIXGRAPH_GPU_KERNEL", "pipeline"}, {"MIXGRAPH_GPU_CHUNK", "32"},  {"MIXGRAPH_GPU_RING", "512"},
      {"MIXGRAPH_GPU_SPLIT", "1"},         {"MIXGRAPH_GPU_COPY", "0"},    {"MIXGRAPH_GPU_TMA", "0"},
      {"MIXGRAPH_GPU_YTMA", "0"},          {"MIXGRAPH_GPU_MMA", "0"},     {"MIXGRAPH_GPU_WS", "0"},
      {"MIXGRAPH_GPU_SWZ", "0"},           {"MIXGRAPH_GPU_VERBOSE", "1"}, {"MIXGRAPH_GPU_PROFILE", "1"},
      {"MIXGRAPH_GPU_LAYOUT", "channel"}};
  for (const auto& [k, v] : set) ::setenv(k, v, 1);
  const gpu::SolveOptions o = gpu_options_from_env();
  EXPECT_EQ(o.kernel, gpu::SolveOptions::Kernel::Pipeline);
  EXPECT_EQ(o.chunk, 32u);
  EXPECT_EQ(o.ring, 512u);
  EXPECT_EQ(o.split, gpu::SolveOptions::Split::On);
  EXPECT_EQ(o.copy, 0);
  EXPECT_FALSE(o.tma || o.ytma || o.mma || o.ws || o.swz);
  EXPECT_TRUE(o.verbose && o.profile);
  EXPECT_EQ(o.layout, gpu::SolveOptions::Layout::ChannelMajor);
  ::setenv("MIXGRAPH_GPU_KERNEL", "blockinv", 1);
  ::setenv("MIXGRAPH_GPU_SPLIT", "0", 1);
  ::setenv("MIXGRAPH_GPU_CHUNK", "64", 1);
  const gpu::SolveOptions o2 = gpu_options_from_env();
  EXPECT_EQ(o2.kernel, gpu::SolveOptions::Kernel::BlockInv);
  EXPECT_EQ(o2.split, gpu::SolveOptions::Split::Off);
  EXPECT_EQ(o2.chunk, 0u);  // 64 first is the default
  ::setenv("MIXGRAPH_GPU_LAYOUT", "head", 1);
  EXPECT_EQ(gpu_options_from_env().layout, gpu::SolveOptions::Layout::HeadMajor);
  for (const char* v : vars) ::unsetenv(v);
}

#define REQUIRE_GPU()                                \
  do {                                               \
    const auto info_ = gpu::device_info();           \
    if (!info_.usable()) GTEST_SKIP() << info_.note; \
  } while (0)

using Opt = gpu::SolveOptions;

TEST(Gpu, ImplicitPatternsMatchEq1) {
  REQUIRE_GPU();
  for (bool f64 : {false, true}) {
    gpu_vs_cpu("pow2", 1000, 1, 8, f64);
    gpu_vs_cpu("sq1", 3000, 2, 16, f64);
    gpu_vs_cpu("window:70", 500, 1, 4, f64);
    gpu_vs_cpu("dense", 300, 1, 33, f64);
    gpu_vs_cpu("local:5", 400, 3, 5, f64);
  }
}

TEST(Gpu, CsrPatternsMatchEq1) {
  REQUIRE_GPU();
  for (bool f64 : {false, true}) {
    gpu_vs_cpu("pow2+cache", 2000, 2, 8, f64);
    gpu_vs_cpu("sq1+cache", 1500, 1, 64, f64);
  }
}

// Every path of the pipeline kernel: several tiles, far reads gathered by other CTAs (n > 1024), vector
// and scalar gathers (d % 4), partial tiles, heads of 32 columns (staged) and narrower (direct), CSR staged
// and CSR direct (many short reads), the first-order scan and the pipeline forced on first-order patterns.
TEST(Gpu, PipelineCoversEveryPath) {
  REQUIRE_GPU();
  Opt o;
  o.kernel = Opt::Kernel::Pipeline;
  gpu_vs_cpu("pow2", 20000, 1, 64, false, "pipeline", o);
  gpu_vs_cpu("pow2", 20000, 1, 64, true, "pipeline", o);
  gpu_vs_cpu("sq1", 9000, 2, 32, false, "pipeline", o);
  gpu_vs_cpu("sq1", 5000, 1, 7, true, "pipeline", o);
  gpu_vs_cpu("sq1", 5000, 1, 6, false, "pipeline", o);
  gpu_vs_cpu("pow2+cache", 9000, 1, 40, false, "pipeline-csr", o);
  gpu_vs_cpu("local:200", 3000, 1, 32, false, "pipeline", o);
  gpu_vs_cpu("ssm", 4000, 4, 1, false, "pipeline", o);
  gpu_vs_cpu("ssm", 3000, 1, 32, true, "pipeline", o);
  gpu_vs_cpu("ssm", 4000, 4, 3, false, "scan1");
}

// Every path of the blockinv kernel: chunks of 64 and 32, implicit and CSR packages, fp32 and fp64, several
// tiles and a partial tile (d % 8), a partial last chunk, heads of 8 / 16 columns, and a small ring so that
// reads go to the ring and back to Y in global memory, including more than the 8 held in registers.
TEST(Gpu, BlockInvCoversEveryPath) {
  REQUIRE_GPU();
  Opt o;
  o.split = Opt::Split::Off;  // one CTA per tile (split mode: the next test)
  for (std::uint32_t chunk : {64u, 32u}) {
    o.chunk = chunk;
    for (bool f64 : {false, true}) {
      gpu_vs_cpu("pow2", 20000, 1, 64, f64, "blockinv-implicit", o);
      gpu_vs_cpu("pow2", 3001, 1, 24, f64, "blockinv-implicit", o);
      gpu_vs_cpu("sq1", 3000, 2, 16, f64, "blockinv-implicit", o);
      gpu_vs_cpu("pow2+cache", 5000, 3, 8, f64, "blockinv-csr", o);
      gpu_vs_cpu("sq1+cache", 3000, 1, 24, f64, "blockinv-csr", o);
      Opt r = o;
      r.ring = 512;
      gpu_vs_cpu("sq1", 3000, 1, 16, f64, "ring=512", r);
      gpu_vs_cpu("pow2", 9000, 4, 8, f64, "ring=512", r);
      gpu_vs_cpu("sq1+cache", 6000, 1, 8, f64, "ring=512", r);
    }
  }
  o.chunk = 0;
  {
    Opt b = o;
    b.kernel = Opt::Kernel::BlockInv;
    gpu_vs_cpu("ssm", 3000, 2, 8, false, "blockinv", b);
  }
  for (int copy : {0, 1, 2}) {  // package copies: cp.async, TMA (all wait), TMA (one waits)
    Opt c = o;
    c.copy = copy;
    gpu_vs_cpu("pow2", 9000, 2, 16, false, "blockinv", c);
    gpu_vs_cpu("pow2+cache", 5000, 1, 8, true, "blockinv", c);
  }
  // staged rows: tensor copies (implicit B, all reads beyond the ring staged) against per-row cp.async
  // (and Y written by tensor stores from the ring, SolveOptions::ytma)
  for (const char* tma : {"1", "y", "0"}) {
    Opt t = o;
    t.tma = tma[0] != '0';
    t.ytma = tma[0] == 'y';
    const bool on = tma[0] != '0';
    for (bool f64 : {false, true}) {
      gpu_vs_cpu("pow2", 20000, 1, 64, f64, !on ? "!(tma)" : tma[0] == 'y' ? "(tma),Y=tma" : "!Y=tma", t);
      gpu_vs_cpu("pow2", 3001, 2, 24, f64, on ? "(tma)" : "!(tma)", t);
      Opt r = t;
      r.ring = 512;
      gpu_vs_cpu("pow2", 9001, 4, 8, f64, on ? "staged=5(tma)" : "!(tma)", r);
    }
  }
}

// The warp-specialized solve (bi_solve_ws: fp32, A diagonal, staged rows and Y by tensor copies, split mode
// off): chunks of 64 and 32, several tiles and heads, a partial last chunk, and a small ring (most reads
// staged); and the same problems through bi_solve (SolveOptions::ws = false), both against the fp64
// reference.
TEST(Gpu, BlockInvWarpSpecializedCoversEveryPath) {
  REQUIRE_GPU();
  Opt o;
  o.split = Opt::Split::Off;
  for (bool ws : {true, false}) {
    o.ws = ws;
    const std::string want = ws ? ",ws" : "!,ws";
    for (std::uint32_t chunk : {64u, 32u}) {
      o.chunk = chunk;
      gpu_vs_cpu("pow2", 20000, 1, 64, false, want, o);
      gpu_vs_cpu("pow2", 3001, 2, 24, false, want, o);
      gpu_vs_cpu("pow2", 4100, 2, 16, false, want, o);
      Opt r = o;
      r.ring = chunk == 64 ? 512 : 256;
      gpu_vs_cpu("pow2", 9001, 4, 8, false, want, r);
      gpu_vs_cpu("pow2", 6000, 16, 8, false, want, r);
    }
  }
}

// Split mode: far-worker CTAs write A X + the reads at offsets >= G into Y ahead of the tiles (cooperative
// grid, progress flags). Forced on here, with chunks of 64 and 32, fp32 and fp64, implicit and CSR B,
// several heads, rings of 1024 / 512 rows (so most reads are the workers') and a partial last chunk.
TEST(Gpu, BlockInvSplitCoversEveryPath) {
  REQUIRE_GPU();
  Opt o;
  o.split = Opt::Split::On;
  for (std::uint32_t chunk : {64u, 32u}) {
    o.chunk = chunk;
    for (bool f64 : {false, true}) {
      gpu_vs_cpu("sq1", 20000, 1, 64, f64, "split=", o);
      gpu_vs_cpu("sq1", 10000, 1, 256, f64, "split=", o);  // several parts per chunk
      gpu_vs_cpu("pow2", 9001, 4, 8, f64, "split=", o);
      gpu_vs_cpu("sq1+cache", 6000, 1, 24, f64, "blockinv-csr", o);
      Opt r = o;
      r.ring = chunk == 64 ? 1024 : 512;
      gpu_vs_cpu("sq1", 7000, 2, 16, f64, "split=", r);
      gpu_vs_cpu("pow2+cache", 5000, 3, 8, f64, "split=", r);
    }
  }
}

// The far sums' swizzled row halves (SolveOptions::swz = false: column order) each way, with bi_build's
// reads loaded ahead (KU = the longest in-chunk list, 4 to 8): the warp-specialized solve, bi_solve (fp32,
// fp64), split mode, CSR B, and in-chunk lists of 5 (pow2, sq1 at chunks of 32), 7 (sq1, local:8) and more
// than 8 (local:40, read in place beyond KU); lists of 4 come from pow2 at chunks of 32 in the tests above.
TEST(Gpu, BlockInvSwizzleAndBuildWidthsMatch) {
  REQUIRE_GPU();
  Opt o;
  o.kernel = Opt::Kernel::BlockInv;
  for (bool swz : {true, false}) {
    o.swz = swz;
    o.split = Opt::Split::Off;
    gpu_vs_cpu("pow2", 9001, 2, 16, false, ",ws", o);
    gpu_vs_cpu("pow2", 6000, 1, 8, true, "blockinv-implicit", o);
    gpu_vs_cpu("sq1", 5000, 2, 16, false, "blockinv-implicit", o);
    gpu_vs_cpu("local:8", 3000, 1, 8, false, "blockinv-implicit", o);
    gpu_vs_cpu("local:40", 3000, 1, 8, true, "blockinv-implicit", o);
    Opt c = o;
    c.chunk = 32;
    gpu_vs_cpu("sq1", 3000, 1, 16, false, "chunk=32", c);
    o.split = Opt::Split::On;
    gpu_vs_cpu("sq1", 7000, 1, 24, false, "split=", o);
    gpu_vs_cpu("sq1+cache", 5000, 2, 8, true, "blockinv-csr", o);
  }
}

// SolveOptions::profile runs another instance of the warp-specialized solve (its cycle counters compiled
// in): the same arithmetic in the same order, so the same bits as the instance without them
TEST(Gpu, WsProfileInstanceGivesTheSameBits) {
  REQUIRE_GPU();
  Opt o;
  o.kernel = Opt::Kernel::BlockInv;
  o.split = Opt::Split::Off;
  const Pattern p = make_pattern("pow2", 9001);
  const std::size_t d = 2 * 16;
  const auto x = inputs(p.n, d, 2);
  const auto hs = head_weights(p, 2, 21);
  const auto w = mixer_weights_from<float>(p, hs);
  std::vector<float> xf(x.begin(), x.end()), y0(x.size()), y1(x.size());
  BackendChoice be;
  be.gpu = true;
  const auto i0 = solve_on(be, w, xf.data(), y0.data(), d, 0, o);
  o.profile = true;
  const auto i1 = solve_on(be, w, xf.data(), y1.data(), d, 0, o);
  EXPECT_NE(i0.kernel.find(",ws"), std::string::npos) << i0.kernel;
  EXPECT_EQ(i0.kernel, i1.kernel);
  std::vector<double> ref(x.size());
  solve_recurrence<double>(hs, p.n, x.data(), ref.data(), d);
  EXPECT_LE(relative_frobenius(y0.data(), ref.data(), y0.size()), 1e-5);
  EXPECT_EQ(0, std::memcmp(y0.data(), y1.data(), y0.size() * sizeof(float)));
}

TEST(Gpu, PerChannelHeadsMatchEq1) {
  REQUIRE_GPU();
  gpu_vs_cpu("ssm", 5000, 96, 1, false);
  gpu_vs_cpu("pow2", 777, 40, 1, true);
}

// The public path of per-channel ssm (heads = d, as `solve -p ssm --heads d` runs it) takes gpu-scan1 with
// channel-major coefficients by default; seeded, stored, per-offset and gate weights each match the CPU
// solve, and so does each layout forced either way, heads of 1, 4 and 40 columns too.
TEST(Gpu, PerChannelSsmPublicPathIsChannelMajor) {
  REQUIRE_GPU();
  gpu_vs_cpu("ssm", 5000, 96, 1, false, "channel-major");
  gpu_vs_cpu("ssm", 3001, 64, 1, true, "channel-major");
  gpu_vs_cpu("ssm", 4000, 8, 4, false, "channel-major");
  gpu_vs_cpu("ssm", 4000, 2, 40, false, "!channel-major");
  Opt head, chan;
  head.layout = Opt::Layout::HeadMajor;
  chan.layout = Opt::Layout::ChannelMajor;
  gpu_vs_cpu("ssm", 5000, 96, 1, false, "!channel-major", head);
  gpu_vs_cpu("ssm", 4000, 2, 40, true, "channel-major", chan);
  // seeded weights made on the device (the command's path), against the same weights on the CPU
  const Pattern p = make_pattern("ssm", 7000);
  const std::size_t d = 256;
  const auto x = inputs(p.n, d, 5);
  std::vector<float> xf(x.begin(), x.end()), yg(x.size());
  std::vector<double> yc(x.size());
  BackendChoice gpu_be;
  gpu_be.gpu = true;
  const auto seeded = seeded_mixer_weights<float>(p, int(d), 3);
  const auto info = solve_on(gpu_be, seeded, xf.data(), yg.data(), d);
  solve_mixer(seeded_mixer_weights<double>(p, int(d), 3), x.data(), yc.data(), d);
  EXPECT_NE(info.kernel.find("scan1"), std::string::npos) << info.kernel;
  EXPECT_NE(info.kernel.find("channel-major"), std::string::npos) << info.kernel;
  EXPECT_LE(relative_frobenius(yg.data(), yc.data(), yg.size()), 1e-5);
  // the same weights stored (uploaded, then rewritten channel-major on the device)
  const auto stored = stored_weights(seeded);
  std::fill(yg.begin(), yg.end(), 0.f);
  EXPECT_NE(solve_on(gpu_be, stored, xf.data(), yg.data(), d).kernel.find("channel-major"),
            std::string::npos);
  EXPECT_LE(relative_frobenius(yg.data(), yc.data(), yg.size()), 1e-5);
}

}  // namespace

namespace {

// The seeded X of `solve --random`, written out from its definition (docs/formats.md "Seeded inputs"),
// apart from weight_gen.hpp: u = (splitmix chain >> 11) 2^-53, x = 2 u - 1.
double seeded_x_from_definition(std::uint64_t seed, std::uint64_t i, std::uint64_t c) {
  auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  std::uint64_t h = mix(seed ^ mix(1001 * 0x632be59bd9b4e019ULL));
  h = mix(h ^ i);
  h = mix(h ^ (c * 0xd6e8feb86659fd93ULL));
  const long double u = static_cast<long double>(h >> 11) / 9007199254740992.0L;  // 2^53
  return static_cast<double>(2 * u - 1);  // 2 u - 1 is exact in long double; one rounding to double
}

TEST(SeededX, HostGeneratorMatchesTheDefinition) {
  for (std::uint64_t seed : {1ULL, 7ULL, 0xffffffffffULL})
    for (std::uint64_t i : {0ULL, 1ULL, 4095ULL, 16777215ULL})
      for (std::uint64_t c : {0ULL, 3ULL, 63ULL, 4095ULL}) {
        const double want = seeded_x_from_definition(seed, i, c);
        EXPECT_EQ(wgen::input_value(seed, i, c), want) << seed << " " << i << " " << c;
        EXPECT_EQ(static_cast<float>(wgen::input_value(seed, i, c)), static_cast<float>(want));
        EXPECT_GE(want, -1.0);
        EXPECT_LT(want, 1.0);
      }
}

// solve --random on the CPU solves the seeded X: its checksum is the sum of Y for that X solved here.
TEST(SeededX, CliRandomSolvesTheSeededX) {
  const Pattern p = make_pattern("sq1", 300);
  const std::size_t d = 6;
  std::vector<double> x(p.n * d), y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = seeded_x_from_definition(9, k / d, k % d);
  solve_mixer(seeded_mixer_weights<double>(p, 2, 9), x.data(), y.data(), d);
  double sum = 0;
  for (double v : y) sum += v;
  std::string out;
  ASSERT_EQ(run_cli("solve -p sq1 --n 300 --random 6 --heads 2 --seed 9 --precision fp64 --backend cpu "
                    "--format json",
                    &out),
            0);
  const auto j = nlohmann::json::parse(out);
  EXPECT_NEAR(j["checksum"].get<double>(), sum, 1e-9 * (1 + std::abs(sum)));
}

// X made on the device has the host's bits, fp32 and fp64.
TEST(Gpu, DeviceSeededXMatchesHostBits) {
  REQUIRE_GPU();
  const std::uint32_t n = 3001, d = 37;
  for (bool f64 : {false, true}) {
    const std::size_t bytes = std::size_t(n) * d * (f64 ? 8 : 4);
    void* dx = nullptr;
    ASSERT_EQ(gpu::device_alloc(&dx, bytes), "");
    ASSERT_EQ(gpu::fill_seeded_x(dx, n, d, f64, 11), "");
    std::vector<unsigned char> got(bytes), want(bytes);
    ASSERT_EQ(gpu::copy_to_host(got.data(), dx, bytes), "");
    gpu::device_free(dx);
    for (std::size_t k = 0; k < std::size_t(n) * d; ++k) {
      const double v = wgen::input_value(11, k / d, k % d);
      if (f64)
        std::memcpy(want.data() + 8 * k, &v, 8);
      else {
        const float f = static_cast<float>(v);
        std::memcpy(want.data() + 4 * k, &f, 4);
      }
    }
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), bytes)) << (f64 ? "fp64" : "fp32");
  }
}

// The device-pointer entry point: X uploaded by the test, solve_device from device X to device Y, Y
// downloaded and compared with the CPU solve (per-channel ssm, pow2 with heads, a CSR pattern); and
// solve_seeded_x against the CPU solve of the host-made seeded X, with and without Y coming back.
// Y of solve_device on device X, the coefficients `dev` (SolveMatrix::vals_on_device) or on the host.
std::vector<float> device_y(const gpu::SolveProblem& pr, const std::vector<float>& xf, const Opt& o,
                            std::string* kernel) {
  const std::size_t bytes = xf.size() * sizeof(float);
  void *dx = nullptr, *dy = nullptr;
  std::vector<float> y(xf.size(), -1.0f);
  EXPECT_EQ(gpu::device_alloc(&dx, bytes), "");
  EXPECT_EQ(gpu::device_alloc(&dy, bytes), "");
  EXPECT_EQ(gpu::copy_to_device(dx, xf.data(), bytes), "");
  const auto r = gpu::solve_device(pr, dx, dy, o);
  EXPECT_TRUE(r.ran) << r.note;
  *kernel = r.kernel;
  EXPECT_EQ(gpu::copy_to_host(y.data(), dy, bytes), "");
  gpu::device_free(dx);
  gpu::device_free(dy);
  return y;
}

// A host array's copy in device memory (freed by the caller).
void* on_device(const void* host, std::size_t bytes) {
  void* p = nullptr;
  EXPECT_EQ(gpu::device_alloc(&p, bytes ? bytes : 4), "");
  if (bytes) {
    EXPECT_EQ(gpu::copy_to_device(p, host, bytes), "");
  }
  return p;
}

// Coefficients in device memory (SolveMatrix::vals_on_device) are read by every plan: the same Y as the
// same values uploaded from the host, under gpu-blockinv and gpu-pipeline, implicit head-major and CSR
// values, and per-offset tables expanded on the device.
TEST(Gpu, DeviceValuesMatchHostValues) {
  REQUIRE_GPU();
  struct Case {
    const char* spec;
    pos_t n;
    int heads;
    std::size_t d;
  };
  for (const Case c : {Case{"pow2", 1000, 2, 32}, Case{"sq1+cache", 900, 2, 16},
                       Case{"pow2+cache", 700, 1, 8}, Case{"window:3", 500, 2, 16}}) {
    const Pattern p = make_pattern(c.spec, c.n);
    const auto w = mixer_weights_from<float>(p, head_weights(p, c.heads, 31));
    const auto x = inputs(p.n, c.d, 6);
    const std::vector<float> xf(x.begin(), x.end());
    for (const auto kernel : {Opt::Kernel::BlockInv, Opt::Kernel::Pipeline}) {
      Opt o;
      o.kernel = kernel;
      const gpu::SolveProblem hp = gpu_problem(w, c.d);
      gpu::SolveProblem dp = hp;
      void* va = on_device(w.a.data(), w.a.size() * sizeof(float));
      void* vb = on_device(w.b.data(), w.b.size() * sizeof(float));
      dp.a.vals = va, dp.a.vals_on_device = true;
      dp.b.vals = vb, dp.b.vals_on_device = true;
      std::string kh, kd;
      const auto yh = device_y(hp, xf, o, &kh), yd = device_y(dp, xf, o, &kd);
      EXPECT_EQ(kh, kd) << c.spec;
      const std::vector<double> yh64(yh.begin(), yh.end());
      EXPECT_LE(relative_frobenius(yd.data(), yh64.data(), yd.size()), 1e-6) << c.spec << " " << kd;
      gpu::device_free(va);
      gpu::device_free(vb);
    }
  }
  // per-offset tables (heads, K) on the device, expanded there, against the same tables on the host
  const Pattern p = make_pattern("pow2", 777);
  const SolveStructure s = solve_structure(p);
  const int heads = 4;
  const std::size_t d = 32;
  std::vector<float> ta(heads * s.a_offsets.size()), tb(heads * s.b_offsets.size());
  for (std::size_t q = 0; q < ta.size(); ++q) ta[q] = 0.5f + 0.1f * float(q % 7);
  for (std::size_t q = 0; q < tb.size(); ++q) tb[q] = (q % 2 ? 0.09f : -0.07f) * float(1 + q % 3);
  gpu::SolveProblem hp;
  hp.n = p.n, hp.d = d, hp.heads = heads;
  hp.a.offsets = s.a_offsets.data(), hp.a.k = std::uint32_t(s.a_offsets.size());
  hp.b.offsets = s.b_offsets.data(), hp.b.k = std::uint32_t(s.b_offsets.size());
  hp.a.gen = hp.b.gen = gpu::CoefGen::PerOffset;
  hp.a.vals = ta.data(), hp.b.vals = tb.data();
  const auto x = inputs(p.n, d, 7);
  const std::vector<float> xf(x.begin(), x.end());
  for (const auto kernel : {Opt::Kernel::Auto, Opt::Kernel::BlockInv, Opt::Kernel::Pipeline}) {
    Opt o;
    o.kernel = kernel;
    gpu::SolveProblem dp = hp;
    void* va = on_device(ta.data(), ta.size() * sizeof(float));
    void* vb = on_device(tb.data(), tb.size() * sizeof(float));
    dp.a.vals = va, dp.a.vals_on_device = true;
    dp.b.vals = vb, dp.b.vals_on_device = true;
    std::string kh, kd;
    const auto yh = device_y(hp, xf, o, &kh), yd = device_y(dp, xf, o, &kd);
    EXPECT_EQ(kh, kd);
    EXPECT_EQ(std::memcmp(yh.data(), yd.data(), yh.size() * sizeof(float)), 0) << kd;  // the same fill
    gpu::device_free(va);
    gpu::device_free(vb);
  }
  // a strided (non-canonical) layout outside gpu-scan1 is refused with a note
  const auto wbad = mixer_weights_from<float>(p, head_weights(p, heads, 3));  // (outlives bad's pointers)
  gpu::SolveProblem bad = gpu_problem(wbad, d);
  void* vb = on_device(tb.data(), tb.size() * sizeof(float));
  bad.b.vals = vb, bad.b.vals_on_device = true, bad.b.is = bad.b.k + 1;
  void *dx = nullptr, *dy = nullptr;
  ASSERT_EQ(gpu::device_alloc(&dx, xf.size() * 4), "");
  ASSERT_EQ(gpu::device_alloc(&dy, xf.size() * 4), "");
  const auto r = gpu::solve_device(bad, dx, dy);
  EXPECT_FALSE(r.ran);
  EXPECT_NE(r.note.find("canonical layout"), std::string::npos) << r.note;
  gpu::device_free(dx);
  gpu::device_free(dy);
  gpu::device_free(vb);
}

TEST(Gpu, DevicePointerSolveMatchesCpu) {
  REQUIRE_GPU();
  struct Case {
    const char* spec;
    pos_t n;
    int heads;
    std::size_t d;
  };
  for (const Case c :
       {Case{"ssm", 5000, 64, 64}, Case{"pow2", 4000, 2, 32}, Case{"sq1+cache", 3000, 1, 16}}) {
    const Pattern p = make_pattern(c.spec, c.n);
    const auto x = inputs(p.n, c.d, 4);
    std::vector<double> ref(x.size());
    solve_mixer(seeded_mixer_weights<double>(p, c.heads, 5), x.data(), ref.data(), c.d);
    const auto w = seeded_mixer_weights<float>(p, c.heads, 5);
    const std::vector<float> xf(x.begin(), x.end());
    const std::size_t bytes = xf.size() * sizeof(float);
    void *dx = nullptr, *dy = nullptr;
    ASSERT_EQ(gpu::device_alloc(&dx, bytes), "");
    ASSERT_EQ(gpu::device_alloc(&dy, bytes), "");
    ASSERT_EQ(gpu::copy_to_device(dx, xf.data(), bytes), "");
    const auto r = gpu::solve_device(gpu_problem(w, c.d), dx, dy);
    ASSERT_TRUE(r.ran) << r.note;
    std::vector<float> y(xf.size());
    ASSERT_EQ(gpu::copy_to_host(y.data(), dy, bytes), "");
    gpu::device_free(dx);
    gpu::device_free(dy);
    EXPECT_LE(relative_frobenius(y.data(), ref.data(), y.size()), 1e-5) << c.spec << " " << r.kernel;
    // seeded X on the device
    std::vector<double> xs(x.size()), ys(x.size());
    for (std::size_t k = 0; k < xs.size(); ++k)
      xs[k] = static_cast<float>(wgen::input_value(8, k / c.d, k % c.d));
    solve_mixer(seeded_mixer_weights<double>(p, c.heads, 5), xs.data(), ys.data(), c.d);
    double sum = 0;
    for (double v : ys) sum += v;
    std::vector<float> yd(xs.size());
    const auto rs = gpu::solve_seeded_x(gpu_problem(w, c.d), 8, yd.data());
    ASSERT_TRUE(rs.ran) << rs.note;
    EXPECT_LE(relative_frobenius(yd.data(), ys.data(), yd.size()), 1e-5) << c.spec;
    EXPECT_NEAR(rs.y_sum, sum, 1e-4 * (1 + std::abs(sum)));
    const auto rn = gpu::solve_seeded_x(gpu_problem(w, c.d), 8, nullptr);
    ASSERT_TRUE(rn.ran) << rn.note;
    EXPECT_NEAR(rn.y_sum, rs.y_sum, 1e-6 * (1 + std::abs(sum)));
  }
}

}  // namespace

namespace {

// A fresh folder per test process (ctest runs -j2): removed at the end of the test.
std::filesystem::path fresh_dir(const char* tag) {
  std::string t =
      (std::filesystem::temp_directory_path() / (std::string("mixgraph_") + tag + "_XXXXXX")).string();
  if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
  return t;
}

void npy(const std::filesystem::path& f, std::uint64_t rows, std::uint64_t cols, std::vector<double> v) {
  NpyArray a;
  a.rows = rows;
  a.cols = cols;
  a.fp64 = true;
  a.f64 = std::move(v);
  write_npy(f.string(), a);
}

// validate takes solve's weight options: its (+, x) checks solve the files' weights, and its references
// (Eq. 1 and the dense Eigen solve) use them: files that fit pass every check, including the dense one;
// weights that blow up the solve (|beta| = 1e200, not the seeded bound) make the checks fail, so the files'
// weights are what the references solve; a file of the wrong shape is bad data (exit 3).
TEST(CliValidate, UsesWeightFiles) {
  const auto dir = fresh_dir("validate_weights");
  const pos_t n = 200;
  const auto offs = make_pattern("pow2", n).b_offsets;  // K offsets
  const std::size_t K = offs.size();
  std::vector<double> b(2 * K);
  for (std::size_t k = 0; k < b.size(); ++k) b[k] = (k % 2 ? -0.3 : 0.4) / double(K);
  npy(dir / "b.npy", 2, K, b);
  std::string out;
  const std::string base = "validate -p pow2 --n 200 --backend cpu --format json --heads 2 ";
  ASSERT_EQ(run_cli(base + "--weights-b " + (dir / "b.npy").string(), &out), 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_TRUE(j["all_passed"].get<bool>());
  EXPECT_EQ(j["parameters"]["weights_b"], (dir / "b.npy").string());
  bool dense = false, files = false;
  for (const auto& c : j["checks"]) {
    const std::string name = c["name"];
    files |= name.find("weights from files") != std::string::npos;
    dense |=
        name.find("dense Eigen") != std::string::npos && name.find("weights from files") != std::string::npos;
    EXPECT_EQ(name.find("per-channel heads"), std::string::npos) << name;  // the seeded cases are replaced
  }
  EXPECT_TRUE(files && dense);
  // ssm with per-channel gates and input gates, 3 channels
  std::vector<double> g(std::size_t(n) * 3), ig(g.size());
  for (std::size_t k = 0; k < g.size(); ++k) {
    g[k] = 0.5 + 0.4 * std::sin(double(k));
    ig[k] = 1.0 + 0.5 * std::cos(double(k));
  }
  npy(dir / "g.npy", n, 3, g);
  npy(dir / "ig.npy", n, 3, ig);
  ASSERT_EQ(run_cli("validate -p ssm --n 200 --backend cpu --format json --heads 3 --gates " +
                        (dir / "g.npy").string() + " --input-gates " + (dir / "ig.npy").string(),
                    &out),
            0)
      << out;
  EXPECT_TRUE(nlohmann::json::parse(out)["all_passed"].get<bool>());
  // weights far beyond any bound: the solves overflow and the checks must fail
  std::vector<double> huge(2 * K, 1e200);
  npy(dir / "huge.npy", 2, K, huge);
  EXPECT_EQ(run_cli(base + "--weights-b " + (dir / "huge.npy").string(), &out), 1);
  // wrong shape: bad data; gates without --heads: usage
  npy(dir / "bad.npy", 3, K, std::vector<double>(3 * K, 0.1));
  EXPECT_EQ(run_cli(base + "--weights-b " + (dir / "bad.npy").string()), 3);
  EXPECT_EQ(run_cli("validate -p ssm --n 200 --backend cpu --gates " + (dir / "g.npy").string()), 2);
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// solve()'s error contract (solve.hpp), CPU side: each kind of failure raises the documented exception, and
// through the CLI the documented exit code.
TEST(SolveContract, ErrorsFollowTheContract) {
  const Pattern p = make_pattern("pow2", 64);
  const auto w = seeded_mixer_weights<double>(p, 2, 1);
  std::vector<double> x(64 * 3), y(x.size());
  BackendChoice cpu, gpu_be;
  gpu_be.gpu = true;
  EXPECT_THROW(solve_on(cpu, w, x.data(), y.data(), 3), UsageError);  // d = 3, 2 heads
  EXPECT_THROW(seeded_mixer_weights<double>(p, 0, 1), UsageError);
  EXPECT_THROW(solve_distances(p, {64}), UsageError);
  if (!gpu::device_info().usable()) {
    EXPECT_THROW(solve_on(gpu_be, w, x.data(), y.data(), 2), GpuRequired);
    EXPECT_THROW(choose_backend(Backend::Gpu), GpuRequired);
  }
  // refused before allocating under a memory limit: MemoryRefused, a RuntimeFailure (exit 1)
  EXPECT_THROW(check_memory(mixer_weights_bytes(p, 2, 8) + (1ULL << 30), 1ULL << 20, "solve"), MemoryRefused);
  EXPECT_EQ(run_cli("solve -p pow2 --n 2^20 --random 64 --backend cpu --mem-limit 16M"), 1);
  EXPECT_EQ(run_cli("solve -p pow2 --n 2^20 --random 64 --heads 3 --backend cpu"), 2);
  EXPECT_EQ(run_cli("solve -p pow2 --n 64 --random 4 --heads 0 --backend cpu"), 2);
}

}  // namespace
