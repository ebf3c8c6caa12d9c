// Tests of the GPU semiring solves (gpu_semiring.hpp, semiring_backend.hpp) against the CPU engine
// (solve_distances / solve_reachability / solve_path_counts, themselves checked against BFS in test_solve),
// and of validate's GPU semiring checks. Every GPU test skips with the reason when no GPU is usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_semiring.hpp"
#include "mixgraph/semiring_backend.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/validate.hpp"
#include "mixgraph/weights.hpp"

using namespace mixgraph;

namespace {

#define REQUIRE_GPU()                                \
  do {                                               \
    const auto info_ = gpu::device_info();           \
    if (!info_.usable()) GTEST_SKIP() << info_.note; \
  } while (0)

BackendChoice gpu_choice() {
  BackendChoice c;
  c.gpu = true;
  c.name = "gpu";
  return c;
}

BackendChoice cpu_choice() {
  BackendChoice c;
  c.name = "cpu";
  return c;
}

/// All positions for small n, else both ends, the middle and hashed positions, unsorted, one repeated.
std::vector<pos_t> sources_for(pos_t n) {
  std::vector<pos_t> s;
  if (n <= 70) {
    for (pos_t i = n; i-- > 0;) s.push_back(i);  // descending: the order must be kept
    return s;
  }
  s = {n - 1, 0, n / 2, 1, n - 2};
  for (std::uint64_t k = 0; k < 20; ++k) s.push_back(static_cast<pos_t>(hash_uniform(7, n, k, 0) * n));
  s.push_back(n / 2);  // a repeated source
  return s;
}

std::string where(const std::vector<pos_t>& src, std::size_t k) {
  return "position " + std::to_string(k / src.size() + 1) + ", source " +
         std::to_string(src[k % src.size()] + 1);
}

/// The three GPU semirings (through the backend wrappers) equal the CPU engine's, entry by entry.
void expect_gpu_matches_cpu(const SolveStructure& s, const std::vector<pos_t>& src,
                            const std::string& label) {
  SCOPED_TRACE(label + " (n = " + std::to_string(s.n) + ", " + std::to_string(src.size()) + " sources)");
  const std::string form = s.implicit ? "-implicit" : "-csr";
  const BackendChoice be = gpu_choice();

  const auto want_d = solve_distances(s, src, 1);
  const DistancesRun d = distances_on(be, s, src);
  EXPECT_EQ(d.kernel, "gpu-semiring-minplus" + form);
  ASSERT_EQ(d.dist.size(), want_d.size());
  for (std::size_t k = 0; k < want_d.size(); ++k)
    ASSERT_EQ(d.dist[k], want_d[k]) << "distance at " << where(src, k);

  const auto want_r = solve_reachability(s, src, 1);
  const ReachabilityRun r = reachability_on(be, s, src);
  EXPECT_EQ(r.kernel, "gpu-semiring-orand" + form);
  ASSERT_EQ(r.reach.size(), want_r.size());
  for (std::size_t k = 0; k < want_r.size(); ++k)
    ASSERT_EQ(int(r.reach[k]), int(want_r[k])) << "reachability at " << where(src, k);

  const PathCounts want_c = solve_path_counts(s, src, 1);
  const PathCountsRun c = path_counts_on(be, s, src);
  EXPECT_EQ(c.kernel, "gpu-semiring-count" + form);
  ASSERT_EQ(c.counts.dist.size(), want_c.dist.size());
  ASSERT_EQ(c.counts.count.size(), want_c.count.size());
  for (std::size_t k = 0; k < want_c.dist.size(); ++k) {
    ASSERT_EQ(c.counts.dist[k], want_c.dist[k]) << "count distance at " << where(src, k);
    ASSERT_EQ(c.counts.count[k], want_c.count[k]) << "path count at " << where(src, k);
  }
  EXPECT_EQ(c.counts.overflow, want_c.overflow);
}

void expect_pattern(const std::string& spec, pos_t n) {
  const Pattern p = make_pattern(spec, n);
  expect_gpu_matches_cpu(solve_structure(p), sources_for(p.n), spec);
}

/// A general CSR mask (the "matrix" family): B row i reads a hashed subset of j < i; A reads a hashed subset
/// of j < i plus the diagonal on most rows (rows without it: x_i enters only through off-diagonal A).
SolveStructure random_mask(pos_t n, std::uint64_t seed) {
  SolveStructure s;
  s.n = n;
  s.family = "matrix";
  s.b.n = s.a.n = n;
  s.b.ptr.assign(1, 0);
  s.a.ptr.assign(1, 0);
  for (pos_t i = 0; i < n; ++i) {
    for (pos_t j = 0; j < i; ++j) {
      const double u = hash_uniform(seed, i, j, 1), v = hash_uniform(seed, i, j, 2);
      if (u < 0.08 || j + 1 == i) s.b.idx.push_back(j);  // the chain keeps far reads connected
      if (v < 0.04) s.a.idx.push_back(j);
    }
    if (hash_uniform(seed, i, i, 3) < 0.8) s.a.idx.push_back(i);
    s.b.ptr.push_back(s.b.idx.size());
    s.a.ptr.push_back(s.a.idx.size());
  }
  s.nnz_b = s.b.nnz();
  s.nnz_a = s.a.nnz();
  return s;
}

/// Layers of width w, each node reading every node of the layer before (layer 0 = position 0): w^(k-1)
/// shortest paths into layer k, so the counts saturate past 64 bits.
SolveStructure layered_mask(pos_t w, pos_t layers) {
  SolveStructure s;
  s.n = 1 + w * layers;
  s.family = "matrix";
  s.b.n = s.a.n = s.n;
  s.b.ptr.assign(1, 0);
  s.a.ptr.assign(1, 0);
  for (pos_t i = 0; i < s.n; ++i) {
    if (i > 0) {
      const pos_t layer = (i - 1) / w + 1;
      const pos_t lo = layer == 1 ? 0 : 1 + (layer - 2) * w, hi = layer == 1 ? 1 : lo + w;
      for (pos_t j = lo; j < hi; ++j) s.b.idx.push_back(j);
    }
    s.a.idx.push_back(i);
    s.b.ptr.push_back(s.b.idx.size());
    s.a.ptr.push_back(s.a.idx.size());
  }
  s.nnz_b = s.b.nnz();
  s.nnz_a = s.a.nnz();
  return s;
}

TEST(GpuSemiring, TranslationInvariantMatchCpu) {
  REQUIRE_GPU();
  for (const char* spec : {"pow2", "sq1", "ssm", "local:8"})
    for (pos_t n : {1u, 2u, 9u, 64u, 333u, 2048u}) expect_pattern(spec, n);
}

TEST(GpuSemiring, CacheEfficientMatchCpu) {
  REQUIRE_GPU();
  for (const char* spec : {"pow2+cache", "sq1+cache"})
    for (pos_t n : {1u, 2u, 9u, 64u, 333u, 2048u}) expect_pattern(spec, n);
}

TEST(GpuSemiring, CsrMaskMatchesCpu) {
  REQUIRE_GPU();
  for (pos_t n : {1u, 2u, 7u, 60u, 300u}) {
    const SolveStructure s = random_mask(n, 11 + n);
    expect_gpu_matches_cpu(s, sources_for(n), "random CSR mask");
  }
}

TEST(GpuSemiring, ImplicitAWithoutDiagonalMatchesCpu) {
  REQUIRE_GPU();
  for (pos_t n : {1u, 5u, 100u, 257u}) {  // x_s enters only through A's off-diagonal offsets
    SolveStructure s;
    s.n = n;
    s.implicit = true;
    s.family = "translation-invariant";
    s.b_offsets = {2, 3, 17};
    s.a_offsets = {1, 4, 9};
    expect_gpu_matches_cpu(s, sources_for(n), "implicit offsets, A without its diagonal");
  }
}

TEST(GpuSemiring, SaturatedCountsMatchCpu) {
  REQUIRE_GPU();
  const SolveStructure s = layered_mask(4, 36);  // 4^35 paths into the last layer
  const PathCounts want = solve_path_counts(s, {0}, 1);
  ASSERT_TRUE(want.overflow);  // the case is meant to saturate
  expect_gpu_matches_cpu(s, {0, 1, s.n - 1}, "layered CSR (saturating counts)");
}

TEST(GpuSemiring, LargerNSampledSourcesMatchCpu) {
  REQUIRE_GPU();
  expect_pattern("pow2", 20000);
  expect_pattern("ssm", 20000);
  expect_pattern("sq1+cache", 20000);
}

/// Several kernel launches: chunk widths below, at and above a warp, with a partial last chunk.
TEST(GpuSemiring, ChunkedSourcesMatchCpu) {
  REQUIRE_GPU();
  for (const std::string spec : {"pow2", "pow2+cache"}) {
    const Pattern p = make_pattern(spec, 700);
    const SolveStructure s = solve_structure(p);
    std::vector<pos_t> src;
    for (std::uint64_t k = 0; k < 150; ++k) src.push_back(static_cast<pos_t>(hash_uniform(3, 1, k, 0) * p.n));
    src.push_back(p.n - 1);
    const auto want_d = solve_distances(s, src, 1);
    const auto want_r = solve_reachability(s, src, 1);
    const auto want_c = solve_path_counts(s, src, 1);
    const auto g = gpu_semiring_structure(s);
    const auto S = static_cast<std::uint32_t>(src.size());
    for (std::uint32_t chunk : {1u, 5u, 32u, 33u, 64u}) {
      SCOPED_TRACE(spec + ", at most " + std::to_string(chunk) + " columns per launch");
      std::vector<std::uint32_t> dist(want_d.size()), cdist(want_d.size());
      std::vector<std::uint8_t> reach(want_r.size());
      std::vector<std::uint64_t> count(want_d.size());
      bool overflow = true;
      const auto rd = gpu::semiring_distances(g, src.data(), S, dist.data(), chunk);
      ASSERT_TRUE(rd.ran) << rd.note;
      EXPECT_EQ(rd.chunks, (S + chunk - 1) / chunk);
      EXPECT_EQ(dist, want_d);
      const auto rr = gpu::semiring_reachability(g, src.data(), S, reach.data(), chunk);
      ASSERT_TRUE(rr.ran) << rr.note;
      EXPECT_EQ(reach, want_r);
      const auto rc =
          gpu::semiring_path_counts(g, src.data(), S, cdist.data(), count.data(), &overflow, chunk);
      ASSERT_TRUE(rc.ran) << rc.note;
      EXPECT_EQ(cdist, want_c.dist);
      EXPECT_EQ(count, want_c.count);
      EXPECT_EQ(overflow, want_c.overflow);
    }
  }
}

TEST(GpuSemiring, NoSourcesGiveEmptyResults) {
  REQUIRE_GPU();
  const SolveStructure s = solve_structure(make_pattern("pow2", 50));
  EXPECT_TRUE(distances_on(gpu_choice(), s, {}).dist.empty());
  EXPECT_TRUE(reachability_on(gpu_choice(), s, {}).reach.empty());
  EXPECT_TRUE(path_counts_on(gpu_choice(), s, {}).counts.count.empty());
}

TEST(GpuSemiring, ValidateGpuAddsSemiringChecks) {
  REQUIRE_GPU();
  // only the semiring checks are asserted here (the real-valued GPU solve has its own tests in test_solve)
  for (const std::string spec : {"pow2", "pow2+cache", "local:8"}) {
    const auto r = test::run_cli("validate --pattern " + spec + " --n 300 --backend gpu --format json");
    ASSERT_TRUE(r.code == 0 || r.code == 1) << spec << ": " << r.out << r.err;
    const auto j = nlohmann::json::parse(r.out);
    std::vector<std::string> names;
    for (const auto& c : j["checks"]) {
      const std::string name = c["name"];
      names.push_back(name);
      if (name.rfind("(", 0) == 0) {  // the semiring checks, CPU and GPU
        EXPECT_TRUE(c["passed"].get<bool>()) << spec << ": " << name << ": " << c["detail"];
      }
    }
    for (const char* want : {"(min,+) distances == BFS distances (Boost.Graph)",
                             "(min,+) distances (gpu) == BFS distances (Boost.Graph)",
                             "(or,and) reachability (gpu) == transitive closure (bitsets)",
                             "(min,+) with counts (gpu) == BFS shortest-path counts in G"})
      EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << spec << ": no check " << want;
    const std::string form = spec == "pow2+cache" ? "-csr" : "-implicit";
    std::vector<std::string> kernels = j["kernels"];
    for (const char* ring : {"minplus", "orand", "count"})
      EXPECT_NE(std::find(kernels.begin(), kernels.end(), "gpu-semiring-" + std::string(ring) + form),
                kernels.end())
          << spec << " " << ring;
  }
}

// ---- without a GPU (these run everywhere; the first skips where a GPU is present) ----

TEST(GpuSemiringNoGpu, ReportsNotRunWithNote) {
  if (gpu::device_info().usable()) GTEST_SKIP() << "a GPU is present, so the GPU semiring solves run";
  const SolveStructure s = solve_structure(make_pattern("pow2", 16));
  const auto g = gpu_semiring_structure(s);
  const std::vector<pos_t> src = {0, 15};
  std::vector<std::uint32_t> dist(32);
  std::vector<std::uint8_t> reach(32);
  std::vector<std::uint64_t> count(32);
  bool overflow = true;
  const auto rd = gpu::semiring_distances(g, src.data(), 2, dist.data());
  EXPECT_FALSE(rd.ran);
  EXPECT_FALSE(rd.note.empty());
  EXPECT_FALSE(gpu::semiring_reachability(g, src.data(), 2, reach.data()).ran);
  EXPECT_FALSE(gpu::semiring_path_counts(g, src.data(), 2, dist.data(), count.data(), &overflow).ran);
  EXPECT_FALSE(overflow);
  EXPECT_THROW(distances_on(gpu_choice(), s, src), RuntimeFailure);
  EXPECT_THROW(reachability_on(gpu_choice(), s, src), RuntimeFailure);
  EXPECT_THROW(path_counts_on(gpu_choice(), s, src), RuntimeFailure);
}

TEST(GpuSemiringBackend, CpuChoiceIsTheCpuEngine) {
  for (const char* spec : {"pow2", "pow2+cache"}) {
    const SolveStructure s = solve_structure(make_pattern(spec, 100));
    const std::vector<pos_t> src = {99, 0, 40};
    const std::string form = s.implicit ? "-implicit" : "-csr";
    const auto d = distances_on(cpu_choice(), s, src);
    EXPECT_EQ(d.kernel, "cpu-semiring-minplus" + form + "-tiled");
    EXPECT_EQ(d.dist, solve_distances(s, src));
    const auto r = reachability_on(cpu_choice(), s, src);
    EXPECT_EQ(r.kernel, "cpu-semiring-orand" + form + "-tiled");
    EXPECT_EQ(r.reach, solve_reachability(s, src));
    const auto c = path_counts_on(cpu_choice(), s, src);
    EXPECT_EQ(c.kernel, "cpu-semiring-count" + form + "-tiled");
    EXPECT_EQ(c.counts.count, solve_path_counts(s, src).count);
  }
}

TEST(GpuSemiringBackend, SourceOutsideIsUsageErrorOnBothBackends) {
  const SolveStructure s = solve_structure(make_pattern("sq1", 10));
  for (const BackendChoice& be : {cpu_choice(), gpu_choice()}) {
    EXPECT_THROW(distances_on(be, s, {3, 10}), UsageError) << be.name;
    EXPECT_THROW(reachability_on(be, s, {10}), UsageError) << be.name;
    EXPECT_THROW(path_counts_on(be, s, {11}), UsageError) << be.name;
  }
}

TEST(GpuSemiringBackend, ValidateCpuHasNoGpuChecks) {
  const auto r = test::run_cli("validate --pattern pow2 --n 100 --backend cpu --format json");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& c : j["checks"]) names.push_back(c["name"]);
  EXPECT_EQ(std::count(names.begin(), names.end(), "(min,+) distances == BFS distances (Boost.Graph)"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "(or,and) reachability == transitive closure (bitsets)"),
            1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "(min,+) with counts == BFS shortest-path counts in G"),
            1);
  for (const auto& n : names) EXPECT_EQ(n.find("(gpu)"), std::string::npos) << n;
}

