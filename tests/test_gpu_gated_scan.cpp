// The gated scan (gpu_gated_scan.hpp): its CPU reference (the kernels' three passes on the host) against
// the recurrence written out row by row, forward and adjoint, for several segment lengths, batches and
// both precisions; and, on a GPU, the device kernels against the reference (skipped without one).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernel_check.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_gated_scan.hpp"
#include "mixgraph/gpu_solve.hpp"

using namespace mixgraph;

namespace {

struct Data {
  std::uint32_t batch, n, d;
  std::vector<double> x, g, u, dy;
};

Data make(std::uint32_t batch, std::uint32_t n, std::uint32_t d, unsigned seed) {
  Data D{batch, n, d, {}, {}, {}, {}};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> s(-1, 1), gate(0.2, 0.99);
  const std::size_t N = std::size_t(batch) * n * d;
  for (std::size_t k = 0; k < N; ++k) {
    D.x.push_back(s(rng));
    D.g.push_back(gate(rng) * (s(rng) < 0 ? -1 : 1));
    D.u.push_back(s(rng));
    D.dy.push_back(s(rng));
  }
  return D;
}

// The recurrences row by row (independent of the segment scan).
struct Direct {
  std::vector<double> y, dx, dg, du;
};
Direct direct(const Data& D, bool with_u) {
  const std::size_t N = D.x.size(), d = D.d;
  Direct r{std::vector<double>(N), std::vector<double>(N), std::vector<double>(N), std::vector<double>(N)};
  for (std::size_t b = 0; b < D.batch; ++b) {
    const std::size_t base = b * D.n * d;
    for (std::size_t t = 0; t < D.n; ++t)
      for (std::size_t c = 0; c < d; ++c) {
        const std::size_t k = base + t * d + c;
        const double in = with_u ? D.u[k] * D.x[k] : D.x[k];
        r.y[k] = t == 0 ? in : D.g[k] * r.y[k - d] + in;
      }
    std::vector<double> z(d, 0.0);
    for (std::size_t t = D.n; t-- > 0;)
      for (std::size_t c = 0; c < d; ++c) {
        const std::size_t k = base + t * d + c;
        z[c] = D.dy[k] + (t + 1 < D.n ? D.g[k + d] * z[c] : 0.0);
        r.dx[k] = with_u ? z[c] * D.u[k] : z[c];
        r.dg[k] = t > 0 ? z[c] * r.y[k - d] : 0.0;
        r.du[k] = z[c] * D.x[k];
      }
  }
  return r;
}

template <class T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <class T>
std::vector<double> back(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// The reference's (or the device's) five outputs for one problem.
struct Outs {
  std::vector<double> y, dx, dg, du;
};

template <class T>
Outs reference(const Data& D, std::uint32_t seg, bool with_u) {
  gpu::GatedScan s{D.batch, D.n, D.d, sizeof(T) == 8, seg};
  std::vector<T> x = as<T>(D.x), g = as<T>(D.g), u = as<T>(D.u), dy = as<T>(D.dy), y(x.size(), T(NAN));
  std::vector<T> work(gpu::gated_scan_workspace(s), T(NAN)), dx(x.size(), T(NAN)), dg = dx, du = dx;
  EXPECT_EQ(gpu::gated_scan_reference_forward(
                s, {x.data(), g.data(), with_u ? u.data() : nullptr, y.data(), work.data()}),
            "");
  gpu::GatedScanBackward a;
  a.dy = dy.data(), a.g = g.data(), a.y = y.data(), a.x = x.data(), a.u = with_u ? u.data() : nullptr;
  a.dx = dx.data(), a.dg = dg.data(), a.du = du.data(), a.work = work.data();
  EXPECT_EQ(gpu::gated_scan_reference_backward(s, a), "");
  return {back(y), back(dx), back(dg), back(du)};
}

void expect_close(const Outs& o, const Direct& r, double tol, const std::string& what) {
  EXPECT_LT(test::relerr(r.y, o.y), tol) << what << " y";
  EXPECT_LT(test::relerr(r.dx, o.dx), tol) << what << " dx";
  EXPECT_LT(test::relerr(r.dg, o.dg), tol) << what << " dg";
  EXPECT_LT(test::relerr(r.du, o.du), tol) << what << " du";
}

}  // namespace

TEST(GatedScanReference, SegmentsMatchTheRecurrenceRowByRow) {
  for (std::uint32_t seg : {1u, 4u, 32u, 128u})  // 1: every row its own segment; 128: one segment
    for (bool with_u : {false, true}) {
      const Data D = make(3, 77, 5, 11 + seg);
      const Direct r = direct(D, with_u);
      const std::string what = "seg " + std::to_string(seg) + (with_u ? " u" : "");
      expect_close(reference<double>(D, seg, with_u), r, 1e-13, what + " fp64");
      expect_close(reference<float>(D, seg, with_u), r, 1e-5, what + " fp32");
    }
}

TEST(GatedScanReference, ChoosesSegmentsAndRefusesBadArguments) {
  gpu::GatedScan s{1, 1u << 20, 256, false, 0};
  EXPECT_EQ(gpu::gated_scan_segment(s), 256u);  // 64 column groups x 4096 segments: 2^18 threads
  s = {1, 16384, 4096, false, 0};
  EXPECT_EQ(gpu::gated_scan_segment(s), 64u);
  EXPECT_EQ(gpu::gated_scan_workspace(s), std::size_t(2) * 256 * 4096);
  s = {1, 0, 4, false, 0};
  std::vector<float> v(8);
  EXPECT_NE(gpu::gated_scan_reference_forward(s, {v.data(), v.data(), nullptr, v.data(), v.data()}), "");
  s = {1, 2, 4, false, 3};  // not a power of two
  EXPECT_NE(gpu::gated_scan_reference_forward(s, {v.data(), v.data(), nullptr, v.data(), v.data()}), "");
  s = {1, 2, 4, false, 0};
  gpu::GatedScanBackward a;
  a.dy = a.g = a.work = v.data();
  a.dg = v.data();  // dg without y
  EXPECT_NE(gpu::gated_scan_reference_backward(s, a), "");
}

namespace {

template <class T>
Outs on_device(const Data& D, bool with_u, bool outputs_all) {
  gpu::GatedScan s{D.batch, D.n, D.d, sizeof(T) == 8, 0};
  const std::size_t N = D.x.size(), bytes = N * sizeof(T);
  std::vector<void*> bufs;
  auto up = [&](const std::vector<double>& h) {
    void* p = nullptr;
    EXPECT_EQ(gpu::device_alloc(&p, bytes), "");
    const std::vector<T> t = as<T>(h);
    EXPECT_EQ(gpu::copy_to_device(p, t.data(), bytes), "");
    bufs.push_back(p);
    return p;
  };
  const std::vector<double> poison(N, NAN);
  void *x = up(D.x), *g = up(D.g), *u = up(D.u), *dy = up(D.dy), *y = up(poison), *dx = up(poison),
       *dg = up(poison), *du = up(poison);
  void* work = nullptr;
  EXPECT_EQ(gpu::device_alloc(&work, gpu::gated_scan_workspace(s) * sizeof(T)), "");
  bufs.push_back(work);
  EXPECT_EQ(gpu::gated_scan_forward(s, {x, g, with_u ? u : nullptr, y, work}), "");
  gpu::GatedScanBackward a;
  a.dy = dy, a.g = g, a.y = y, a.x = x, a.u = with_u ? u : nullptr;
  a.dx = dx, a.dg = dg, a.du = outputs_all ? du : nullptr, a.work = work;
  EXPECT_EQ(gpu::gated_scan_backward(s, a), "");
  auto down = [&](void* p) {
    std::vector<T> h(N);
    EXPECT_EQ(gpu::copy_to_host(h.data(), p, bytes), "");
    return back(h);
  };
  Outs o{down(y), down(dx), down(dg), outputs_all ? down(du) : std::vector<double>()};
  for (void* p : bufs) gpu::device_free(p);
  return o;
}

}  // namespace

TEST(GpuGatedScan, KernelsMatchTheReference) {
  const gpu::DeviceInfo info = gpu::device_info();
  if (!info.usable()) GTEST_SKIP() << "no usable CUDA device: " << info.note;
  // d = 8: 16-byte vectors; d = 5: one column per thread; n = 3000 spans many segments
  for (std::uint32_t d : {8u, 5u})
    for (bool with_u : {false, true}) {
      const Data D = make(2, 3000, d, 5 + d);
      const Direct r = direct(D, with_u);
      const std::string what = "d " + std::to_string(d) + (with_u ? " u" : "");
      expect_close(on_device<double>(D, with_u, true), r, 1e-12, what + " fp64");
      Outs f = on_device<float>(D, with_u, false);
      EXPECT_LT(test::relerr(r.y, f.y), 1e-4) << what;
      EXPECT_LT(test::relerr(r.dx, f.dx), 1e-4) << what;
      EXPECT_LT(test::relerr(r.dg, f.dg), 1e-4) << what;
    }
}
