#pragma once
// Kernels of the benchmark harness only (gpu_bench_harness.cuh): the naive one-thread-per-column
// solve that checks the result, the seeded random fill, and the SM clock probe.

#include "common.cuh"

namespace mixgraph::gpu {
namespace {

// The naive peer and checker: one thread per column, forward substitution over rows, accumulated in double.
template <class T>
__global__ void naive_solve(DevProblem<T> P, std::uint32_t cols, double* out) {
  const std::uint32_t col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols || col >= P.d) return;
  const std::uint32_t h = col / P.dh;
  for (std::uint32_t i = 0; i < P.n; ++i) {
    double v = 0;
    const DevMatrix<T>& A = P.a;
    if (A.implicit) {
      for (std::uint32_t k = 0; k < A.k && A.off[k] <= i; ++k)
        v += double(coef_imp(A, h, i, k)) * double(P.x[std::uint64_t(i - A.off[k]) * P.d + col]);
    } else {
      for (std::uint64_t e = A.ptr[i]; e < A.ptr[i + 1]; ++e)
        v += double(coef_csr(A, h, e)) * double(P.x[std::uint64_t(A.idx[e]) * P.d + col]);
    }
    const DevMatrix<T>& B = P.b;
    if (B.implicit) {
      for (std::uint32_t k = 0; k < B.k && B.off[k] <= i; ++k)
        v += double(coef_imp(B, h, i, k)) * out[std::uint64_t(i - B.off[k]) * cols + col];
    } else {
      for (std::uint64_t e = B.ptr[i]; e < B.ptr[i + 1]; ++e)
        v += double(coef_csr(B, h, e)) * out[std::uint64_t(B.idx[e]) * cols + col];
    }
    out[std::uint64_t(i) * cols + col] = v;
  }
}

__device__ __forceinline__ std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
__device__ __forceinline__ double uni(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  return double(splitmix(splitmix(seed ^ (stream * 0x632be59bd9b4e019ULL)) ^ i) >> 11) * 0x1.0p-53;
}
// kind 0: X ~ U[-1, 1]; kind 1: +-U[0.5, 1] * scale; kind 2: U[0.5, 1] * scale
template <class T>
__global__ void fill_random(T* p, std::uint64_t count, std::uint64_t seed, std::uint64_t stream, int kind,
                            double scale) {
  for (std::uint64_t q = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; q < count;
       q += std::uint64_t(gridDim.x) * blockDim.x) {
    const double u = uni(seed, stream, q);
    double v;
    if (kind == 0)
      v = 2 * u - 1;
    else if (kind == 1)
      v = (uni(seed, stream + 7, q) < 0.5 ? -1 : 1) * (0.5 + 0.5 * u) * scale;
    else
      v = (0.5 + 0.5 * u) * scale;
    p[q] = T(v);
  }
}

// Diagnostics: the SM clock while a solve runs (one thread on a free multiprocessor spins for ~2 ms).
__global__ void clock_probe(double* mhz) {
  std::uint64_t t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (t1 - t0 < 2000000);
  const long long c1 = clock64();
  *mhz = double(c1 - c0) / double(t1 - t0) * 1000.0;
}

}  // namespace
}  // namespace mixgraph::gpu
