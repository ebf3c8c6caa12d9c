// CPU references of two GPU kernel stages: gpu-scan1's three passes (scan_reference.hpp) and gpu-pipeline's
// gather (pipeline_gather_reference.hpp), each against the library's CPU solve (solve_mixer) and the
// definitions of its stage; and, on a GPU, gpu-scan1's own arrays against the reference bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "mixgraph/pattern.hpp"
#include "mixgraph/pipeline_gather_reference.hpp"
#include "mixgraph/scan_reference.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/solve_backend.hpp"
#include "problem_reads.hpp"

using namespace mixgraph;

namespace {

struct Case {
  std::string spec;
  std::uint32_t n;
  int heads;
  std::uint32_t d;
};

// x in [-1, 1], from a fixed integer hash (no RNG state)
template <class T>
std::vector<T> input(std::uint32_t n, std::uint32_t d) {
  std::vector<T> x(std::size_t(n) * d);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] = T(double((k * 2654435761u + 12345u) % 2001u) / 1000.0 - 1.0);
  return x;
}

template <class T>
double tol() {
  return sizeof(T) == 8 ? 1e-11 : 2e-4;
}

// |a - b| <= tol * max(1, |b|)
bool close(double a, double b, double t) {
  return std::fabs(a - b) <= t * std::max(1.0, std::fabs(b));
}

using test::b_reads;
using test::Read;

// ---- gpu-scan1 ----

template <class T>
void check_scan(const Case& cs, std::uint32_t seg) {
  SCOPED_TRACE(cs.spec + " n=" + std::to_string(cs.n) + " heads=" + std::to_string(cs.heads) +
               " d=" + std::to_string(cs.d) + " seg=" + std::to_string(seg));
  const Pattern pat = make_pattern(cs.spec, cs.n);
  const auto w = make_mixer_weights<T>(pat, cs.heads, 7);
  const gpu::SolveProblem p = gpu_problem(w, cs.d);
  std::string why;
  ASSERT_TRUE(gpu::scan_reference_applies(p, &why)) << why;
  const auto x = input<T>(cs.n, cs.d);
  std::vector<T> want(x.size());
  solve_mixer(w, x.data(), want.data(), cs.d, 1);  // the library's CPU solve
  const auto s = gpu::scan_stages_reference<T>(p, x.data(), seg);
  ASSERT_EQ(s.nseg, (cs.n + seg - 1) / seg);
  ASSERT_EQ(s.y.size(), want.size());
  const double t = tol<T>();
  std::size_t bad = 0;
  for (std::size_t k = 0; k < want.size() && bad < 5; ++k)
    if (!close(s.y[k], want[k], t)) {
      ++bad;
      ADD_FAILURE() << "Y[" << k / cs.d << "][" << k % cs.d << "] = " << s.y[k] << ", solve_mixer "
                    << want[k];
    }
  // the stages from their definitions: carry[g] = Y of the row before segment g (0 for g = 0); pm[g] = the
  // product of the segment's coefficients b_i of the read i - 1; pm carry + qm = Y of the segment's last row
  const std::uint32_t dh = cs.d / cs.heads;
  for (std::uint32_t g = 0; g < s.nseg && bad < 5; ++g)
    for (std::uint32_t c = 0; c < cs.d && bad < 5; ++c) {
      const std::size_t q = std::size_t(g) * cs.d + c;
      const double carry = g == 0 ? 0.0 : double(want[(std::size_t(g) * seg - 1) * cs.d + c]);
      double prod = 1;
      const std::uint32_t i0 = g * seg, i1 = std::min(cs.n, i0 + seg);
      for (std::uint32_t i = i0; i < i1; ++i) {
        double b = 0;
        for (const Read& r : b_reads(p, i, c / dh))
          if (r.o == 1) b = r.v;
        prod *= b;
      }
      const double last = double(want[std::size_t(i1 - 1) * cs.d + c]);
      if (!close(s.carry[q], carry, t) || !close(s.pm[q], prod, t) ||
          !close(double(s.pm[q]) * double(s.carry[q]) + double(s.qm[q]), last, t)) {
        ++bad;
        ADD_FAILURE() << "segment " << g << " column " << c << ": carry " << s.carry[q]
                      << " (Y before: " << carry << "), pm " << s.pm[q] << " (product: " << prod
                      << "), pm carry + qm " << double(s.pm[q]) * double(s.carry[q]) + double(s.qm[q])
                      << " (Y at the end: " << last << ")";
      }
    }
}

TEST(ScanReference, StagesMatchTheCpuSolveAndTheirDefinitions) {
  // first-order patterns: ssm (A the diagonal), window:1 (A reads i and i - 1)
  for (const Case& cs :
       {Case{"ssm", 300, 1, 8}, Case{"ssm", 129, 4, 8}, Case{"window:1", 257, 2, 6}, Case{"ssm", 2, 1, 2}}) {
    for (std::uint32_t seg : {1u, 16u, gpu::kScanSegment, 1000u}) {
      check_scan<float>(cs, seg);
      check_scan<double>(cs, seg);
    }
  }
}