// validate's semiring hooks, exercised with the CPU engine as the "other" backend (runs everywhere)

std::vector<const ValidateCheck*> tagged(const ValidateResult& r, const std::string& tag) {
  std::vector<const ValidateCheck*> out;
  for (const auto& c : r.checks)
    if (c.name.find(tag) != std::string::npos) out.push_back(&c);
  return out;
}

ValidateOptions twin_options(int corrupt) {
  ValidateOptions o;
  o.other_name = "twin";
  o.heads = 1;
  o.d_h = 2;
  o.channel_heads = 2;
  // corrupt = 1: every hook result has one entry off (at the last position from the first source)
  o.other_distances = [corrupt](const SolveStructure& s, const std::vector<pos_t>& src,
                                std::vector<std::uint32_t>& out) {
    out = solve_distances(s, src);
    if (corrupt) out[(std::size_t(s.n) - 1) * src.size()] += 1;
    return std::string("twin-minplus");
  };
  o.other_reachability = [corrupt](const SolveStructure& s, const std::vector<pos_t>& src,
                                   std::vector<std::uint8_t>& out) {
    out = solve_reachability(s, src);
    if (corrupt) out[(std::size_t(s.n) - 1) * src.size()] ^= 1;
    return std::string("twin-orand");
  };
  o.other_path_counts = [corrupt](const SolveStructure& s, const std::vector<pos_t>& src, PathCounts& out) {
    out = solve_path_counts(s, src);
    if (corrupt) out.count[(std::size_t(s.n) - 1) * src.size()] += 1;
    return std::string("twin-count");
  };
  return o;
}

