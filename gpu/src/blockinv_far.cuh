#pragma once
// gpu-blockinv: A X (bi_ax, when A is more than its diagonal) and the split-mode far workers (bi_far).

#include "blockinv_seg.cuh"

namespace mixgraph::gpu {
namespace {
namespace bi {

// ---- split mode: far workers (CTAs ntiles.. of bi_solve's cooperative grid) ----
// Items are (chunk c, part p): C / fparts rows of c, so that the ~(G / C - 4) chunks that can be in work at
// once keep every worker busy. Worker w takes items w, w + nworkers, ... in order. For an item it waits until
// every tile has published the rows that its far reads need (offsets >= G, so rows <= its last row - G),
// then writes its Y rows = A X + those reads over all d columns (32-byte segments, coalesced over a row),
// and counts itself in fready[c]. Tiles wait for fready[c] == fparts before staging chunk c's rows.
// Deadlock-free when every CTA is resident (cooperative launch) and G >= 8 C: a tile waits for a chunk at
// most 4 ahead of its own, whose worker needs only rows already published.
constexpr int kFarU = 8;  // far worker: reads in flight per thread
template <class T>
__device__ __forceinline__ Seg<T> seg_ldg(const T* p) {  // read-only data (X)
  Seg<T> v;
  v.a = __ldg(reinterpret_cast<const typename Seg<T>::V*>(p));
  v.b = __ldg(reinterpret_cast<const typename Seg<T>::V*>(p + 16 / sizeof(T)));
  return v;
}

// Row i of A X over the W columns from col (one head: blockinv's tiles never straddle heads)
template <class T>
__device__ __forceinline__ Seg<T> ax_seg(const DevProblem<T>& P, std::uint32_t i, std::uint32_t col) {
  const DevMatrix<T>& A = P.a;
  const std::uint32_t h = col / P.dh;
  Seg<T> acc = seg_zero<T>();
  if (A.implicit) {
    for (std::uint32_t k = 0; k < A.k; ++k) {
      const std::uint32_t o = __ldg(A.off + k);
      if (o > i) break;
      seg_fma(acc, coef_imp(A, h, i, k), seg_ldg(P.x + std::uint64_t(i - o) * P.d + col));
    }
  } else {
    for (std::uint64_t e = __ldg(A.ptr + i); e < __ldg(A.ptr + i + 1); ++e)
      seg_fma(acc, coef_csr(A, h, e), seg_ldg(P.x + std::uint64_t(__ldg(A.idx + e)) * P.d + col));
  }
  return acc;
}

// ---- bi_ax: Y = A X, when A is more than a diagonal (bi_solve then reads row i of Y before it writes it)
// ----
template <class T>
__global__ void bi_ax(DevProblem<T> P) {
  const std::uint32_t segs = P.d / kW<T>;  // 32-byte segments per row
  for (std::uint64_t q = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; q < std::uint64_t(P.n) * segs;
       q += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t i = std::uint32_t(q / segs), col = std::uint32_t(q % segs) * kW<T>;
    seg_st(P.y + std::uint64_t(i) * P.d + col, ax_seg(P, i, col));
  }
}

template <class T, int C>
__device__ void bi_far(const DevProblem<T>& P, const Params& Q, std::uint32_t w) {
  constexpr int W = kW<T>;
  const std::uint32_t tid = threadIdx.x, NT = blockDim.x, n = P.n, d = P.d, G = Q.split;
  const std::uint32_t segs = d / W;  // 32-byte segments per row
  const DevMatrix<T>& B = P.b;
  __shared__ int ok;
  const std::uint32_t nparts = Q.fparts, prow = C / nparts;  // items: (chunk, part of prow rows)
  for (std::uint32_t t = w; t < P.nchunks * nparts; t += Q.nworkers) {
    const std::uint32_t c = t / nparts, s = c * C + (t % nparts) * prow;
    const std::uint32_t imax = min(s + prow, n) - 1;
    if (s < n && imax >= G) {
      const std::uint32_t need = (imax - G) / C + 1;  // chunks that must be final
      if (tid < 32) {
        bool good = true;
        for (std::uint32_t t = tid; t < Q.ntiles; t += 32)
          good = good && spin_until(Q.stall, [&] { return ld_acquire_gpu(Q.progress + t) >= need; });
        good = __all_sync(~0u, good);
        if (tid == 0) ok = good;
      }
      __syncthreads();
      if (!ok) return;  // a stall (reported by the host)
    }
    for (std::uint32_t it = tid; it < prow * segs; it += NT) {
      const std::uint32_t r = it / segs, col = (it % segs) * W, i = s + r;
      if (i >= n) continue;
      Seg<T> acc = ax_seg(P, i, col);  // A X
      // B's reads at offsets >= G (rows final: published by every tile), U reads (2U loads) in flight
      const std::uint32_t hb = Q.heads > 1 ? col / P.dh : 0;
      const T* yc = P.y + col;
      std::uint64_t q0, q1;  // implicit: offset indices; CSR: entries
      if (B.implicit) {
        q0 = Q.kfar;
        q1 = count_le(B.off, Q.kfar, B.k, i);  // offsets <= i
      } else {                                 // columns ascending: the far reads (j <= i - G) come first
        q0 = __ldg(B.ptr + i);
        q1 = i >= G ? first_gt(B.idx, q0, __ldg(B.ptr + i + 1), i - G) : q0;
      }
      auto src = [&](std::uint64_t q) {  // row read by entry q
        return B.implicit ? i - __ldg(B.off + q) : __ldg(B.idx + q);
      };
      auto cf = [&](std::uint64_t q) {
        return B.implicit ? coef_imp(B, hb, i, std::uint32_t(q)) : coef_csr(B, hb, q);
      };
      std::uint64_t q = q0;
      for (; q + kFarU <= q1; q += kFarU) {
        std::uint32_t j[kFarU];
        T cv[kFarU];
        Seg<T> v[kFarU];
#pragma unroll
        for (int u = 0; u < kFarU; ++u) {
          j[u] = src(q + u);
          cv[u] = cf(q + u);
        }
#pragma unroll
        for (int u = 0; u < kFarU; ++u) v[u] = seg_ldcg(yc + std::uint64_t(j[u]) * d);
#pragma unroll
        for (int u = 0; u < kFarU; ++u) seg_fma(acc, cv[u], v[u]);
      }
      for (; q < q1; ++q) seg_fma(acc, cf(q), seg_ldcg(yc + std::uint64_t(src(q)) * d));
      seg_st(P.y + std::uint64_t(i) * d + col, acc);
    }
    __threadfence();
    __syncthreads();
    if (tid == 0) atomicAdd(Q.fready + c, 1u);  // after the fence: a release of this part's rows
  }
}

}  // namespace bi
}  // namespace
}  // namespace mixgraph::gpu
