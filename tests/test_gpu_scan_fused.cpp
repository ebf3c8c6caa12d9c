// gpu-scan1 without coefficient arrays: seeded coefficients made inside the scan kernels (fused) give the
// same bytes of Y as the coefficients written to a device array first, and agree with a float64
// recurrence built from weight_gen.hpp's definition; per-channel gates read in place from device memory
// agree with the same recurrence; solve_device's cached device buffers survive changing sizes and a
// release; calls that do not wait (SolveOptions::wait = false) on two streams give the bytes of waiting
// calls. Every GPU test skips with the reason when no GPU is usable.
#include <gtest/gtest.h>
#ifdef MIXGRAPH_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mixgraph/analysis/gpu_options_env.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_solve.hpp"
#include "mixgraph/weight_gen.hpp"

using namespace mixgraph;

namespace {

#define REQUIRE_GPU()                                \
  do {                                               \
    const auto info_ = gpu::device_info();           \
    if (!info_.usable()) GTEST_SKIP() << info_.note; \
  } while (0)

using Opt = gpu::SolveOptions;

// A first-order problem: A reads the offsets aoff (ascending, 0 first), B reads i - 1; both seeded.
struct Problem {
  std::vector<std::uint32_t> aoff, boff{1};
  gpu::SolveProblem p;
  Problem(std::uint32_t n, std::uint32_t d, std::uint32_t heads, bool fp64, std::vector<std::uint32_t> ao,
          std::uint64_t seed)
      : aoff(std::move(ao)) {
    p.n = n;
    p.d = d;
    p.heads = heads;
    p.fp64 = fp64;
    auto seeded = [&](gpu::SolveMatrix& m, const std::vector<std::uint32_t>& off, bool is_a) {
      m.implicit = true;
      m.offsets = off.data();
      m.k = static_cast<std::uint32_t>(off.size());
      m.gen = gpu::CoefGen::Seeded;
      m.gen_seed = seed;
      m.gen_matrix = static_cast<std::uint32_t>(is_a ? wgen::kMatrixA : wgen::kMatrixB);
      m.gen_total = is_a ? wgen::kTotalA : wgen::kTotalB;
    };
    seeded(p.a, aoff, true);
    seeded(p.b, boff, false);
  }
};

// The weight of read offset o of row i, head h, straight from weight_gen.hpp's definition (reads = the
// offsets <= i), rounded to the run's precision.
double ref_weight(const gpu::SolveMatrix& m, const std::vector<std::uint32_t>& off, std::uint32_t h,
                  std::uint32_t i, std::uint32_t o, bool fp64) {
  std::uint32_t reads = 0;
  for (std::uint32_t q : off) reads += q <= i ? 1u : 0u;
  const double w = wgen::weight(wgen::stream_key(m.gen_seed, h, m.gen_matrix), m.gen_total, reads, i, i - o);
  return fp64 ? w : double(static_cast<float>(w));
}

// y_i = sum_k alpha(i, k) x_{i - o_k} + g(i) y_{i-1} in float64, column by column. g(h, i): B's weight.
template <class G>
std::vector<double> reference(const Problem& pr, const std::vector<double>& x, G g) {
  const auto& p = pr.p;
  std::vector<double> y(x.size());
  const std::uint32_t dh = p.d / p.heads;
  for (std::uint32_t c = 0; c < p.d; ++c) {
    const std::uint32_t h = c / dh;
    double prev = 0;
    for (std::uint32_t i = 0; i < p.n; ++i) {
      double v = 0;
      for (std::uint32_t o : pr.aoff)
        if (o <= i) v += ref_weight(p.a, pr.aoff, h, i, o, p.fp64) * x[std::size_t(i - o) * p.d + c];
      if (i >= 1) v += g(h, i) * prev;
      y[std::size_t(i) * p.d + c] = prev = v;
    }
  }
  return y;
}

double rel_err(const std::vector<unsigned char>& got, bool fp64, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    double v = 0;
    if (fp64) {
      std::memcpy(&v, got.data() + 8 * k, 8);
    } else {
      float f = 0;
      std::memcpy(&f, got.data() + 4 * k, 4);
      v = f;
    }
    num += (v - want[k]) * (v - want[k]);
    den += want[k] * want[k];
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

// X (n x d, values in [-1, 1)) in the run's precision, as bytes, and the same values in double.
std::vector<unsigned char> make_x(std::uint32_t n, std::uint32_t d, bool fp64, std::vector<double>& xd) {
  const std::size_t nd = std::size_t(n) * d, es = fp64 ? 8 : 4;
  std::vector<unsigned char> b(nd * es);
  xd.resize(nd);
  for (std::size_t k = 0; k < nd; ++k) {
    const double v = wgen::input_value(3, k / d, k % d);
    if (fp64) {
      xd[k] = v;
      std::memcpy(b.data() + 8 * k, &v, 8);
    } else {
      const float f = static_cast<float>(v);
      xd[k] = f;
      std::memcpy(b.data() + 4 * k, &f, 4);
    }
  }
  return b;
}

// solve_device from host bytes: upload X, solve, download Y.
gpu::SolveRun device_run(const gpu::SolveProblem& p, const std::vector<unsigned char>& x,
                         std::vector<unsigned char>& y, const Opt& o) {
  void *dx = nullptr, *dy = nullptr;
  EXPECT_EQ(gpu::device_alloc(&dx, x.size()), "");
  EXPECT_EQ(gpu::device_alloc(&dy, x.size()), "");
  EXPECT_EQ(gpu::copy_to_device(dx, x.data(), x.size()), "");
  const gpu::SolveRun r = gpu::solve_device(p, dx, dy, o);
  y.assign(x.size(), 0);
  if (r.ran) {
    EXPECT_EQ(gpu::copy_to_host(y.data(), dy, y.size()), "");
  }
  gpu::device_free(dx);
  gpu::device_free(dy);
  return r;
}

struct Case {
  std::uint32_t n, d, heads;
  std::vector<std::uint32_t> aoff;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {5000, 64, 64, {0}},       // per-channel heads (channel-major layout)
      {1000, 32, 1, {0}},        // one head (head-major layout)
      {3001, 48, 4, {0}},        // heads of 12 columns; n not a multiple of the segment
      {777, 40, 8, {0, 2, 5}},   // A with reads beyond the diagonal: rows 0..4 have fewer reads
      {130, 3, 3, {0, 1, 200}},  // an offset longer than most rows
  };
  return c;
}

TEST(GpuScanFused, SameBytesAsCoefficientArrays) {
  REQUIRE_GPU();
  for (bool fp64 : {false, true})
    for (const Case& c : cases()) {
      const Problem pr(c.n, c.d, c.heads, fp64, c.aoff, 17);
      std::vector<double> xd;
      const auto x = make_x(c.n, c.d, fp64, xd);
      Opt on, off, off_head;
      on.fused_seeded = Opt::Fused::On;
      off.fused_seeded = Opt::Fused::Off;
      off_head.fused_seeded = Opt::Fused::Off;
      off_head.layout = Opt::Layout::HeadMajor;
      std::vector<unsigned char> y_on, y_off, y_off_head, y_auto, y_host(x.size());
      const auto r_on = device_run(pr.p, x, y_on, on);
      ASSERT_TRUE(r_on.ran) << r_on.note;
      const auto r_off = device_run(pr.p, x, y_off, off);
      ASSERT_TRUE(r_off.ran) << r_off.note;
      const auto r_off_head = device_run(pr.p, x, y_off_head, off_head);
      ASSERT_TRUE(r_off_head.ran) << r_off_head.note;
      const auto r_auto = device_run(pr.p, x, y_auto, Opt{});
      ASSERT_TRUE(r_auto.ran) << r_auto.note;
      const auto r_host = gpu::solve(pr.p, x.data(), y_host.data(), on);
      ASSERT_TRUE(r_host.ran) << r_host.note;
      const std::string tag = std::string(fp64 ? "fp64" : "fp32") + " n=" + std::to_string(c.n) +
                              " d=" + std::to_string(c.d) + " heads=" + std::to_string(c.heads);
      EXPECT_NE(r_on.kernel.find("gpu-scan1"), std::string::npos) << r_on.kernel;
      EXPECT_NE(r_on.kernel.find("fused-seeded"), std::string::npos) << r_on.kernel;
      // Auto does not fuse (the fused instances run only when asked for)
      const bool auto_fused = false;
      EXPECT_EQ(r_auto.kernel.find("fused-seeded") != std::string::npos, auto_fused) << r_auto.kernel;
      EXPECT_EQ(r_off.kernel.find("fused-seeded"), std::string::npos) << r_off.kernel;
      EXPECT_TRUE(y_on == y_off) << tag << ": fused and array coefficients differ";
      EXPECT_TRUE(y_on == y_off_head) << tag << ": fused and head-major array coefficients differ";
      EXPECT_TRUE(y_on == y_auto) << tag;
      EXPECT_TRUE(y_on == y_host) << tag << ": solve_device and solve differ";
      const auto want = reference(pr, xd, [&](std::uint32_t h, std::uint32_t i) {
        return ref_weight(pr.p.b, pr.boff, h, i, 1, fp64);
      });
      EXPECT_LE(rel_err(y_on, fp64, want), fp64 ? 1e-12 : 1e-5) << tag;
    }
}

// Per-channel gates G (n x d) in device memory, read in place (vals_on_device, channel-major strides);
// A seeded (fused or not): Y against the float64 recurrence with the same gates.
TEST(GpuScanFused, DeviceGatesMatchRecurrence) {
  REQUIRE_GPU();
  for (bool fp64 : {false, true})
    for (const std::uint32_t d : {64u, 5u}) {
      const std::uint32_t n = 4099;
      Problem pr(n, d, d, fp64, {0}, 9);
      std::vector<double> xd, gd;
      const auto x = make_x(n, d, fp64, xd);
      auto gb = make_x(n, d, fp64, gd);  // gates: 0.5 + 0.45 u for u in [-1, 1)
      for (std::size_t k = 0; k < gd.size(); ++k) {
        if (fp64) {
          gd[k] = 0.5 + 0.45 * gd[k];
          std::memcpy(gb.data() + 8 * k, &gd[k], 8);
        } else {
          const float f = static_cast<float>(0.5 + 0.45 * gd[k]);
          gd[k] = f;
          std::memcpy(gb.data() + 4 * k, &f, 4);
        }
      }
      void* dg = nullptr;
      ASSERT_EQ(gpu::device_alloc(&dg, gb.size()), "");
      ASSERT_EQ(gpu::copy_to_device(dg, gb.data(), gb.size()), "");
      pr.p.b.gen = gpu::CoefGen::Values;
      pr.p.b.vals = dg;
      pr.p.b.vals_on_device = true;
      pr.p.b.hs = 1;
      pr.p.b.is = d;
      pr.p.b.ks = std::uint64_t(n) * d;
      const auto want =
          reference(pr, xd, [&](std::uint32_t h, std::uint32_t i) { return gd[std::size_t(i) * d + h]; });
      for (const Opt::Fused f : {Opt::Fused::On, Opt::Fused::Off}) {
        Opt o;
        o.fused_seeded = f;
        std::vector<unsigned char> y;
        const auto r = device_run(pr.p, x, y, o);
        ASSERT_TRUE(r.ran) << r.note;
        EXPECT_NE(r.kernel.find("gpu-scan1"), std::string::npos) << r.kernel;
        EXPECT_LE(rel_err(y, fp64, want), fp64 ? 1e-12 : 1e-5) << (fp64 ? "fp64 " : "fp32 ") << r.kernel;
      }
      // device coefficients need gpu-scan1: another kernel is refused with a note, not run
      Opt pipe;
      pipe.kernel = Opt::Kernel::Pipeline;
      std::vector<unsigned char> y;
      const auto rp = device_run(pr.p, x, y, pipe);
      EXPECT_FALSE(rp.ran);
      EXPECT_NE(rp.note.find("gpu-scan1"), std::string::npos) << rp.note;
      gpu::device_free(dg);
    }
}

// The cached buffers of solve_device: growing, shrinking and growing again, and after a release, every
// call gives the bytes a fresh solve() gives.
TEST(GpuScanFused, WorkspaceReuseAcrossSizes) {
  REQUIRE_GPU();
  for (const std::uint32_t n : {2000u, 20000u, 300u, 20000u, 0u, 5000u}) {
    if (n == 0) {
      EXPECT_EQ(gpu::release_workspace(), "");
      continue;
    }
    for (const Opt::Fused f : {Opt::Fused::On, Opt::Fused::Off}) {
      const Problem pr(n, 96, 96, false, {0}, 4);
      std::vector<double> xd;
      const auto x = make_x(n, 96, false, xd);
      Opt o;
      o.fused_seeded = f;
      std::vector<unsigned char> y, y_host(x.size());
      const auto r = device_run(pr.p, x, y, o);
      ASSERT_TRUE(r.ran) << r.note;
      const auto rh = gpu::solve(pr.p, x.data(), y_host.data(), o);
      ASSERT_TRUE(rh.ran) << rh.note;
      EXPECT_TRUE(y == y_host) << "n=" << n;
    }
  }
}

// The device cache keeps seeded coefficients between solve_device calls: a call with the same weights
// reuses them (coefs_reused) and one that differs in any input of the weights (seed, heads, precision, n,
// offsets, layout) writes them again; every call gives the bytes of a fresh solve(), which never caches.
TEST(GpuScanFused, SeededCoefficientsReusedOnlyForTheSameWeights) {
  REQUIRE_GPU();
  ASSERT_EQ(gpu::release_workspace(), "");
  struct Step {
    std::uint32_t n, d, heads;
    bool fp64;
    std::vector<std::uint32_t> aoff, boff;
    std::uint64_t seed;
    Opt::Layout layout;
    bool reused;  // expected
  };
  using L = Opt::Layout;
  const std::vector<Step> steps = {
      {5000, 96, 96, false, {0}, {1}, 4, L::Auto, false},           // first call: written
      {5000, 96, 96, false, {0}, {1}, 4, L::Auto, true},            // the same weights: reused
      {5000, 96, 96, false, {0}, {1}, 5, L::Auto, false},           // another seed
      {5000, 96, 96, false, {0}, {1}, 5, L::Auto, true},            //
      {5000, 96, 48, false, {0}, {1}, 5, L::Auto, false},           // other heads
      {5000, 96, 96, true, {0}, {1}, 5, L::Auto, false},            // fp64
      {3000, 96, 96, true, {0}, {1}, 5, L::Auto, false},            // smaller n (the slot is not reallocated)
      {3000, 96, 96, true, {0, 2}, {1}, 5, L::Auto, false},         // other A offsets
      {3000, 96, 96, true, {0, 2}, {1}, 5, L::Auto, true},          //
      {3000, 96, 96, true, {0, 2}, {1}, 5, L::HeadMajor, false},    // the other layout
      {3000, 64, 1, false, {0}, {1, 2, 4, 8}, 6, L::Auto, false},   // a blockinv / pipeline pattern
      {3000, 64, 1, false, {0}, {1, 2, 4, 8}, 6, L::Auto, true},    //
      {3000, 64, 1, false, {0}, {1, 2, 4, 16}, 6, L::Auto, false},  // other B offsets
      {5000, 96, 96, false, {0}, {1}, 4, L::Auto, false},           // back to the first weights: rewritten
      {5000, 96, 96, false, {0}, {1}, 4, L::Auto, true},            //
  };
  int k = 0;
  for (const Step& s : steps) {
    Problem pr(s.n, s.d, s.heads, s.fp64, s.aoff, s.seed);
    pr.boff = s.boff;
    pr.p.b.offsets = pr.boff.data();
    pr.p.b.k = static_cast<std::uint32_t>(pr.boff.size());
    std::vector<double> xd;
    const auto x = make_x(s.n, s.d, s.fp64, xd);
    Opt o;
    o.fused_seeded = Opt::Fused::Off;
    o.layout = s.layout;
    std::vector<unsigned char> y, y_host(x.size());
    const auto r = device_run(pr.p, x, y, o);
    ASSERT_TRUE(r.ran) << "step " << k << ": " << r.note;
    EXPECT_EQ(r.coefs_reused, s.reused) << "step " << k << " (" << r.kernel << ")";
    const auto rh = gpu::solve(pr.p, x.data(), y_host.data(), o);
    ASSERT_TRUE(rh.ran) << rh.note;
    EXPECT_FALSE(rh.coefs_reused);
    EXPECT_TRUE(y == y_host) << "step " << k << " (" << r.kernel << ")";
    ++k;
  }
  EXPECT_EQ(gpu::release_workspace(), "");
  Problem pr(5000, 96, 96, false, {0}, 4);  // after a release nothing is cached
  std::vector<double> xd;
  const auto x = make_x(5000, 96, false, xd);
  std::vector<unsigned char> y;
  Opt o;
  o.fused_seeded = Opt::Fused::Off;
  const auto r = device_run(pr.p, x, y, o);
  ASSERT_TRUE(r.ran) << r.note;
  EXPECT_FALSE(r.coefs_reused);
}

// The one options-from-environment function maps MIXGRAPH_GPU_FUSED.
TEST(GpuScanFused, FusedOptionFromEnvironment) {
  ::unsetenv("MIXGRAPH_GPU_FUSED");
  EXPECT_EQ(gpu_options_from_env().fused_seeded, Opt::Fused::Auto);
  ::setenv("MIXGRAPH_GPU_FUSED", "0", 1);
  EXPECT_EQ(gpu_options_from_env().fused_seeded, Opt::Fused::Off);
  ::setenv("MIXGRAPH_GPU_FUSED", "1", 1);
  EXPECT_EQ(gpu_options_from_env().fused_seeded, Opt::Fused::On);
  ::unsetenv("MIXGRAPH_GPU_FUSED");
}

}  // namespace