TEST(ValidateSemiringHooks, OtherBackendChecksPass) {
  for (pos_t all_max : {4096u, 50u}) {  // all sources (transitive closure) and sampled (BFS reachability)
    ValidateOptions o = twin_options(0);
    o.all_sources_max_n = all_max;
    const ValidateResult r = validate_solve(make_pattern("pow2", 100), o);
    const auto twin = tagged(r, "(twin)");
    ASSERT_EQ(twin.size(), 3u);
    EXPECT_EQ(twin[0]->name, "(min,+) distances (twin) == BFS distances (Boost.Graph)");
    EXPECT_EQ(twin[1]->name, all_max > 100 ? "(or,and) reachability (twin) == transitive closure (bitsets)"
                                           : "(or,and) reachability (twin) == BFS reachability");
    EXPECT_EQ(twin[2]->name, "(min,+) with counts (twin) == BFS shortest-path counts in G");
    for (const auto* c : twin) EXPECT_TRUE(c->passed) << c->name << ": " << c->detail;
    EXPECT_TRUE(r.all_passed);
    for (const char* k : {"twin-minplus", "twin-orand", "twin-count"})
      EXPECT_NE(std::find(r.kernels.begin(), r.kernels.end(), k), r.kernels.end()) << k;
  }
}

TEST(ValidateSemiringHooks, OtherBackendMismatchFails) {
  for (pos_t all_max : {4096u, 50u}) {
    ValidateOptions o = twin_options(1);
    o.all_sources_max_n = all_max;
    const ValidateResult r = validate_solve(make_pattern("sq1+cache", 100), o);
    const auto twin = tagged(r, "(twin)");
    ASSERT_EQ(twin.size(), 3u);
    for (const auto* c : twin) {
      EXPECT_FALSE(c->passed) << c->name;
      EXPECT_NE(c->detail.find("position 100"), std::string::npos) << c->detail;
    }
    EXPECT_FALSE(r.all_passed);
    for (const auto& c : r.checks) {  // the CPU engine's own checks still pass
      if (c.name.find("(twin)") == std::string::npos) {
        EXPECT_TRUE(c.passed) << c.name;
      }
    }
  }
}

}  // namespace