TEST(ScanReference, RefusesWhatTheScanDoesNotTake) {
  const auto x = input<float>(64, 4);
  for (const char* spec : {"window:2", "local:3", "pow2"}) {  // B reads i - 2 too, none, or i - 2^k
    SCOPED_TRACE(spec);
    const Pattern pat = make_pattern(spec, 64);
    const auto w = make_mixer_weights<float>(pat, 1, 7);
    const gpu::SolveProblem p = gpu_problem(w, 4);
    std::string why;
    EXPECT_FALSE(gpu::scan_reference_applies(p, &why));
    EXPECT_NE(why.find("first-order"), std::string::npos) << why;
    EXPECT_THROW(gpu::scan_stages_reference<float>(p, x.data()), std::invalid_argument);
  }
  const Pattern ssm = make_pattern("ssm", 64);
  const auto ws = make_mixer_weights<float>(ssm, 1, 7);
  EXPECT_THROW(gpu::scan_stages_reference<double>(gpu_problem(ws, 4), nullptr), std::invalid_argument);
}

// ---- gpu-pipeline's gather ----

// Returns the number of far reads (offsets >= far) the case met.
template <class T>
std::size_t check_gather(const Case& cs, std::uint32_t far) {
  SCOPED_TRACE(cs.spec + " n=" + std::to_string(cs.n) + " d=" + std::to_string(cs.d) +
               " far=" + std::to_string(far));
  const Pattern pat = make_pattern(cs.spec, cs.n);
  const auto w = make_mixer_weights<T>(pat, cs.heads, 11);
  const gpu::SolveProblem p = gpu_problem(w, cs.d);
  const auto x = input<T>(cs.n, cs.d);
  std::vector<T> y(x.size());
  solve_mixer(w, x.data(), y.data(), cs.d, 1);
  const auto v = gpu::pipeline_gather_reference<T>(p, x.data(), y.data(), far);
  const std::uint32_t TC = gpu::kPipelineChunk, TW = gpu::kPipelineTile;
  const std::uint32_t nch = (cs.n + TC - 1) / TC, nt = (cs.d + TW - 1) / TW, dh = cs.d / cs.heads;
  EXPECT_EQ(v.size(), std::size_t(nch) * nt * TC * TW);
  if (v.size() != std::size_t(nch) * nt * TC * TW) return 0;
  // the solve's row: y_i = (A X)_i + sum_o b_o y_{i-o}; so the package's V = y_i - the reads at offsets < far
  std::size_t bad = 0, far_reads = 0;
  for (std::uint32_t c = 0; c < nch; ++c)
    for (std::uint32_t t = 0; t < nt; ++t)
      for (std::uint32_t r = 0; r < TC; ++r)
        for (std::uint32_t u = 0; u < TW; ++u) {
          const std::uint32_t i = c * TC + r, col = t * TW + u;
          const T got = v[((std::size_t(c) * nt + t) * TC + r) * TW + u];
          double want = 0;
          if (i < cs.n && col < cs.d) {
            want = double(y[std::size_t(i) * cs.d + col]);
            for (const Read& e : b_reads(p, i, col / dh)) {
              if (e.o < far)
                want -= e.v * double(y[std::size_t(i - e.o) * cs.d + col]);
              else
                ++far_reads;
            }
          }
          if (!close(got, want, 8 * tol<T>()) && ++bad <= 5)
            ADD_FAILURE() << "chunk " << c << " tile " << t << " row " << r << " column " << u
                          << ": V = " << got << ", y minus the near reads " << want;
        }
  return far_reads;
}

TEST(PipelineGatherReference, PackagesAreTheSolveLessItsNearReads) {
  // implicit (pow2, window:3, ssm), CSR (sink:, bigbird:, pow2+cache), heads, a partial tile (d = 40) and a
  // partial chunk (n not a multiple of 64)
  for (const Case& cs :
       {Case{"pow2", 300, 1, 40}, Case{"window:3", 130, 2, 8}, Case{"sink:4", 200, 2, 36},
        Case{"bigbird:3,2,2", 150, 1, 33}, Case{"pow2+cache", 260, 1, 32}, Case{"ssm", 70, 1, 1}}) {
    for (std::uint32_t far : {4u, 64u}) {
      const std::size_t f32 = check_gather<float>(cs, far), f64 = check_gather<double>(cs, far);
      // every case but the short-range ones reads past `far`, so the packages hold far reads
      if (cs.spec != "window:3" && cs.spec != "ssm") {
        EXPECT_GT(f32, 0u) << cs.spec << " far=" << far;
      }
      EXPECT_EQ(f32, f64);
    }
  }
  // the kernels' own F (1024 fp32, 512 fp64) on a pattern whose reads reach past it
  EXPECT_GT(check_gather<float>({"pow2", 2100, 1, 32}, gpu::pipeline_far_offset<float>()), 0u);
  EXPECT_GT(check_gather<double>({"pow2", 1100, 1, 32}, gpu::pipeline_far_offset<double>()), 0u);
}

