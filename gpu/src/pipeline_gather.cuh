#pragma once
// gpu-pipeline, gather CTAs: V = A X + the reads at offsets >= F into the global ring of packages
// (the kernel: pipeline_solve.cuh; the overview: solve.cu).

#include "common.cuh"

namespace mixgraph::gpu {
namespace {

// ---- gather CTAs: V = A X + reads at offsets >= F (and, staged, the chunk's coefficients) ----
//
// Item layout: RG = TC / ng rows, TW / VW vectors per row, tpo threads per output splitting the terms.
// Thread tid: vector v = tid % VPR, then q = tid / VPR -> row rl = q % RG, term split tp = q / RG, so the
// VPR lanes of one (row, tp) load one contiguous 128-byte row segment.
struct RowBounds {  // CSR entries of a row: [lo, efar) offsets >= F, [efar, emid) >= NEAR, [emid, eband) >=
                    // KB
  std::uint64_t lo, efar, emid, eband, hi;
};

template <class T, bool IMP, int VW>
__device__ void gather_items(const DevProblem<T>& P, unsigned char* smem, std::uint32_t g, std::uint32_t G) {
  constexpr int F = ring_rows<T>();
  constexpr int VPR = TW / VW;
  const std::uint32_t ng = P.ng, tpo = P.tpo, RG = TC / ng;
  const int tid = threadIdx.x;
  const std::uint32_t v = tid % VPR, q = tid / VPR, rl = q % RG, tp = q / RG;
  Vec<T, VW>* part = reinterpret_cast<Vec<T, VW>*>(smem);                              // [kThreads]
  RowBounds* rb = reinterpret_cast<RowBounds*>(smem + kThreads * sizeof(Vec<T, VW>));  // [RG] (CSR)
  __shared__ std::uint32_t seen[128];  // last progress read per tile (<= 128 tiles per launch)
  __shared__ int abort_flag;
  for (std::uint32_t t = tid; t < 128; t += kThreads) seen[t] = 0;
  if (tid == 0) abort_flag = 0;
  __syncthreads();
  const DevMatrix<T>& A = P.a;
  const DevMatrix<T>& B = P.b;
  const std::uint64_t items = std::uint64_t(P.nchunks) * P.ntiles * ng;
  unsigned long long* prof = (P.prof && tid == 0) ? P.prof + (kMaxTiles + g) * 8 : nullptr;
  long long t = clock64();
  for (std::uint64_t it = g; it < items; it += G) {
    if (prof) prof[2] += 1;
    const std::uint32_t grp = std::uint32_t(it % ng);
    const std::uint32_t tl = std::uint32_t((it / ng) % P.ntiles);
    const std::uint32_t c = std::uint32_t(it / (std::uint64_t(ng) * P.ntiles));
    const std::uint32_t L = F / TC;
    // rows up to chunk c - L must be final (and the slot's previous chunk c - L consumed)
    const std::uint32_t need = c >= L ? c - L + 1 : 0;
    if (tid == 0 && seen[tl] < need) {
      prof_add(prof, 1, t);
      std::uint32_t got = 0;
      const bool ok = spin_until(P.err, [&] {
        got = ld_acquire_gpu(P.progress + tl);
        if (got >= need) return true;
        __nanosleep(200);
        return false;
      });
      seen[tl] = got;
      if (!ok) abort_flag = 1;
      prof_add(prof, 0, t);
    }
    if (!IMP && std::uint32_t(tid) < RG) {  // CSR: the row's entry ranges, once per row
      const std::uint32_t i = c * TC + grp * RG + tid;
      RowBounds b{0, 0, 0, 0, 0};
      if (i < P.n) {
        b.lo = __ldg(B.ptr + i);
        b.hi = __ldg(B.ptr + i + 1);
        b.efar = i >= std::uint32_t(F) ? first_gt(B.idx, b.lo, b.hi, i - F) : b.lo;
        b.emid = i >= std::uint32_t(NEAR) ? first_gt(B.idx, b.efar, b.hi, i - NEAR) : b.efar;
        b.eband = i >= std::uint32_t(KB) ? first_gt(B.idx, b.emid, b.hi, i - KB) : b.emid;
      }
      rb[tid] = b;
    }
    __syncthreads();
    if (abort_flag) return;
    const std::uint32_t r = grp * RG + rl, i = c * TC + r;
    const std::uint32_t col0 = (P.tile0 + tl) * TW, col = col0 + v * VW;
    Vec<T, VW> acc0, acc1;
#pragma unroll
    for (int u = 0; u < VW; ++u) acc0.v[u] = acc1.v[u] = T(0);
    if (i < P.n && col < P.d) {
      const std::uint32_t h0 = col / P.dh, h1 = (col + VW - 1) / P.dh;
      const bool one_head = h0 == h1;
      auto coef_vec = [&](auto&& cf) {  // cf(h) -> coefficient of head h
        Vec<T, VW> cv;
        if (one_head) {
          const T s = cf(h0);
#pragma unroll
          for (int u = 0; u < VW; ++u) cv.v[u] = s;
        } else {
#pragma unroll
          for (int u = 0; u < VW; ++u) cv.v[u] = cf((col + u) / P.dh);
        }
        return cv;
      };
      auto fma_vec = [](Vec<T, VW>& a, const Vec<T, VW>& cv, const Vec<T, VW>& y) {
#pragma unroll
        for (int u = 0; u < VW; ++u) a.v[u] = fma(cv.v[u], y.v[u], a.v[u]);
      };
      if (IMP) {
        const std::uint32_t ka = count_le(A.off, 0, A.k, i);
        for (std::uint32_t k = tp; k < ka; k += tpo) {
          const std::uint32_t o = __ldg(A.off + k);
          const Vec<T, VW> xv = load_vec<T, VW>(P.x + std::uint64_t(i - o) * P.d + col, false);
          const Vec<T, VW> cv = coef_vec([&](std::uint32_t h) { return coef_imp(A, h, i, k); });
          fma_vec(acc0, cv, xv);
        }
        const std::uint32_t kb = count_le(B.off, P.k_mid, B.k, i);
        std::uint32_t k = P.k_mid + tp;
        for (; k + 3 * tpo < kb; k += 4 * tpo) {
          Vec<T, VW> yv[4], cv[4];
#pragma unroll
          for (int u = 0; u < 4; ++u) {
            const std::uint32_t kk = k + u * tpo;
            yv[u] = load_vec<T, VW>(P.y + std::uint64_t(i - __ldg(B.off + kk)) * P.d + col, true);
            cv[u] = coef_vec([&](std::uint32_t h) { return coef_imp(B, h, i, kk); });
          }
          fma_vec(acc0, cv[0], yv[0]);
          fma_vec(acc1, cv[1], yv[1]);
          fma_vec(acc0, cv[2], yv[2]);
          fma_vec(acc1, cv[3], yv[3]);
        }
        for (; k < kb; k += tpo) {
          const Vec<T, VW> yv = load_vec<T, VW>(P.y + std::uint64_t(i - __ldg(B.off + k)) * P.d + col, true);
          const Vec<T, VW> cv = coef_vec([&](std::uint32_t h) { return coef_imp(B, h, i, k); });
          fma_vec(acc0, cv, yv);
        }
      } else {
        const std::uint64_t alo = __ldg(A.ptr + i), ahi = __ldg(A.ptr + i + 1);
        for (std::uint64_t e = alo + tp; e < ahi; e += tpo) {
          const Vec<T, VW> xv = load_vec<T, VW>(P.x + std::uint64_t(__ldg(A.idx + e)) * P.d + col, false);
          const Vec<T, VW> cv = coef_vec([&](std::uint32_t h) { return coef_csr(A, h, e); });
          fma_vec(acc0, cv, xv);
        }
        const std::uint64_t efar = rb[rl].efar;
        std::uint64_t e = rb[rl].lo + tp;
        for (; e + 3 * tpo < efar; e += 4 * tpo) {
          Vec<T, VW> yv[4], cv[4];
#pragma unroll
          for (int u = 0; u < 4; ++u) {
            const std::uint64_t ee = e + u * tpo;
            yv[u] = load_vec<T, VW>(P.y + std::uint64_t(__ldg(B.idx + ee)) * P.d + col, true);
            cv[u] = coef_vec([&](std::uint32_t h) { return coef_csr(B, h, ee); });
          }
          fma_vec(acc0, cv[0], yv[0]);
          fma_vec(acc1, cv[1], yv[1]);
          fma_vec(acc0, cv[2], yv[2]);
          fma_vec(acc1, cv[3], yv[3]);
        }
        for (; e < efar; e += tpo) {
          const Vec<T, VW> yv = load_vec<T, VW>(P.y + std::uint64_t(__ldg(B.idx + e)) * P.d + col, true);
          const Vec<T, VW> cv = coef_vec([&](std::uint32_t h) { return coef_csr(B, h, e); });
          fma_vec(acc0, cv, yv);
        }
      }
    }
#pragma unroll
    for (int u = 0; u < VW; ++u) acc0.v[u] += acc1.v[u];
    if (tpo > 1) {
      part[tid] = acc0;
      __syncthreads();
      if (tp == 0) {
        for (std::uint32_t s = 1; s < tpo; ++s) {
          const Vec<T, VW> o = part[tid + s * RG * VPR];
#pragma unroll
          for (int u = 0; u < VW; ++u) acc0.v[u] += o.v[u];
        }
      }
    }
    const Pkg<T> K = pkg_at(P, tl, c);
    if (tp == 0) {
      T* dst = K.v + r * TW + v * VW;
#pragma unroll
      for (int u = 0; u < VW; ++u) dst[u] = unsentinel(acc0.v[u]);
    }
    if (P.staged) {
      // the chunk's short-read coefficients for the tile's head, row group rows only
      const std::uint32_t h = col0 / P.dh;
      const std::uint32_t per = KB + P.nm + P.mm;
      if (IMP) {
        for (std::uint32_t qq = tid; qq < RG * per; qq += kThreads) {
          const std::uint32_t rr = grp * RG + qq / per, sl = qq % per, ii = c * TC + rr;
          std::uint32_t k;
          if (sl < std::uint32_t(KB)) {
            const int ki = P.band_idx[sl];
            K.band[rr * KB + sl] =
                (ki >= 0 && sl <= ii && ii < P.n) ? unsentinel(coef_imp(B, h, ii, std::uint32_t(ki))) : T(0);
            continue;
          }
          if (sl < KB + P.nm) {
            const std::uint32_t m = sl - KB;
            k = P.k_band + m;
            const std::uint32_t o = __ldg(B.off + k);
            K.nmc[rr * P.nm + m] = (o <= ii && ii < P.n) ? unsentinel(coef_imp(B, h, ii, k)) : T(0);
            K.nmo[rr * P.nm + m] = static_cast<std::uint16_t>(o);
          } else {
            const std::uint32_t m = sl - KB - P.nm;
            k = P.k_near + m;
            const std::uint32_t o = __ldg(B.off + k);
            K.midc[rr * P.mm + m] = (o <= ii && ii < P.n) ? unsentinel(coef_imp(B, h, ii, k)) : T(0);
            K.mido[rr * P.mm + m] = static_cast<std::uint16_t>(o);
          }
        }
      } else {
        for (std::uint32_t qq = tid; qq < RG * per; qq += kThreads) {
          const std::uint32_t rl2 = qq / per, rr = grp * RG + rl2, sl = qq % per, ii = c * TC + rr;
          const RowBounds& b = rb[rl2];
          if (sl < std::uint32_t(KB)) {  // band: the entry at offset sl, if any (entries at offsets < KB)
            T cf = T(0);
            for (std::uint64_t e = b.eband; e < b.hi; ++e)
              if (ii - __ldg(B.idx + e) == sl) cf = unsentinel(coef_csr(B, h, e));
            K.band[rr * KB + sl] = cf;
          } else if (sl < KB + P.nm) {
            const std::uint32_t m = sl - KB;
            const std::uint64_t e = b.emid + m;
            const bool ok = e < b.eband;
            K.nmc[rr * P.nm + m] = ok ? unsentinel(coef_csr(B, h, e)) : T(0);
            K.nmo[rr * P.nm + m] = static_cast<std::uint16_t>(ok ? ii - __ldg(B.idx + e) : KB);
          } else {
            const std::uint32_t m = sl - KB - P.nm;
            const std::uint64_t e = b.efar + m;
            const bool ok = e < b.emid;
            K.midc[rr * P.mm + m] = ok ? unsentinel(coef_csr(B, h, e)) : T(0);
            K.mido[rr * P.mm + m] = static_cast<std::uint16_t>(ok ? ii - __ldg(B.idx + e) : NEAR);
          }
        }
      }
    }
    __syncthreads();  // part[] and rb[] are reused by the next item
    prof_add(prof, 1, t);
  }
}

}  // namespace
}  // namespace mixgraph::gpu
