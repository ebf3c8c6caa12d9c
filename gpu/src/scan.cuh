#pragma once
// gpu-scan1: first-order recurrences (B reads only i - 1) as a three-pass segment scan. FUSED instances
// make seeded coefficients where they are read (weight_gen.hpp, the values device_coefs would write), so
// no coefficient array exists; the arithmetic is the same, so Y has the same bits.

#include "common.cuh"
#include "mixgraph/weight_gen.hpp"

namespace mixgraph::gpu {
namespace {

// Seeded coefficients of one matrix made in the kernel (SolveMatrix::gen == Seeded): weight_gen.hpp's
// weight(stream_key(seed, h, matrix), total, reads of row i, i, i - offset).
struct ScanSeed {
  int on = 0;  // 0: the matrix's val array is read
  std::uint64_t seed = 0, matrix = 0;
  double total = 0;
};
struct ScanGen {
  ScanSeed a, b;
};

// One matrix's coefficient source for one head (a thread's column): the stream key and the scale of a
// full row (reads = k), set up once per thread.
template <class T, bool FUSED>
struct CoefSrc {
  DevMatrix<T> m;
  std::uint32_t h;
  std::uint64_t key = 0;
  double full = 0;  // total / k: the scale where all k offsets are <= i
  double total = 0;
  std::uint32_t last = 0;  // the largest offset
  int on = 0;
  __device__ __forceinline__ CoefSrc(const DevMatrix<T>& mm, std::uint32_t hh, const ScanSeed& s)
      : m(mm), h(hh) {
    if constexpr (FUSED) {
      on = s.on;
      if (on) {
        total = s.total;
        last = mm.k ? __ldg(mm.off + mm.k - 1) : 0;
        key = wgen::stream_key(s.seed, hh, s.matrix);
        full = total / double(mm.k);
      }
    }
  }
  // coefficient k (offset o <= i) of row i
  __device__ __forceinline__ T operator()(std::uint32_t i, std::uint32_t k, std::uint32_t o) const {
    if constexpr (FUSED) {
      if (on) {
        double scale = full;
        if (i < last) {  // fewer than k reads: the number of offsets <= i (ascending)
          std::uint32_t r = 0;
          while (r < m.k && __ldg(m.off + r) <= i) ++r;
          scale = total / double(r);
        }
        return T(scale * wgen::unit_draw(key, i, i - o));
      }
    }
    return coef_imp(m, h, i, k);
  }
};

// ---- first-order scan (B reads i - 1 only) ----
template <class T, bool FUSED>
__device__ __forceinline__ T a_term(const DevProblem<T>& P, const CoefSrc<T, FUSED>& ca, std::uint32_t i,
                                    std::uint32_t col) {
  const DevMatrix<T>& A = P.a;
  T v = T(0);
  for (std::uint32_t k = 0; k < A.k; ++k) {
    const std::uint32_t o = __ldg(A.off + k);
    if (o > i) break;
    v = fma(ca(i, k, o), __ldg(P.x + std::uint64_t(i - o) * P.d + col), v);
  }
  return v;
}
template <class T, bool FUSED>
__device__ __forceinline__ T b1(const CoefSrc<T, FUSED>& cb, std::uint32_t i) {
  return i >= 1 ? cb(i, 0, 1) : T(0);
}

constexpr std::uint32_t kSeg = 128;  // rows per scan segment

// pass 1: the affine map of each segment, y_out = pm * y_in + qm
template <class T, bool FUSED>
__global__ void scan_maps(DevProblem<T> P, ScanGen g, T* pm, T* qm) {
  const std::uint64_t t = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  const std::uint32_t nseg = (P.n + kSeg - 1) / kSeg;
  if (t >= std::uint64_t(nseg) * P.d) return;
  const std::uint32_t col = std::uint32_t(t % P.d), s = std::uint32_t(t / P.d), h = col / P.dh;
  const std::uint32_t i0 = s * kSeg, i1 = min(P.n, i0 + kSeg);
  const CoefSrc<T, FUSED> ca(P.a, h, g.a), cb(P.b, h, g.b);
  T p = T(1), q = T(0);
#pragma unroll 8
  for (std::uint32_t i = i0; i < i1; ++i) {
    const T b = b1(cb, i);
    q = fma(b, q, a_term(P, ca, i, col));
    p *= b;
  }
  pm[t] = p;
  qm[t] = q;
}
// pass 2: per column, the true y entering each segment
template <class T>
__global__ void scan_carry(DevProblem<T> P, const T* pm, const T* qm, T* carry) {
  const std::uint32_t col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= P.d) return;
  const std::uint32_t nseg = (P.n + kSeg - 1) / kSeg;
  T y = T(0);
#pragma unroll 16
  for (std::uint32_t s = 0; s < nseg; ++s) {
    const std::uint64_t q = std::uint64_t(s) * P.d + col;
    carry[q] = y;
    y = fma(pm[q], y, qm[q]);
  }
}
// pass 3: replay each segment from its carry
template <class T, bool FUSED>
__global__ void scan_apply(DevProblem<T> P, ScanGen g, const T* carry) {
  const std::uint64_t t = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  const std::uint32_t nseg = (P.n + kSeg - 1) / kSeg;
  if (t >= std::uint64_t(nseg) * P.d) return;
  const std::uint32_t col = std::uint32_t(t % P.d), s = std::uint32_t(t / P.d), h = col / P.dh;
  const std::uint32_t i0 = s * kSeg, i1 = min(P.n, i0 + kSeg);
  const CoefSrc<T, FUSED> ca(P.a, h, g.a), cb(P.b, h, g.b);
  T y = carry[t];
#pragma unroll 8
  for (std::uint32_t i = i0; i < i1; ++i) {
    y = fma(b1(cb, i), y, a_term(P, ca, i, col));
    P.y[std::uint64_t(i) * P.d + col] = y;
  }
}

}  // namespace
}  // namespace mixgraph::gpu
