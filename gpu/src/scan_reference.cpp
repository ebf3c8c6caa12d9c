// The CPU reference of gpu-scan1's three passes (scan_reference.hpp): the kernels' arithmetic in the
// kernels' order, one column at a time.
#include "mixgraph/scan_reference.hpp"

#include <cmath>
#include <stdexcept>

namespace mixgraph::gpu {

bool scan_reference_applies(const SolveProblem& p, std::string* why) {
  const auto no = [&](const char* w) {
    if (why) *why = w;
    return false;
  };
  if (!p.a.implicit || !p.b.implicit) return no("gpu-scan1 takes implicit A and B (offsets)");
  if (p.a.gen != CoefGen::Values || p.b.gen != CoefGen::Values)
    return no("the reference reads Values coefficients (host arrays)");
  if (p.a.vals_on_device || p.b.vals_on_device) return no("the coefficients are on the device");
  if (p.b.k != 1 || p.b.offsets[0] != 1)  // the planner's first_order (plan_types.cuh)
    return no("B does not read exactly i - 1 (not first-order)");
  if (p.heads == 0 || p.d % p.heads != 0) return no("d is not a multiple of the heads");
  return true;
}

namespace {

template <class T>
struct Coefs {
  const SolveProblem& p;
  const T* a = static_cast<const T*>(p.a.vals);
  const T* b = static_cast<const T*>(p.b.vals);
  // (A X)_i of column col (head h): scan.cuh's a_term, offsets ascending, those <= i
  T a_term(const T* x, std::uint32_t i, std::uint32_t col, std::uint32_t h) const {
    T v = T(0);
    for (std::uint32_t k = 0; k < p.a.k; ++k) {
      const std::uint32_t o = p.a.offsets[k];
      if (o > i) break;
      v = std::fma(a[h * p.a.hs + std::uint64_t(i) * p.a.is + k * p.a.ks],
                   x[std::uint64_t(i - o) * p.d + col], v);
    }
    return v;
  }
  // scan.cuh's b1: the coefficient of the read i - 1 (0 at i = 0)
  T b1(std::uint32_t i, std::uint32_t h) const {
    return i >= 1 ? b[h * p.b.hs + std::uint64_t(i) * p.b.is] : T(0);
  }
};

}  // namespace

template <class T>
ScanStages<T> scan_stages_reference(const SolveProblem& p, const T* x, std::uint32_t seg) {
  std::string why;
  if (!scan_reference_applies(p, &why)) throw std::invalid_argument("scan_stages_reference: " + why);
  if (seg == 0) throw std::invalid_argument("scan_stages_reference: seg must be >= 1");
  if (p.fp64 != (sizeof(T) == 8))
    throw std::invalid_argument("scan_stages_reference: T is not p's precision");
  const Coefs<T> cf{p};
  ScanStages<T> s;
  s.seg = seg;
  s.nseg = (p.n + seg - 1) / seg;
  const std::uint64_t cells = std::uint64_t(s.nseg) * p.d;
  s.pm.assign(cells, T(0));
  s.qm.assign(cells, T(0));
  s.carry.assign(cells, T(0));
  s.y.assign(std::uint64_t(p.n) * p.d, T(0));
  const std::uint32_t dh = p.d / p.heads;
  for (std::uint32_t col = 0; col < p.d; ++col) {
    const std::uint32_t h = col / dh;
    for (std::uint32_t g = 0; g < s.nseg; ++g) {  // pass 1: each segment's affine map
      const std::uint32_t i0 = g * seg, i1 = std::min(p.n, i0 + seg);
      T pp = T(1), q = T(0);
      for (std::uint32_t i = i0; i < i1; ++i) {
        const T b = cf.b1(i, h);
        q = std::fma(b, q, cf.a_term(x, i, col, h));
        pp *= b;
      }
      s.pm[std::uint64_t(g) * p.d + col] = pp;
      s.qm[std::uint64_t(g) * p.d + col] = q;
    }
    T y = T(0);  // pass 2: the y entering each segment
    for (std::uint32_t g = 0; g < s.nseg; ++g) {
      const std::uint64_t q = std::uint64_t(g) * p.d + col;
      s.carry[q] = y;
      y = std::fma(s.pm[q], y, s.qm[q]);
    }
    for (std::uint32_t g = 0; g < s.nseg; ++g) {  // pass 3: replay each segment from its carry
      const std::uint32_t i0 = g * seg, i1 = std::min(p.n, i0 + seg);
      T v = s.carry[std::uint64_t(g) * p.d + col];
      for (std::uint32_t i = i0; i < i1; ++i) {
        v = std::fma(cf.b1(i, h), v, cf.a_term(x, i, col, h));
        s.y[std::uint64_t(i) * p.d + col] = v;
      }
    }
  }
  return s;
}

template ScanStages<float> scan_stages_reference<float>(const SolveProblem&, const float*, std::uint32_t);
template ScanStages<double> scan_stages_reference<double>(const SolveProblem&, const double*, std::uint32_t);

}  // namespace mixgraph::gpu
