// The gated scan's segment choice, argument checks and CPU reference (gpu_gated_scan.hpp): the three passes
// of the kernels in gated_scan.cu on host arrays, with the same segments and the same workspace layout
// (P of segment (b, s) and column c at work[(b nseg + s) d + c], Q a half further; the carry pass
// overwrites P with the value entering the segment).
#include <algorithm>
#include <vector>

#include "gated_scan_args.hpp"
#include "mixgraph/gpu_gated_scan.hpp"

namespace mixgraph::gpu {

std::uint32_t gated_scan_segment(const GatedScan& s) {
  if (s.seg) return s.seg;
  const std::uint64_t cols = std::uint64_t(s.batch) * ((std::uint64_t(s.d) + 3) / 4);
  std::uint32_t seg = 256;
  while (seg > 32 && cols * ((std::uint64_t(s.n) + seg - 1) / seg) < (std::uint64_t(1) << 18)) seg /= 2;
  return seg;
}

std::size_t gated_scan_workspace(const GatedScan& s) {
  const std::uint32_t seg = gated_scan_segment(s);
  const std::uint64_t nseg = (std::uint64_t(s.n) + seg - 1) / seg;
  return std::size_t(2 * std::uint64_t(s.batch) * nseg * s.d);
}

std::string gated_scan_check(const GatedScan& s, const void* in, const void* g, const void* work,
                             bool any_out) {
  if (s.batch == 0 || s.n == 0 || s.d == 0) return "gated scan: batch, n and d must be at least 1";
  if (s.seg && (s.seg & (s.seg - 1))) return "gated scan: seg must be a power of two (or 0)";
  if (!in || !g || !work) return "gated scan: the input, the gates and the workspace must be given";
  if (!any_out) return "gated scan: no output asked for";
  return "";
}

namespace {

template <class T>
struct Ref {
  const GatedScan& s;
  std::uint32_t seg, nseg;
  std::uint64_t d;
  T *P, *Q;
  Ref(const GatedScan& ss, void* work)
      : s(ss), seg(gated_scan_segment(ss)), nseg((ss.n + seg - 1) / seg), d(ss.d) {
    P = static_cast<T*>(work);
    Q = P + gated_scan_workspace(ss) / 2;
  }
  std::uint64_t at(std::uint32_t b, std::uint32_t t, std::uint64_t c) const {
    return (std::uint64_t(b) * s.n + t) * d + c;
  }
  std::uint64_t map(std::uint32_t b, std::uint32_t sg, std::uint64_t c) const {
    return (std::uint64_t(b) * nseg + sg) * d + c;
  }
};

template <class T>
std::string forward(const GatedScan& s, const GatedScanForward& a) {
  const std::string err = gated_scan_check(s, a.x, a.g, a.work, a.y != nullptr);
  if (!err.empty()) return err;
  Ref<T> r(s, a.work);
  const T *x = static_cast<const T*>(a.x), *g = static_cast<const T*>(a.g), *u = static_cast<const T*>(a.u);
  T* y = static_cast<T*>(a.y);
  auto gate = [&](std::uint32_t b, std::uint32_t t, std::uint64_t c) {
    return t == 0 ? T(0) : g[r.at(b, t, c)];
  };
  auto in = [&](std::uint64_t k) { return u ? u[k] * x[k] : x[k]; };
  for (std::uint32_t b = 0; b < s.batch; ++b)  // pass 1: each segment's map y_out = P y_in + Q
    for (std::uint32_t sg = 0; sg < r.nseg; ++sg)
      for (std::uint64_t c = 0; c < r.d; ++c) {
        T p = T(1), q = T(0);
        for (std::uint32_t t = sg * r.seg; t < std::min(s.n, (sg + 1) * r.seg); ++t) {
          const T bt = gate(b, t, c);
          q = bt * q + in(r.at(b, t, c));
          p *= bt;
        }
        r.P[r.map(b, sg, c)] = p;
        r.Q[r.map(b, sg, c)] = q;
      }
  for (std::uint32_t b = 0; b < s.batch; ++b)  // pass 2: the value entering each segment
    for (std::uint64_t c = 0; c < r.d; ++c) {
      T v = T(0);
      for (std::uint32_t sg = 0; sg < r.nseg; ++sg) {
        const std::uint64_t k = r.map(b, sg, c);
        const T p = r.P[k];
        r.P[k] = v;
        v = p * v + r.Q[k];
      }
    }
  for (std::uint32_t b = 0; b < s.batch; ++b)  // pass 3: replay
    for (std::uint32_t sg = 0; sg < r.nseg; ++sg)
      for (std::uint64_t c = 0; c < r.d; ++c) {
        T v = r.P[r.map(b, sg, c)];
        for (std::uint32_t t = sg * r.seg; t < std::min(s.n, (sg + 1) * r.seg); ++t) {
          const std::uint64_t k = r.at(b, t, c);
          v = gate(b, t, c) * v + in(k);
          y[k] = v;
        }
      }
  return "";
}

template <class T>
std::string backward(const GatedScan& s, const GatedScanBackward& a) {
  std::string err = gated_scan_check(s, a.dy, a.g, a.work, a.dx || a.dg || a.du);
  if (err.empty() && a.dg && !a.y) err = "gated scan: dg needs y";
  if (err.empty() && a.du && !a.x) err = "gated scan: du needs x";
  if (!err.empty()) return err;
  Ref<T> r(s, a.work);
  const T *dy = static_cast<const T*>(a.dy), *g = static_cast<const T*>(a.g), *y = static_cast<const T*>(a.y),
          *x = static_cast<const T*>(a.x), *u = static_cast<const T*>(a.u);
  T *dx = static_cast<T*>(a.dx), *dg = static_cast<T*>(a.dg), *du = static_cast<T*>(a.du);
  // the gate that carries z[t + 1] into z[t]
  auto gate = [&](std::uint32_t b, std::uint32_t t, std::uint64_t c) {
    return t + 1 < s.n ? g[r.at(b, t + 1, c)] : T(0);
  };
  for (std::uint32_t b = 0; b < s.batch; ++b)  // pass 1: z at the segment's first row = P z_in + Q
    for (std::uint32_t sg = 0; sg < r.nseg; ++sg)
      for (std::uint64_t c = 0; c < r.d; ++c) {
        T p = T(1), q = T(0);
        for (std::uint32_t t = std::min(s.n, (sg + 1) * r.seg); t-- > sg * r.seg;) {
          const T ct = gate(b, t, c);
          q = ct * q + dy[r.at(b, t, c)];
          p *= ct;
        }
        r.P[r.map(b, sg, c)] = p;
        r.Q[r.map(b, sg, c)] = q;
      }
  for (std::uint32_t b = 0; b < s.batch; ++b)  // pass 2, last segment first: z entering from the right
    for (std::uint64_t c = 0; c < r.d; ++c) {
      T v = T(0);
      for (std::uint32_t sg = r.nseg; sg-- > 0;) {
        const std::uint64_t k = r.map(b, sg, c);
        const T p = r.P[k];
        r.P[k] = v;
        v = p * v + r.Q[k];
      }
    }
  for (std::uint32_t b = 0; b < s.batch; ++b)  // pass 3: replay, with the gradients
    for (std::uint32_t sg = 0; sg < r.nseg; ++sg)
      for (std::uint64_t c = 0; c < r.d; ++c) {
        T z = r.P[r.map(b, sg, c)];
        for (std::uint32_t t = std::min(s.n, (sg + 1) * r.seg); t-- > sg * r.seg;) {
          const std::uint64_t k = r.at(b, t, c);
          z = gate(b, t, c) * z + dy[k];
          if (dx) dx[k] = u ? z * u[k] : z;
          if (dg) dg[k] = t > 0 ? z * y[k - r.d] : T(0);
          if (du) du[k] = z * x[k];
        }
      }
  return "";
}

}  // namespace

std::string gated_scan_reference_forward(const GatedScan& s, const GatedScanForward& a) {
  return s.fp64 ? forward<double>(s, a) : forward<float>(s, a);
}
std::string gated_scan_reference_backward(const GatedScan& s, const GatedScanBackward& a) {
  return s.fp64 ? backward<double>(s, a) : backward<float>(s, a);
}

}  // namespace mixgraph::gpu