// solve_device with wait = false returns once the work is queued: calls on two non-blocking streams, one
// after the other and reusing the same cached buffers, each ordered after the previous call's end by the
// workspace's event, give the bytes of waiting calls (blockinv, gpu-scan1 and pipeline problems, sizes
// changing in between).
TEST(GpuNoWait, CallsOnTwoStreamsGiveTheBytesOfWaitingCalls) {
  REQUIRE_GPU();
#ifdef MIXGRAPH_HAVE_CUDA
  struct Shape {
    std::uint32_t n, d, heads;
    std::vector<std::uint32_t> boff;
  };
  const std::vector<Shape> shapes = {{20000, 64, 1, {1, 2, 4, 8, 16, 32}},  // blockinv
                                     {30000, 96, 96, {1}},                  // gpu-scan1, per-channel heads
                                     {7000, 40, 2, {1, 3, 64, 200}},        // pipeline (d: no whole tiles)
                                     {20000, 64, 1, {1, 2, 4, 8, 16, 32}}};
  cudaStream_t st[2];
  for (auto& s : st) ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  int k = 0;
  for (const Shape& sh : shapes) {
    Problem pr(sh.n, sh.d, sh.heads, false, {0}, 7 + k);
    pr.boff = sh.boff;
    pr.p.b.offsets = pr.boff.data();
    pr.p.b.k = static_cast<std::uint32_t>(pr.boff.size());
    std::vector<double> xd;
    const auto x = make_x(sh.n, sh.d, false, xd);
    std::vector<unsigned char> want;
    Opt waiting;
    const auto rw = device_run(pr.p, x, want, waiting);
    ASSERT_TRUE(rw.ran) << rw.note;
    void *dx = nullptr, *dy[2] = {nullptr, nullptr};
    ASSERT_EQ(gpu::device_alloc(&dx, x.size()), "");
    for (auto& p : dy) ASSERT_EQ(gpu::device_alloc(&p, x.size()), "");
    ASSERT_EQ(gpu::copy_to_device(dx, x.data(), x.size()), "");
    Opt o;
    o.wait = false;
    for (int rep = 0; rep < 4; ++rep) {  // stream 0, 1, 0, 1: each call reuses the buffers of the one before
      const auto r = gpu::solve_device(pr.p, dx, dy[rep % 2], o, st[rep % 2]);
      ASSERT_TRUE(r.ran) << r.note;
      EXPECT_EQ(r.kernel, rw.kernel);
      EXPECT_EQ(r.kernel_ms, 0.0);
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (int s = 0; s < 2; ++s) {
      std::vector<unsigned char> got(x.size());
      ASSERT_EQ(gpu::copy_to_host(got.data(), dy[s], got.size()), "");
      EXPECT_TRUE(got == want) << "shape " << k << " stream " << s << " (" << rw.kernel << ")";
    }
    gpu::device_free(dx);
    for (auto& p : dy) gpu::device_free(p);
    ++k;
  }
  for (auto& s : st) cudaStreamDestroy(s);
#else
  GTEST_SKIP() << "CUDA is not built in";
#endif
}
