#pragma once
// gpu-scan1: first-order recurrences (B reads only i - 1) as a three-pass segment scan.

#include "common.cuh"

namespace mixgraph::gpu {
namespace {

// ---- first-order scan (B reads i - 1 only) ----
template <class T>
__device__ __forceinline__ T a_term(const DevProblem<T>& P, std::uint32_t h, std::uint32_t i,
                                    std::uint32_t col) {
  const DevMatrix<T>& A = P.a;
  T v = T(0);
  for (std::uint32_t k = 0; k < A.k; ++k) {
    const std::uint32_t o = __ldg(A.off + k);
    if (o > i) break;
    v = fma(coef_imp(A, h, i, k), __ldg(P.x + std::uint64_t(i - o) * P.d + col), v);
  }
  return v;
}
template <class T>
__device__ __forceinline__ T b1(const DevProblem<T>& P, std::uint32_t h, std::uint32_t i) {
  return i >= 1 ? coef_imp(P.b, h, i, 0) : T(0);
}

constexpr std::uint32_t kSeg = 128;  // rows per scan segment

// pass 1: the affine map of each segment, y_out = pm * y_in + qm
template <class T>
__global__ void scan_maps(DevProblem<T> P, T* pm, T* qm) {
  const std::uint64_t t = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  const std::uint32_t nseg = (P.n + kSeg - 1) / kSeg;
  if (t >= std::uint64_t(nseg) * P.d) return;
  const std::uint32_t col = std::uint32_t(t % P.d), s = std::uint32_t(t / P.d), h = col / P.dh;
  const std::uint32_t i0 = s * kSeg, i1 = min(P.n, i0 + kSeg);
  T p = T(1), q = T(0);
#pragma unroll 8
  for (std::uint32_t i = i0; i < i1; ++i) {
    const T b = b1(P, h, i);
    q = fma(b, q, a_term(P, h, i, col));
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
template <class T>
__global__ void scan_apply(DevProblem<T> P, const T* carry) {
  const std::uint64_t t = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  const std::uint32_t nseg = (P.n + kSeg - 1) / kSeg;
  if (t >= std::uint64_t(nseg) * P.d) return;
  const std::uint32_t col = std::uint32_t(t % P.d), s = std::uint32_t(t / P.d), h = col / P.dh;
  const std::uint32_t i0 = s * kSeg, i1 = min(P.n, i0 + kSeg);
  T y = carry[t];
#pragma unroll 8
  for (std::uint32_t i = i0; i < i1; ++i) {
    y = fma(b1(P, h, i), y, a_term(P, h, i, col));
    P.y[std::uint64_t(i) * P.d + col] = y;
  }
}

}  // namespace
}  // namespace mixgraph::gpu
