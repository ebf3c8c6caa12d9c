#pragma once
// gpu-pipeline, the solver CTA per tile and the kernel pipeline_solve (one cooperative grid of
// solver and gather CTAs; the overview: solve.cu).

#include "common.cuh"
#include "pipeline_gather.cuh"

namespace mixgraph::gpu {
namespace {

// ---- solver CTA ----
template <class T>
struct SolverSmem {
  T* ring;              // [F + KB][TW]: row i in slot i % F; slots F.. mirror slots 0..KB-1
  T* sbuf;              // [2][TC][TW]   V + reads at offsets [NEAR, F)
  T* band;              // [2][TC][KB]   staged: coefficient of offset k (0 if none)
  T* nmc;               // [2][NMMAX][TC] staged: coefficients of reads at offsets [KB, NEAR)
  std::uint16_t* nmo;   // [2][NMMAX][TC] ... and their offsets
  std::uint32_t* soff;  // [F] implicit B offsets < F
  std::uint32_t* done;  // chunks finished (for the publisher warp)
};

template <class T>
__host__ __device__ constexpr std::size_t solver_smem_bytes() {
  return sizeof(T) * (std::size_t(ring_rows<T>() + KB) * TW + 2 * TC * TW + 2 * TC * KB + 2 * TC * NMMAX) +
         sizeof(std::uint16_t) * 2 * TC * NMMAX + sizeof(std::uint32_t) * (ring_rows<T>() + 4) + 16;
}

template <class T>
__device__ SolverSmem<T> carve(unsigned char* smem) {
  constexpr int F = ring_rows<T>();
  SolverSmem<T> s;
  s.ring = reinterpret_cast<T*>(smem);
  s.sbuf = s.ring + (F + KB) * TW;
  s.band = s.sbuf + 2 * TC * TW;
  s.nmc = s.band + 2 * TC * KB;
  s.nmo = reinterpret_cast<std::uint16_t*>(s.nmc + 2 * TC * NMMAX);
  s.soff = reinterpret_cast<std::uint32_t*>(s.nmo + 2 * TC * NMMAX);
  s.done = s.soff + F;
  return s;
}

// Helpers (warps 1..14), coefficients not staged: V + reads at offsets [NEAR, F) of chunk c into buffer
// c & 1, coefficients per lane straight from global memory.
template <class T, bool IMP>
__device__ bool stage_direct(const DevProblem<T>& P, const SolverSmem<T>& S, std::uint32_t tl,
                             std::uint32_t c) {
  constexpr int F = ring_rows<T>();
  const int hw = helper_index(threadIdx.x / 32), lane = threadIdx.x % 32;
  const int buf = c & 1;
  const std::uint32_t col0 = (P.tile0 + tl) * TW, col = col0 + lane;
  const std::uint32_t hcol = (col < P.d ? col : P.d - 1) / P.dh;
  const DevMatrix<T>& B = P.b;
  T* vslot = pkg_at(P, tl, c).v;
  // V + reads at offsets [NEAR, F): warp hw takes rows hw, hw + 14, ...; lane = column
  for (int r = hw; r < TC; r += kHelperWarps) {
    const std::uint32_t i = c * TC + r;
    volatile T* vp = vslot + r * TW + lane;
    T s = *vp;
    if (is_sentinel(s)) {
      const bool ok = spin_until(P.err, [&] {
        s = *vp;
        return !is_sentinel(s);
      });
      if (!ok) return false;
    }
    vslot[r * TW + lane] = sentinel<T>();  // consumed: the slot is free for chunk c + L
    if (i < P.n) {
      if (IMP) {
        const std::uint32_t kend = min(P.k_mid, count_le(B.off, P.k_near, P.k_mid, i));
        T s1 = T(0);
        std::uint32_t k = P.k_near;
        for (; k + 1 < kend; k += 2) {
          s = fma(coef_imp(B, hcol, i, k), S.ring[((i - S.soff[k]) & (F - 1)) * TW + lane], s);
          s1 = fma(coef_imp(B, hcol, i, k + 1), S.ring[((i - S.soff[k + 1]) & (F - 1)) * TW + lane], s1);
        }
        if (k < kend) s = fma(coef_imp(B, hcol, i, k), S.ring[((i - S.soff[k]) & (F - 1)) * TW + lane], s);
        s += s1;
      } else {
        const std::uint64_t lo = __ldg(B.ptr + i), hi = __ldg(B.ptr + i + 1);
        const std::uint64_t e0 = i >= std::uint32_t(F) ? first_gt(B.idx, lo, hi, i - F) : lo;
        const std::uint64_t e1 = i >= std::uint32_t(NEAR) ? first_gt(B.idx, e0, hi, i - NEAR) : e0;
        for (std::uint64_t e = e0; e < e1; ++e)
          s = fma(coef_csr(B, hcol, e), S.ring[(__ldg(B.idx + e) & (F - 1)) * TW + lane], s);
      }
    }
    S.sbuf[(buf * TC + r) * TW + lane] = s;
  }
  return true;
}

// Helpers, staged coefficients: each thread carries its share of the next package in registers, loaded one
// chunk ahead (prefetch), so the per-chunk work (consume) waits on no memory latency in the usual case.
constexpr int kHelperThreads = kHelperWarps * 32;
constexpr int RPW = (TC + kHelperWarps - 1) / kHelperWarps;                     // rows per helper warp
constexpr int SPT = (TC * (KB + NMMAX) + kHelperThreads - 1) / kHelperThreads;  // band + nm values
constexpr int OPT = (TC * NMMAX / 2 + kHelperThreads - 1) / kHelperThreads;     // nm offset pairs

template <class T>
struct Prefetched {
  T v[RPW], mc[RPW];
  std::uint32_t mo[RPW];
  T sc[SPT];
  std::uint32_t so[OPT];
};

template <class T>
__device__ void prefetch(const DevProblem<T>& P, std::uint32_t tl, std::uint32_t c, Prefetched<T>& R) {
  const int hw = helper_index(threadIdx.x / 32), lane = threadIdx.x % 32, ht = hw * 32 + lane;
  const Pkg<T> K = pkg_at(P, tl, c);
  const std::uint32_t mm = P.mm, nm = P.nm;
#pragma unroll
  for (int j = 0; j < RPW; ++j) {
    const int r = hw + j * kHelperWarps;
    if (r < TC) {
      R.v[j] = __ldcg(K.v + r * TW + lane);
      R.mc[j] = std::uint32_t(lane) < mm ? __ldcg(K.midc + r * mm + lane) : T(0);
      R.mo[j] = std::uint32_t(lane) < mm ? __ldcg(K.mido + r * mm + lane) : 0u;
    }
  }
  const std::uint32_t ns = TC * (KB + nm);
#pragma unroll
  for (int s = 0; s < SPT; ++s) {
    const std::uint32_t q = ht + s * kHelperThreads;
    if (q < ns) R.sc[s] = __ldcg(q < std::uint32_t(TC * KB) ? K.band + q : K.nmc + (q - TC * KB));
  }
  const std::uint32_t nw = TC * nm / 2;
  const unsigned int* nmo32 = reinterpret_cast<const unsigned int*>(K.nmo);
#pragma unroll
  for (int s = 0; s < OPT; ++s) {
    const std::uint32_t w = ht + s * kHelperThreads;
    if (w < nw) R.so[s] = __ldcg(nmo32 + w);
  }
}

// Re-reads a prefetched value until it is no longer the sentinel (the gather had not written it yet).
template <class U, class S>
__device__ __forceinline__ bool settle(std::uint32_t* err, U& val, const U* addr, S sent) {
  if (!sent(val)) return true;
  const volatile U* va = addr;
  return spin_until(err, [&] {
    val = *va;
    return !sent(val);
  });
}

template <class T>
__device__ bool consume(const DevProblem<T>& P, const SolverSmem<T>& S, std::uint32_t tl, std::uint32_t c,
                        Prefetched<T>& R) {
  constexpr int F = ring_rows<T>();
  const int hw = helper_index(threadIdx.x / 32), lane = threadIdx.x % 32, ht = hw * 32 + lane;
  const int buf = c & 1;
  const Pkg<T> K = pkg_at(P, tl, c);
  const std::uint32_t mm = P.mm, nm = P.nm;
  auto sentT = [](T x) { return is_sentinel(x); };
  auto sent16 = [](std::uint32_t x) { return (x & 0xffffu) == 0xffffu; };
  auto sent32 = [](unsigned int x) { return (x & 0xffffu) == 0xffffu || (x >> 16) == 0xffffu; };
  bool ok = true;
  const std::uint32_t ns = TC * (KB + nm);
#pragma unroll
  for (int s = 0; s < SPT; ++s) {
    const std::uint32_t q = ht + s * kHelperThreads;
    if (q < ns) {
      T* src = q < std::uint32_t(TC * KB) ? K.band + q : K.nmc + (q - TC * KB);
      ok &= settle(P.err, R.sc[s], src, sentT);
      *src = sentinel<T>();
      if (q < std::uint32_t(TC * KB)) {
        S.band[buf * TC * KB + q] = R.sc[s];
      } else {
        const std::uint32_t qq = q - TC * KB, r = qq / nm, m = qq % nm;
        S.nmc[(buf * NMMAX + m) * TC + r] = R.sc[s];
      }
    }
  }
  const std::uint32_t nw = TC * nm / 2;
  unsigned int* nmo32 = reinterpret_cast<unsigned int*>(K.nmo);
#pragma unroll
  for (int s = 0; s < OPT; ++s) {
    const std::uint32_t w = ht + s * kHelperThreads;
    if (w < nw) {
      ok &= settle(P.err, R.so[s], nmo32 + w, sent32);
      nmo32[w] = 0xffffffffu;
      for (int half = 0; half < 2; ++half) {
        const std::uint32_t qq = 2 * w + half, r = qq / nm, m = qq % nm;
        S.nmo[(buf * NMMAX + m) * TC + r] =
            static_cast<std::uint16_t>(half ? R.so[s] >> 16 : R.so[s] & 0xffffu);
      }
    }
  }
#pragma unroll
  for (int j = 0; j < RPW; ++j) {
    const int r = hw + j * kHelperWarps;
    if (r >= TC) continue;  // uniform per warp
    ok &= settle(P.err, R.v[j], K.v + r * TW + lane, sentT);
    K.v[r * TW + lane] = sentinel<T>();
    if (std::uint32_t(lane) < mm) {
      ok &= settle(P.err, R.mc[j], K.midc + r * mm + lane, sentT);
      std::uint16_t o16 = static_cast<std::uint16_t>(R.mo[j]);
      if (sent16(R.mo[j])) {
        ok &= spin_until(P.err, [&] {
          o16 = *reinterpret_cast<volatile std::uint16_t*>(K.mido + r * mm + lane);
          return o16 != 0xffffu;
        });
        R.mo[j] = o16;
      }
      K.midc[r * mm + lane] = sentinel<T>();
      K.mido[r * mm + lane] = 0xffffu;
    }
    const std::uint32_t i = c * TC + r;
    T sum = R.v[j], sum1 = T(0);
    std::uint32_t m = 0;
    for (; m + 1 < mm; m += 2) {
      const T c0 = __shfl_sync(0xffffffffu, R.mc[j], m), c1 = __shfl_sync(0xffffffffu, R.mc[j], m + 1);
      const std::uint32_t o0 = __shfl_sync(0xffffffffu, R.mo[j], m),
                          o1 = __shfl_sync(0xffffffffu, R.mo[j], m + 1);
      sum = fma(c0, S.ring[((i - o0) & (F - 1)) * TW + lane], sum);
      sum1 = fma(c1, S.ring[((i - o1) & (F - 1)) * TW + lane], sum1);
    }
    if (m < mm) {
      const T c0 = __shfl_sync(0xffffffffu, R.mc[j], m);
      const std::uint32_t o0 = __shfl_sync(0xffffffffu, R.mo[j], m);
      sum = fma(c0, S.ring[((i - o0) & (F - 1)) * TW + lane], sum);
    }
    S.sbuf[(buf * TC + r) * TW + lane] = sum + sum1;
  }
  return ok;
}

// Eight consecutive values of T from shared memory (32-byte aligned), as 16-byte loads.
template <class T>
__device__ __forceinline__ void lds8(const T* p, T (&o)[KB]) {
  static_assert(KB == 8, "lds8 loads eight values");
  if constexpr (sizeof(T) == 4) {
    const float4 a = reinterpret_cast<const float4*>(p)[0], b = reinterpret_cast<const float4*>(p)[1];
    o[0] = a.x, o[1] = a.y, o[2] = a.z, o[3] = a.w, o[4] = b.x, o[5] = b.y, o[6] = b.z, o[7] = b.w;
  } else {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const double2 a = reinterpret_cast<const double2*>(p)[u];
      o[2 * u] = a.x, o[2 * u + 1] = a.y;
    }
  }
}

// Solver warp, staged coefficients: rows in blocks of KB; reads at offsets < KB from registers (a dense
// band), reads at offsets [KB, NEAR) from the ring: for implicit patterns one offset per term for the
// whole block (the mirrored ring tail keeps the block's KB rows contiguous), for CSR one per row.
template <class T, bool IMP>
__device__ void solve_chunk_staged(const DevProblem<T>& P, const SolverSmem<T>& S, std::uint32_t tl,
                                   std::uint32_t c, T (&yp)[KB]) {
  constexpr int F = ring_rows<T>();
  constexpr int NMU = 12;  // implicit: up to 12 reads at offsets [KB, NEAR) with offsets held in registers
  const int lane = threadIdx.x;
  const int buf = c & 1;
  const std::uint32_t col = (P.tile0 + tl) * TW + lane;
  const bool writer = col < P.d;
  const std::uint32_t nm = P.nm;
  const std::uint32_t bmask = P.band_mask;
  const T* ring = S.ring + lane;
  std::uint32_t om[NMU];
#pragma unroll
  for (int m = 0; m < NMU; ++m) om[m] = (IMP && std::uint32_t(m) < nm) ? S.soff[P.k_band + m] : 0u;
  const bool regs = IMP && nm <= std::uint32_t(NMU);
  T* yrow = P.y + std::uint64_t(c * TC) * P.d + col;
  const bool full_rows = (c + 1) * TC <= P.n && writer;
  for (int rb = 0; rb < TC; rb += KB) {
    const std::uint32_t i0 = c * TC + rb;
    T p[KB];
#pragma unroll
    for (int r = 0; r < KB; ++r) p[r] = S.sbuf[(buf * TC + rb + r) * TW + lane];
    if (regs) {
      // groups of GS terms: every load of a group is issued before its multiply-adds
      constexpr int GS = int(16 / sizeof(T));
#pragma unroll
      for (int g = 0; g < NMU; g += GS) {
        if (std::uint32_t(g) < nm) {
          T cf[GS][KB], ry[GS][KB];
#pragma unroll
          for (int u = 0; u < GS; ++u) {
            if (std::uint32_t(g + u) < nm) {
              lds8(S.nmc + (buf * NMMAX + g + u) * TC + rb, cf[u]);
              const T* rr = ring + ((i0 - om[g + u]) & (F - 1)) * TW;
#pragma unroll
              for (int r = 0; r < KB; ++r) ry[u][r] = rr[r * TW];
            }
          }
#pragma unroll
          for (int u = 0; u < GS; ++u)
            if (std::uint32_t(g + u) < nm) {
#pragma unroll
              for (int r = 0; r < KB; ++r) p[r] = fma(cf[u][r], ry[u][r], p[r]);
            }
        }
      }
    } else {
      for (std::uint32_t m = 0; m < nm; ++m) {
        T cf[KB];
        lds8(S.nmc + (buf * NMMAX + m) * TC + rb, cf);
        if (IMP) {
          const T* rr = ring + ((i0 - S.soff[P.k_band + m]) & (F - 1)) * TW;
#pragma unroll
          for (int r = 0; r < KB; ++r) p[r] = fma(cf[r], rr[r * TW], p[r]);
        } else {
          const uint4 ov = *reinterpret_cast<const uint4*>(S.nmo + (buf * NMMAX + m) * TC + rb);
          const std::uint32_t ow[4] = {ov.x, ov.y, ov.z, ov.w};
#pragma unroll
          for (int r = 0; r < KB; ++r) {
            const std::uint32_t o = (r & 1) ? (ow[r >> 1] >> 16) : (ow[r >> 1] & 0xffffu);
            p[r] = fma(cf[r], ring[((i0 + r - o) & (F - 1)) * TW], p[r]);
          }
        }
      }
    }
    T yc[KB], bc[KB];
    lds8(S.band + (buf * TC + rb) * KB, bc);
#pragma unroll
    for (int r = 0; r < KB; ++r) {
      T bn[KB];  // the next row's band, loaded while this row is summed
      if (r + 1 < KB) lds8(S.band + (buf * TC + rb + r + 1) * KB, bn);
      T acc = p[r];
#pragma unroll
      for (int k = KB - 1; k >= 1; --k)
        if (bmask & (1u << k)) acc = fma(bc[k], r >= k ? yc[r - k] : yp[KB + r - k], acc);
      yc[r] = acc;
      if (r + 1 < KB) {
#pragma unroll
        for (int k = 0; k < KB; ++k) bc[k] = bn[k];
      }
    }
    const std::uint32_t slot = i0 & (F - 1);
    T* w = S.ring + slot * TW + lane;
#pragma unroll
    for (int r = 0; r < KB; ++r) {
      w[r * TW] = yc[r];
      yp[r] = yc[r];
    }
    if (slot == 0) {  // the mirror of slots 0..KB-1
#pragma unroll
      for (int r = 0; r < KB; ++r) S.ring[(F + r) * TW + lane] = yc[r];
    }
    if (full_rows) {
#pragma unroll
      for (int r = 0; r < KB; ++r) yrow[std::uint64_t(rb + r) * P.d] = yc[r];
    } else if (writer) {
#pragma unroll
      for (int r = 0; r < KB; ++r)
        if (i0 + r < P.n) yrow[std::uint64_t(rb + r) * P.d] = yc[r];
    }
  }
}

// Solver warp, coefficients per column (heads narrower than a tile) or too many short CSR reads: row by row,
// coefficients straight from global memory.
template <class T, bool IMP>
__device__ void solve_chunk_direct(const DevProblem<T>& P, const SolverSmem<T>& S, std::uint32_t tl,
                                   std::uint32_t c, T& prev) {
  constexpr int F = ring_rows<T>();
  const int lane = threadIdx.x;
  const int buf = c & 1;
  const std::uint32_t col = (P.tile0 + tl) * TW + lane;
  const bool writer = col < P.d;
  const std::uint32_t h = (col < P.d ? col : P.d - 1) / P.dh;
  const DevMatrix<T>& B = P.b;
  for (int r = 0; r < TC; ++r) {
    const std::uint32_t i = c * TC + r;
    T v = S.sbuf[(buf * TC + r) * TW + lane];
    if (i < P.n) {
      if (IMP) {
        const std::uint32_t kend = min(P.k_near, count_le(B.off, 0, P.k_near, i));
        for (std::uint32_t k = 0; k < kend; ++k) {
          const std::uint32_t o = S.soff[k];
          const T yv = o == 1 ? prev : S.ring[((i - o) & (F - 1)) * TW + lane];
          v = fma(coef_imp(B, h, i, k), yv, v);
        }
      } else {
        const std::uint64_t lo = __ldg(B.ptr + i), hi = __ldg(B.ptr + i + 1);
        for (std::uint64_t e = hi; e > lo; --e) {
          const std::uint32_t j = __ldg(B.idx + e - 1), o = i - j;
          if (o >= std::uint32_t(NEAR)) break;
          const T yv = o == 1 ? prev : S.ring[(j & (F - 1)) * TW + lane];
          v = fma(coef_csr(B, h, e - 1), yv, v);
        }
      }
    }
    S.ring[(i & (F - 1)) * TW + lane] = v;
    if ((i & (F - 1)) < std::uint32_t(KB)) S.ring[(F + (i & (F - 1))) * TW + lane] = v;
    prev = v;
    if (writer && i < P.n) P.y[std::uint64_t(i) * P.d + col] = v;
  }
}

template <class T, bool IMP>
__device__ void solver_cta(const DevProblem<T>& P, unsigned char* smem, std::uint32_t tl) {
  constexpr int F = ring_rows<T>();
  const SolverSmem<T> S = carve<T>(smem);
  const int tid = threadIdx.x, warp = tid / 32;
  for (int q = tid; q < (F + KB) * TW; q += kThreads) S.ring[q] = T(0);
  if (IMP)
    for (std::uint32_t q = tid; q < std::uint32_t(F); q += kThreads)
      S.soff[q] = q < P.k_mid ? P.b.off[q] : 0u;
  if (tid == 0) *S.done = 0;
  __syncthreads();
  if (warp != 0 && warp != kPublisherWarp && helper_index(warp) < 0) return;  // idle: the solver's scheduler
  if (warp == kPublisherWarp) {
    // publishes the chunks finished, at GPU scope, so the gather CTAs may read those rows of Y
    if (tid % 32 == 0) {
      std::uint32_t pub = 0;
      while (pub < P.nchunks) {
        std::uint32_t now = pub;
        const bool ok = spin_until(P.err, [&] {
          now = ld_acquire_cta_shared(S.done);
          if (now > pub) return true;
          __nanosleep(100);  // keep the spin off the shared-memory pipe the solver warp lives on
          return false;
        });
        if (!ok) break;
        st_release_gpu(P.progress + tl, now);
        pub = now;
      }
    }
    return;
  }
  // warps 0..14 meet once per chunk; a failed wait (pipeline stall) anywhere ends all of them together
  int failed = 0;
  Prefetched<T> R;
  const bool staged = P.staged != 0;
  if (warp > 0) {
    if (staged) {
      prefetch<T>(P, tl, 0, R);
      failed = !consume<T>(P, S, tl, 0, R);
      if (P.nchunks > 1) prefetch<T>(P, tl, 1, R);
    } else {
      failed = !stage_direct<T, IMP>(P, S, tl, 0);
    }
  }
  if (named_sync_or(1, kSyncThreads, failed)) return;
  T yp[KB];
#pragma unroll
  for (int r = 0; r < KB; ++r) yp[r] = T(0);
  T prev = T(0);
  unsigned long long* prof = (P.prof && (tid == 0 || tid == 32)) ? P.prof + tl * 8 : nullptr;
  long long t = clock64();
  for (std::uint32_t c = 0; c < P.nchunks; ++c) {
    if (warp == 0) {
      if (staged)
        solve_chunk_staged<T, IMP>(P, S, tl, c, yp);
      else
        solve_chunk_direct<T, IMP>(P, S, tl, c, prev);
      prof_add(prof, 0, t);
    } else if (c + 1 < P.nchunks) {
      if (staged) {
        failed = !consume<T>(P, S, tl, c + 1, R);
        prof_add(prof, 2, t);
        if (c + 2 < P.nchunks) prefetch<T>(P, tl, c + 2, R);
        prof_add(prof, 3, t);
      } else {
        failed = !stage_direct<T, IMP>(P, S, tl, c + 1);
        prof_add(prof, 2, t);
      }
    }
    if (named_sync_or(1, kSyncThreads, failed)) return;
    prof_add(prof, warp == 0 ? 1 : 4, t);
    if (tid == 32) st_release_cta_shared(S.done, c + 1);
  }
}

template <class T, bool IMP>
__global__ void __launch_bounds__(kThreads, 1) pipeline_solve(DevProblem<T> P) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  if (blockIdx.x < P.ntiles) {
    solver_cta<T, IMP>(P, smem_raw, blockIdx.x);
  } else {
    const std::uint32_t g = blockIdx.x - P.ntiles, G = gridDim.x - P.ntiles;
    constexpr int VWMAX = int(16 / sizeof(T));
    if (P.vw == std::uint32_t(VWMAX))
      gather_items<T, IMP, VWMAX>(P, smem_raw, g, G);
    else
      gather_items<T, IMP, 1>(P, smem_raw, g, G);
  }
}

}  // namespace
}  // namespace mixgraph::gpu