// ---- on a GPU: gpu-scan1's arrays against the reference ----

template <class T>
void check_scan_gpu(const Case& cs) {
  SCOPED_TRACE(cs.spec + " n=" + std::to_string(cs.n) + " d=" + std::to_string(cs.d));
  const Pattern pat = make_pattern(cs.spec, cs.n);
  const auto w = make_mixer_weights<T>(pat, cs.heads, 7);
  const gpu::SolveProblem p = gpu_problem(w, cs.d);
  const auto x = input<T>(cs.n, cs.d);
  const auto run = gpu::scan_stages_gpu<T>(p, x.data());
  if (!run.ran) {
    GTEST_SKIP() << "gpu-scan1's stages did not run: " << run.note;
  }
  const auto ref = gpu::scan_stages_reference<T>(p, x.data(), gpu::kScanSegment);
  ASSERT_EQ(run.stages.nseg, ref.nseg);
  const std::pair<const char*, std::pair<const std::vector<T>*, const std::vector<T>*>> arrays[] = {
      {"pm", {&run.stages.pm, &ref.pm}},
      {"qm", {&run.stages.qm, &ref.qm}},
      {"carry", {&run.stages.carry, &ref.carry}},
      {"y", {&run.stages.y, &ref.y}}};
  for (const auto& [name, pair] : arrays) {
    const auto& [g, r] = pair;
    ASSERT_EQ(g->size(), r->size()) << name;
    std::size_t differ = 0, first = g->size();
    for (std::size_t k = 0; k < g->size(); ++k)
      if (std::memcmp(&(*g)[k], &(*r)[k], sizeof(T)) != 0 && differ++ == 0) first = k;
    EXPECT_EQ(differ, 0u) << name << ": " << differ << " of " << g->size()
                          << " entries differ in their bits; first at " << first << ": GPU " << (*g)[first]
                          << ", reference " << (*r)[first];
  }
}

TEST(GpuScanStages, MatchTheReferenceBitForBit) {
  for (const Case& cs : {Case{"ssm", 1000, 1, 64}, Case{"ssm", 4097, 64, 64}, Case{"window:1", 777, 2, 40}}) {
    check_scan_gpu<float>(cs);
    check_scan_gpu<double>(cs);
  }
}

// ---- on a GPU: gpu-pipeline's gather (run alone, every Y row final) against the reference ----

template <class T>
void check_gather_gpu(const Case& cs) {
  SCOPED_TRACE(cs.spec + " n=" + std::to_string(cs.n) + " d=" + std::to_string(cs.d));
  const Pattern pat = make_pattern(cs.spec, cs.n);
  const auto w = make_mixer_weights<T>(pat, cs.heads, 11);
  const gpu::SolveProblem p = gpu_problem(w, cs.d);
  const auto x = input<T>(cs.n, cs.d);
  std::vector<T> y(x.size());
  solve_mixer(w, x.data(), y.data(), cs.d, 1);
  const auto run = gpu::pipeline_gather_gpu<T>(p, x.data(), y.data());
  if (!run.ran) {
    GTEST_SKIP() << "gpu-pipeline's gather did not run: " << run.note;
  }
  const auto ref = gpu::pipeline_gather_reference<T>(p, x.data(), y.data());
  const std::size_t per_chunk = std::size_t((cs.d + gpu::kPipelineTile - 1) / gpu::kPipelineTile) *
                                gpu::kPipelineChunk * gpu::kPipelineTile;
  const std::size_t offset = std::size_t(run.first_chunk) * per_chunk;
  ASSERT_EQ(offset + run.v.size(), ref.size());
  std::size_t bad = 0;
  for (std::size_t k = 0; k < run.v.size(); ++k)
    if (!close(run.v[k], ref[offset + k], 8 * tol<T>()) && ++bad <= 5)
      ADD_FAILURE() << "chunk " << run.first_chunk + k / per_chunk << " entry " << k % per_chunk << ": GPU "
                    << run.v[k] << ", reference " << ref[offset + k];
}

TEST(GpuPipelineGather, TheRingsPackagesMatchTheReference) {
  // n past the kernels' F (1024 fp32, 512 fp64), so the packages kept hold far reads; implicit and CSR B
  for (const Case& cs : {Case{"pow2", 2100, 1, 40}, Case{"pow2+cache", 2100, 2, 64},
                         Case{"sink:4", 1500, 1, 32}, Case{"window:3", 300, 1, 8}}) {
    check_gather_gpu<float>(cs);
    check_gather_gpu<double>(cs);
  }
}

}  // namespace
