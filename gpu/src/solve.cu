// GPU sparse mixer solve (gpu_solve.hpp). C++17, plain pointers, no lib/ headers.
//
// Three kernels (every run names the one it used; make_plan chooses):
//
// * gpu-blockinv (blockinv.cuh): the default where it fits; chunk inverses built in parallel, then one
//   CTA per 8-column tile (4 in fp64) marching over chunks of 64 rows. In split mode (tiles on at most half
//   the multiprocessors) far-worker CTAs of the same cooperative grid write A X + the long-range reads into
//   Y ahead of the tiles.
// * gpu-pipeline: the fallback (heads narrower than a tile, d not a multiple of the tile, read lists too
//   long for shared memory). Chunked block forward substitution spread over the whole GPU. Columns are cut
//   into tiles of 32 (a warp, one column per lane) and rows into chunks of 64. One persistent, cooperative
//   grid:
//   - one *solver* CTA per tile marches over the chunks in order. Its warp 0 solves the chunk row by row:
//     reads at offsets < 8 from registers (a dense band with zero coefficients where the pattern has no
//     read), reads at offsets 8..127 from a shared-memory ring of the last F rows. Its helper warps stage
//     the next chunk meanwhile: the far sums (below), plus the reads at offsets 128..F-1 from the ring, plus
//     the chunk's coefficients.
//   - every other CTA is a *gather* CTA: it computes V = A X + (reads at offsets >= F) for (tile, chunk,
//     row group) items in chunk order, as soon as the rows F back are final, and writes them into a small
//     ring in global memory (slots start as a sentinel NaN, the helpers spin until none is left).
//   So the sequential part (the solver warp) only does the short reads, and the long-range traffic, the
//   bulk of the bytes for patterns like sq1, is spread over all multiprocessors.
//   Progress flows one way: the solver CTA publishes "chunks done" (release at GPU scope, from a spare warp
//   so the fence is off the critical path); gather CTAs acquire it before reading Y.
// * gpu-scan1: first-order recurrences (B reads only i - 1: ssm-style gates, any heads) as a three-pass
//   chunked scan: per-segment affine maps (y_out = P y_in + Q), a sequential pass over segment maps per
//   column, and a pass that replays each segment from its true carry.
//
// fp32 uses FMA in fp32 (no TF32), fp64 in fp64.
#include <cuda.h>  // CUtensorMap (the encoder is taken from the runtime: no link to libcuda)
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "mixgraph/gpu_solve.hpp"
#include "tma.cuh"

namespace mixgraph::gpu {
namespace {

constexpr int TW = 32;         // columns per tile (one per lane of the solver warp)
constexpr int TC = 64;         // rows per chunk
constexpr int NEAR = 2 * TC;   // offsets < NEAR are solved by the solver warp (they may read the chunk)
constexpr int KB = 8;          // offsets < KB go through the register band
constexpr int NMMAX = 32;      // staged reads per row at offsets in [KB, NEAR)
constexpr int MIDMAX = 32;     // staged reads per row at offsets in [NEAR, F)
constexpr int kThreads = 512;  // every CTA
// Solver CTA roles: warp 0 solves; warps 4, 8 and 12 (the solver's scheduler, warp % 4 == 0) stay idle so
// the sequential warp issues alone; warp 15 publishes progress; the other 11 warps are helpers.
constexpr int kHelperWarps = 11;
constexpr int kSyncThreads = 32 * (1 + kHelperWarps);  // named barrier 1: solver + helpers
constexpr int kPublisherWarp = 15;
__host__ __device__ constexpr int helper_index(int warp) {  // -1: not a helper
  return (warp == 0 || warp % 4 == 0 || warp == kPublisherWarp) ? -1 : warp - 1 - warp / 4;
}
static_assert(helper_index(14) == kHelperWarps - 1, "helper warps are 1-3, 5-7, 9-11, 13-14");
constexpr std::uint64_t kStallNs = 20ull * 1000 * 1000 * 1000;  // a pipeline wait longer than this is a bug

template <class T>
constexpr int ring_rows() {
  return int(131072 / (TW * sizeof(T)));  // 128 KB of shared memory: F = 1024 (fp32), 512 (fp64)
}

template <class T>
struct DevMatrix {
  int implicit;
  const std::uint32_t* off;
  std::uint32_t k;
  const std::uint64_t* ptr;
  const std::uint32_t* idx;
  const T* val;
  std::uint64_t hs, is, ks;
};

template <class T>
struct DevProblem {
  std::uint32_t n, d, dh;
  DevMatrix<T> a, b;
  const T* x;
  T* y;
  // pipeline
  unsigned char* vring;         // [tiles of this launch][L slots] packages (pkg_layout)
  std::uint32_t* progress;      // [tiles of this launch] chunks whose Y rows are final and visible
  std::uint32_t* err;           // 1: a wait timed out (the host reports it)
  std::uint32_t tile0, ntiles;  // tiles of this launch
  std::uint32_t nchunks;
  std::uint32_t k_band, k_near,
      k_mid;                  // implicit B: offsets [0,k_band) < KB <= [k_band,k_near) < NEAR <= .. < F
  int band_idx[KB];           // implicit B: index of offset k (< KB) in the list, -1 if absent
  std::uint32_t band_mask;    // bit k: some row reads offset k (< KB)
  std::uint32_t nm;           // staged reads per row in [KB, NEAR) (<= NMMAX when staged)
  std::uint32_t mm;           // staged reads per row in [NEAR, F) (<= MIDMAX when staged)
  std::uint32_t pkg_bytes;    // bytes of one package
  int staged;                 // coefficients shared by the tile and staged in shared memory
  std::uint32_t vw, ng, tpo;  // gather: vector width, row groups per chunk, threads per output
  unsigned long long* prof;   // diagnostics (SolveOptions::profile): cycle counters, or null
};
// prof layout: solver CTA t: [t * 8 + k], k: 0 solve, 1 solver barrier wait, 2 consume, 3 prefetch, 4 helper
// barrier wait; gather CTA g: [(kMaxTiles + g) * 8 + k], k: 0 progress wait, 1 compute, 2 items.
constexpr int kMaxTiles = 128;
__device__ __forceinline__ void prof_add(unsigned long long* prof, std::uint32_t slot, long long& t) {
  if (prof) {
    const long long now = clock64();
    prof[slot] += static_cast<unsigned long long>(now - t);
    t = now;
  }
}

// One (tile, chunk) package in the global ring, written by gather CTAs, read by the tile's helpers:
// V [TC][TW] (A X + reads at offsets >= F), then when staged the chunk's coefficients: band [TC][KB] (offset
// k < KB, 0 where absent), nmc/nmo [TC][nm] (reads at offsets [KB, NEAR)), midc/mido [TC][mm] (reads at
// offsets [NEAR, F)); offsets as uint16. Every entry starts as the sentinel (all bits set).
struct PkgLayout {
  std::uint32_t band, nmc, midc, nmo, mido, bytes;
};
__host__ __device__ inline PkgLayout pkg_layout(std::uint32_t tsize, std::uint32_t nm, std::uint32_t mm,
                                                bool staged) {
  PkgLayout o{};
  std::uint32_t b = TC * TW * tsize;
  o.band = o.nmc = o.midc = o.nmo = o.mido = b;
  if (staged) {
    o.band = b;
    b += TC * KB * tsize;
    o.nmc = b;
    b += TC * nm * tsize;
    o.midc = b;
    b += TC * mm * tsize;
    o.nmo = b;
    b += TC * nm * 2;
    o.mido = b;
    b += TC * mm * 2;
  }
  o.bytes = (b + 15) & ~15u;
  return o;
}
template <class T>
struct Pkg {
  T *v, *band, *nmc, *midc;
  std::uint16_t *nmo, *mido;
};
template <class T>
__device__ __forceinline__ Pkg<T> pkg_at(const DevProblem<T>& P, std::uint32_t tl, std::uint32_t c) {
  constexpr std::uint32_t L = ring_rows<T>() / TC;
  const PkgLayout lo = pkg_layout(sizeof(T), P.nm, P.mm, P.staged != 0);
  unsigned char* b = P.vring + (std::uint64_t(tl) * L + c % L) * P.pkg_bytes;
  Pkg<T> k;
  k.v = reinterpret_cast<T*>(b);
  k.band = reinterpret_cast<T*>(b + lo.band);
  k.nmc = reinterpret_cast<T*>(b + lo.nmc);
  k.midc = reinterpret_cast<T*>(b + lo.midc);
  k.nmo = reinterpret_cast<std::uint16_t*>(b + lo.nmo);
  k.mido = reinterpret_cast<std::uint16_t*>(b + lo.mido);
  return k;
}

template <class T>
__device__ __forceinline__ T coef_imp(const DevMatrix<T>& m, std::uint32_t h, std::uint32_t i,
                                      std::uint32_t k) {
  return __ldg(m.val + (h * m.hs + std::uint64_t(i) * m.is + std::uint64_t(k) * m.ks));
}
template <class T>
__device__ __forceinline__ T coef_csr(const DevMatrix<T>& m, std::uint32_t h, std::uint64_t e) {
  return __ldg(m.val + (h * m.hs + e * m.is));
}

// ---- memory-model helpers ----
__device__ __forceinline__ std::uint32_t ld_acquire_gpu(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release_gpu(std::uint32_t* p, std::uint32_t v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// The solver CTA's "chunks done" counter in shared memory: written by a helper, read by the publisher warp.
// Atomics with block-scope fences (release before the write, acquire after the read).
__device__ __forceinline__ std::uint32_t ld_acquire_cta_shared(std::uint32_t* p) {
  const std::uint32_t v = atomicOr(p, 0u);
  __threadfence_block();
  return v;
}
__device__ __forceinline__ void st_release_cta_shared(std::uint32_t* p, std::uint32_t v) {
  __threadfence_block();
  atomicExch(p, v);
}
__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// Named barrier over `threads` threads that also ORs a predicate across them (uniform result).
__device__ __forceinline__ int named_sync_or(int id, int threads, int pred) {
  int r;
  asm volatile(
      "{ .reg .pred p, q; setp.ne.s32 p, %1, 0; bar.red.or.pred q, %2, %3, p; selp.s32 %0, 1, 0, q; }"
      : "=r"(r)
      : "r"(pred), "r"(id), "r"(threads)
      : "memory");
  return r;
}

// The sentinel of an unwritten V slot: all bits set (a NaN that no arithmetic produces; a computed value
// with these bits is replaced by the canonical NaN before it is stored).
template <class T>
struct Bits;
template <>
struct Bits<float> {
  using U = std::uint32_t;
};
template <>
struct Bits<double> {
  using U = unsigned long long;
};
template <class T>
__device__ __forceinline__ bool is_sentinel(T v) {
  typename Bits<T>::U u;
  memcpy(&u, &v, sizeof u);
  return u == ~typename Bits<T>::U(0);
}
template <class T>
__device__ __forceinline__ T sentinel() {
  const typename Bits<T>::U u = ~typename Bits<T>::U(0);
  T v;
  memcpy(&v, &u, sizeof v);
  return v;
}
template <class T>
__device__ __forceinline__ T unsentinel(T v) {
  return is_sentinel(v) ? T(NAN) : v;
}

// First index e in [lo, hi) of an ascending array with a[e] > v (hi if none): for implicit offsets the
// number of offsets <= v (count_le), for a CSR row (columns ascending) the first column > v (first_gt).
template <class I>
__device__ __forceinline__ I upper_bound_ldg(const std::uint32_t* a, I lo, I hi, std::uint32_t v) {
  while (lo < hi) {
    const I m = (lo + hi) >> 1;
    if (__ldg(a + m) <= v)
      lo = m + 1;
    else
      hi = m;
  }
  return lo;
}
__device__ __forceinline__ std::uint32_t count_le(const std::uint32_t* off, std::uint32_t lo,
                                                  std::uint32_t hi, std::uint32_t i) {
  return upper_bound_ldg<std::uint32_t>(off, lo, hi, i);
}
__device__ __forceinline__ std::uint64_t first_gt(const std::uint32_t* idx, std::uint64_t lo,
                                                  std::uint64_t hi, std::uint32_t j) {
  return upper_bound_ldg<std::uint64_t>(idx, lo, hi, j);
}

// Wait helper: spins on cond() with a timeout; returns false (and raises err) when the pipeline stalled.
template <class F>
__device__ bool spin_until(std::uint32_t* err, F cond) {
  std::uint64_t t0 = 0;
  for (std::uint32_t it = 0;; ++it) {
    if (cond()) return true;
    if ((it & 63) == 63) {
      if (*reinterpret_cast<volatile std::uint32_t*>(err)) return false;
      const std::uint64_t t = global_ns();
      if (t0 == 0)
        t0 = t;
      else if (t - t0 > kStallNs) {
        atomicExch(err, 1u);
        return false;
      }
      __nanosleep(64);
    }
  }
}

template <class T, int VW>
struct Vec {
  T v[VW];
};

template <class T, int VW>
__device__ __forceinline__ Vec<T, VW> load_vec(const T* p, bool coherent) {
  Vec<T, VW> r;
  if constexpr (VW == 4 && sizeof(T) == 4) {
    const float4 q =
        coherent ? __ldcg(reinterpret_cast<const float4*>(p)) : __ldg(reinterpret_cast<const float4*>(p));
    r.v[0] = q.x;
    r.v[1] = q.y;
    r.v[2] = q.z;
    r.v[3] = q.w;
  } else if constexpr (VW == 2 && sizeof(T) == 8) {
    const double2 q =
        coherent ? __ldcg(reinterpret_cast<const double2*>(p)) : __ldg(reinterpret_cast<const double2*>(p));
    r.v[0] = q.x;
    r.v[1] = q.y;
  } else {
#pragma unroll
    for (int u = 0; u < VW; ++u) r.v[u] = coherent ? __ldcg(p + u) : __ldg(p + u);
  }
  return r;
}

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

#include "blockinv.cuh"

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

std::string err_text(cudaError_t e, const char* what) {
  return std::string(what) + ": " + cudaGetErrorString(e);
}
#define MG_CUDA(call, what)                                       \
  do {                                                            \
    cudaError_t e_ = (call);                                      \
    if (e_ != cudaSuccess) throw std::string(err_text(e_, what)); \
  } while (0)

struct DevBuf {
  void* p = nullptr;
  DevBuf() = default;
  explicit DevBuf(std::size_t bytes) {
    if (bytes) MG_CUDA(cudaMalloc(&p, bytes), "cudaMalloc");
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf& operator=(DevBuf&& o) noexcept {
    if (this != &o) {
      if (p) cudaFree(p);
      p = o.p;
      o.p = nullptr;
    }
    return *this;
  }
  ~DevBuf() {
    if (p) cudaFree(p);
  }
  template <class U>
  U* as() const {
    return static_cast<U*>(p);
  }
};

template <class U>
void upload(DevBuf& b, const U* h, std::size_t count) {
  b = DevBuf(count * sizeof(U));
  if (count) MG_CUDA(cudaMemcpy(b.p, h, count * sizeof(U), cudaMemcpyHostToDevice), "upload");
}

int num_sms() {
  int dev = 0, sms = 132;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return sms;
}

// Device copies of one matrix's structure (values separately).
struct DevStruct {
  DevBuf off, ptr, idx;
};

template <class T>
DevMatrix<T> dev_matrix(const SolveMatrix& m, std::uint32_t n, DevStruct& s, const T* vals) {
  DevMatrix<T> d{};
  d.implicit = m.implicit ? 1 : 0;
  d.k = m.k;
  if (m.implicit) {
    upload(s.off, m.offsets, m.k);
    d.off = s.off.as<std::uint32_t>();
  } else {
    upload(s.ptr, m.ptr, std::size_t(n) + 1);
    upload(s.idx, m.idx, m.ptr[n]);
    d.ptr = s.ptr.as<std::uint64_t>();
    d.idx = s.idx.as<std::uint32_t>();
  }
  d.val = vals;
  d.hs = m.hs;
  d.is = m.is;
  d.ks = m.ks;
  return d;
}

std::uint64_t value_count(const SolveMatrix& m, std::uint32_t n, std::uint32_t heads) {
  // the largest index touched + 1
  if (m.implicit) {
    if (m.k == 0) return 0;
    return std::uint64_t(heads - 1) * m.hs + std::uint64_t(n - 1) * m.is + std::uint64_t(m.k - 1) * m.ks + 1;
  }
  const std::uint64_t nnz = m.ptr[n];
  if (nnz == 0) return 0;
  return std::uint64_t(heads - 1) * m.hs + (nnz - 1) * m.is + 1;
}

// Which kernel runs and its workspace. Built once per problem (host structure in hand), launched many times.
template <class T>
struct Plan {
  bool scan = false;
  std::string name;
  // pipeline
  unsigned grid = 0;            // CTAs per launch (solver CTAs + gather CTAs), all co-resident
  std::uint32_t tiles_per = 0;  // solver CTAs (tiles) per launch
  std::uint32_t ntiles = 0;
  std::size_t smem = 0;
  DevBuf vring, flags;  // flags: progress[tiles_per] then err
  DevBuf prof;          // SolveOptions::profile
  // scan
  DevBuf pm, qm, carry;
  // blockinv
  bool bi = false;
  bi::Params bq;
  DevBuf bi_pkg, bi_err;  // bi_err: [0] list overflow, [1] split-mode stall
  DevBuf bi_flags;        // split mode: progress [ntiles], fready [nchunks]
  std::uint32_t bi_nflags = 0;
  std::uint32_t bi_kin = 0, bi_ku = 4;  // bi_build: longest in-chunk read list, reads loaded ahead (build_ku)
  std::size_t bi_build_smem = 0;
  bool bi_ws = false;  // the warp-specialized solve (bi_solve_ws) where it applies
  cudaEvent_t bi_ev[3] = {nullptr, nullptr, nullptr};  // SolveOptions::profile: start, built, solved
  void (*bi_launch)(Plan&, const DevProblem<T>&, cudaStream_t) = nullptr;
  std::string explain;  // what the planner chose and why (SolveRun::plan)
};

bool first_order(const SolveMatrix& a, const SolveMatrix& b) {
  return a.implicit && b.implicit && b.k == 1 && b.offsets[0] == 1;
}

// The driver's tensor-map encoder, through the runtime (no link to libcuda); null if the driver lacks it.
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 enc = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      f = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return enc;
}
// A 2-D tensor map over the n x d row-major matrix at p, boxes of W columns x C rows (bi_solve's staged
// rows); false when there is no encoder or it refuses (the caller then stages with cp.async).
template <class T>
bool tensor_map(CUtensorMap& m, const T* p, std::uint32_t n, std::uint32_t d, std::uint32_t W,
                std::uint32_t C) {
  const PFN_cuTensorMapEncodeTiled_v12000 enc = tensor_map_encoder();
  if (!enc || (reinterpret_cast<std::uintptr_t>(p) & 15u) || (std::size_t(d) * sizeof(T)) % 16) return false;
  const cuuint64_t dims[2] = {d, n}, strides[1] = {cuuint64_t(d) * sizeof(T)};
  const cuuint32_t box[2] = {W, C}, estr[2] = {1, 1};
  return enc(&m, sizeof(T) == 8 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2,
             const_cast<T*>(p), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// bi_build's instance for ku reads loaded ahead per row (bi::build_ku)
template <class T, int C, bool IMP>
auto bi_build_kernel(std::uint32_t ku) {
  return ku <= 4   ? bi::bi_build<T, C, IMP, 4>
         : ku == 5 ? bi::bi_build<T, C, IMP, 5>
         : ku == 6 ? bi::bi_build<T, C, IMP, 6>
         : ku == 7 ? bi::bi_build<T, C, IMP, 7>
                   : bi::bi_build<T, C, IMP, 8>;
}

// gpu-blockinv launch: packages (coefficients only), then the solve.
template <class T, int C, bool IMP>
void bi_launch(Plan<T>& pl, const DevProblem<T>& P, cudaStream_t st) {
  bi::Params q = pl.bq;
  CUtensorMap tmx{}, tmy{};
  if (q.tma)
    q.tma = tensor_map(tmx, P.x, P.n, P.d, bi::kW<T>, C) && tensor_map(tmy, P.y, P.n, P.d, bi::kW<T>, C);
  MG_CUDA(cudaMemsetAsync(pl.bq.err, 0, 2 * sizeof(std::uint32_t), st), "memset");
  if (pl.bq.split)
    MG_CUDA(cudaMemsetAsync(pl.bi_flags.p, 0, pl.bi_nflags * sizeof(std::uint32_t), st), "memset");
  if (pl.bi_ev[0]) MG_CUDA(cudaEventRecord(pl.bi_ev[0], st), "event");
  if (pl.bq.a_prepass && !pl.bq.split) bi::bi_ax<T><<<4 * num_sms(), 256, 0, st>>>(P);
  bi_build_kernel<T, C, IMP>(pl.bi_ku)<<<P.nchunks * q.heads, C, pl.bi_build_smem, st>>>(P, q, pl.bi_kin);
  MG_CUDA(cudaGetLastError(), "blockinv build launch");
  if (pl.bi_ev[1]) MG_CUDA(cudaEventRecord(pl.bi_ev[1], st), "event");
  if (q.split) {  // tiles and far workers, all co-resident
    DevProblem<T> p = P;
    void* args[] = {&p, &q, &tmx, &tmy};
    MG_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(bi::bi_solve<T, C, bi::kEBufsSplit>),
                                        dim3(pl.ntiles + q.nworkers), dim3(C * bi::kW<T> + bi::kPubThreads),
                                        args, pl.smem, st),
            "blockinv split launch");
  } else {
    if (pl.bi_ws) {
      // its read lists hold no offsets, so bi_solve cannot take a warp-specialized plan's packages
      if (!q.tma)
        throw std::string(
            "internal error: the tensor maps of the warp-specialized solve could not be encoded");
      if constexpr (sizeof(T) == 4)
        (q.prof ? bi::bi_solve_ws<C, true>
                : bi::bi_solve_ws<C, false>)<<<pl.ntiles, bi::ws_threads<C>(), pl.smem, st>>>(P, q, tmx, tmy);
      else
        throw std::string("internal error: a warp-specialized plan that is not fp32");
    } else {
      bi::bi_solve<T, C, bi::kEBufs><<<pl.ntiles, C * bi::kW<T>, pl.smem, st>>>(P, q, tmx, tmy);
    }
    MG_CUDA(cudaGetLastError(), "blockinv solve launch");
  }
  if (pl.bi_ev[2]) MG_CUDA(cudaEventRecord(pl.bi_ev[2], st), "event");
}

// Plans gpu-blockinv with chunks of C rows; false (and why) when the problem does not suit it.
// mode 0: one CTA per tile, reads beyond the ring staged from Y (up to kGCap per row, the rest read
// directly); 1: the same, but only when no row has more than kGCap such reads; 2: split mode (far workers
// compute the reads at offsets >= G = R - C + 1, the tiles only the ring's).
// 3: as 1, and only where the warp-specialized solve applies (fp32, tensor copies throughout)
enum BiMode { kBiPlain = 0, kBiPlainStaged = 1, kBiSplit = 2, kBiPlainWs = 3 };
template <class T, int C>
bool bi_plan(Plan<T>& pl, DevProblem<T>& P, const SolveMatrix& a, const SolveMatrix& b, std::uint32_t heads,
             int mode, const SolveOptions& o, std::string& why) {
  const bool split = mode == kBiSplit;
  constexpr int W = bi::kW<T>;
  const std::uint32_t dh = P.d / heads;
  if (P.d % W != 0) {
    why = "d is not a multiple of the tile width " + std::to_string(W);
    return false;
  }
  if (heads > 1 && dh % W != 0) {
    why = "heads of " + std::to_string(dh) + " columns are narrower than a tile of " + std::to_string(W);
    return false;
  }
  // per row of a chunk: reads of earlier rows outside the chunk (kx; in split mode only those at offsets
  // <= lim = R - C) and inside it (kin)
  auto count_reads = [&](std::uint32_t lim, std::uint32_t& kx, std::uint32_t& kin) {
    kx = 0;
    kin = 0;
    if (b.implicit) {
      for (std::uint32_t k = 0; k < b.k; ++k) {
        const std::uint32_t o = b.offsets[k];
        if (o == 0 || o > lim) continue;
        ++kx;                                       // row 0 of a chunk reads every offset outside the chunk
        if (o < std::uint32_t(C) && o != 1) ++kin;  // (bi_build keeps the read of row q - 1 in a register)
      }
    } else {
      for (std::uint32_t i = 0; i < P.n; ++i) {
        std::uint32_t in = 0, out = 0;
        for (std::uint64_t e = b.ptr[i]; e < b.ptr[i + 1]; ++e) {
          if (b.idx[e] >= i || i - b.idx[e] > lim) continue;
          const std::uint64_t o = i - b.idx[e];
          if (o > i % C)
            ++out;
          else if (o != 1)  // (bi_build keeps the read of row q - 1 in a register)
            ++in;
        }
        kx = std::max(kx, out);
        kin = std::max(kin, in);
      }
    }
    kx = std::max<std::uint32_t>(kx, 1);
    kin = std::max<std::uint32_t>(kin, 1);
  };
  const std::uint32_t nsm = std::uint32_t(num_sms()), ntiles = (P.d + W - 1) / W;
  if (split && ntiles > nsm / 2) {
    why = "split mode needs half the multiprocessors for far workers (" + std::to_string(ntiles) + " tiles)";
    return false;
  }
  std::uint32_t kx = 0, kin = 0;
  count_reads(~0u, kx, kin);
  if (kx > 1023 && !split) {
    why = "more than 1023 reads per row";
    return false;
  }
  int dev = 0, optin = 0;
  cudaGetDevice(&dev);
  MG_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "attribute");
  // fp32: L^{-1} in mma fragment order, products by 3xTF32 tensor-core instructions (benchmarks.md, GPU v10);
  // SolveOptions::mma = false keeps the padded rows and the FMA product
  const bool mma = sizeof(T) == 4 && o.mma;
  const std::size_t lbuf = bi::linv_bytes<T, C>();  // one L^{-1} buffer of bi_solve (either layout)
  const std::size_t lb = mma ? bi::linv_frag_bytes<C>() : bi::linv_rows_bytes<T, C>();  // in a package
  // the warp-specialized solve (mode kBiPlainWs; benchmarks.md, GPU v10): fp32 implicit B, its own buffer
  // counts and far threads, read lists without offsets. SolveOptions::ws = false keeps bi_solve
  const bool wsl = mode == kBiPlainWs;
  if (wsl && !(sizeof(T) == 4 && mma && b.implicit && !split && o.ws)) {
    why = "the warp-specialized solve does not apply";
    return false;
  }
  const int ebufs = wsl ? bi::kEBufsWs : split ? bi::kEBufsSplit : bi::kEBufs;
  const int gbufs = wsl ? bi::kGBufsWs : bi::kGBufs, parts = wsl ? bi::kWsParts : bi::kParts;
  // reads per row at offsets > R - C ("global": staged from Y), capped at kGCap (the rest are read directly)
  auto global_reads = [&](std::uint32_t R) {
    std::uint32_t g = 0;
    if (b.implicit) {
      for (std::uint32_t k = 0; k < b.k; ++k) g += b.offsets[k] > R - C ? 1 : 0;
    } else {
      for (std::uint32_t i = 0; i < P.n; ++i) {
        std::uint32_t m = 0;
        for (std::uint64_t e = b.ptr[i]; e < b.ptr[i + 1]; ++e)
          m += (b.idx[e] < i && i - b.idx[e] > R - C) ? 1 : 0;
        g = std::max(g, m);
      }
    }
    return g;
  };
  auto smem_for = [&](std::uint32_t R, std::uint32_t gx) {
    if (split) count_reads(R - C, kx, kin);
    const std::size_t gb = bi::round128(std::uint32_t(((gx + 1) * C * W + C) * sizeof(T)));
    return std::size_t(R) * W * sizeof(T) + bi::kLBufs * lbuf + ebufs * bi::e_bytes<T, C>(kx, wsl) +
           256 /* ring, gbuf: 128-byte alignment */ + gbufs * gb +
           std::size_t(2) * parts * C * W * sizeof(T) + std::size_t(W) * bi::kLD<C> * sizeof(T) +
           (bi::kLBufs + ebufs + gbufs + 2 * bi::kWsK) * sizeof(std::uint64_t) +
           (wsl ? std::size_t(std::min<std::uint32_t>(b.k, C + kx)) * 4 : 0);  // bi_solve_ws: B's offsets
  };
  auto staged_for = [&](std::uint32_t R) { return split ? 0u : std::min(global_reads(R), bi::kGCap); };
  std::uint32_t R = 4096;
  if (o.ring) R = o.ring;  // a cap (tests: rings of a few chunks)
  // R >= 8 C: rows staged three chunks ahead are at offsets > R - C and must be final by then. Split mode:
  // R >= 16 C, so that a far worker's chunk needs only rows published before a tile waits for it.
  const std::uint32_t rmin = (split ? 16u : 8u) * C;
  // (dynamic shared memory plus bi_solve's few static bytes must fit the opt-in limit)
  const std::size_t dyn_max = std::size_t(optin) - bi::kStaticSmem;
  while (R >= rmin && (R & (R - 1)) == 0 && smem_for(R, staged_for(R)) > dyn_max) R /= 2;
  if (R < rmin || (R & (R - 1)) != 0 || kx > 1023) {
    why = "the read lists (" + std::to_string(kx) + " per row) leave no room for the shared-memory ring";
    return false;
  }
  smem_for(R, 0);  // kx, kin of this R
  if ((mode == kBiPlainStaged || mode == kBiPlainWs) && global_reads(R) > bi::kGCap) {
    why = "more than " + std::to_string(bi::kGCap) + " reads per row beyond the ring (" +
          std::to_string(global_reads(R)) + ")";
    return false;
  }
  const std::uint32_t gx = staged_for(R);
  const std::size_t eb = bi::e_bytes<T, C>(kx, wsl), smem = smem_for(R, gx);
  // implicit B with every read beyond the ring staged: staged rows by tensor copies (bi_launch checks that
  // the driver encodes the maps), and Y by tensor stores too (benchmarks.md, GPU v8: 1-1.5% faster than
  // per-thread stores; in bi_solve_ws 0.7% faster on the bandwidth case but 9% slower at n = 65536, d = 256,
  // GPU v12); SolveOptions::tma / ytma = false turn them off
  const bool tma_ok = !split && b.implicit && gx == global_reads(R) && tensor_map_encoder() && o.tma;
  const bool ytma_ok = o.ytma;
  if (wsl && !tma_ok) {  // it stages by tensor copies (Y: a tensor store per chunk, or per-thread stores)
    why = "the warp-specialized solve needs every read beyond the ring staged by tensor copies";
    return false;
  }
  const void* sfn = split ? reinterpret_cast<const void*>(bi::bi_solve<T, C, bi::kEBufsSplit>)
                          : reinterpret_cast<const void*>(bi::bi_solve<T, C, bi::kEBufs>);
  MG_CUDA(cudaFuncSetAttribute(sfn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)), "attribute");
  if (split) {  // the cooperative grid (tiles + one far worker per other multiprocessor) must be resident
    int occ = 0;
    MG_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, sfn, C * W + bi::kPubThreads, smem),
            "occupancy");
    if (occ < 1) {
      why = "split mode: the grid cannot be resident";
      return false;
    }
  }
  const std::uint32_t nch = (P.n + C - 1) / C;
  const std::size_t pkg = lb + eb, total = std::size_t(heads) * nch * pkg;
  std::size_t fr = 0, tot = 0;
  MG_CUDA(cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
  if (total > fr / 2) {
    why = "the chunk inverses need " + std::to_string(total >> 20) + " MiB";
    return false;
  }
  pl.bi = true;
  P.nchunks = nch;
  pl.bi_pkg = DevBuf(total);
  pl.bi_err = DevBuf(2 * sizeof(std::uint32_t));
  pl.bq.pkg = pl.bi_pkg.template as<unsigned char>();
  pl.bq.pkg_bytes = std::uint32_t(pkg);
  pl.bq.linv_bytes = std::uint32_t(lb);
  pl.bq.mma = mma ? 1 : 0;
  // the far sums' rows in swizzled halves (bi::seg_sw); SolveOptions::swz = false keeps column order
  pl.bq.swz = o.swz ? 1 : 0;
  pl.bq.nooff = wsl ? 1 : 0;
  pl.bq.noffs = wsl ? std::min<std::uint32_t>(b.k, C + kx) : 0;
  pl.bq.e_bytes = std::uint32_t(eb);
  pl.bq.kx = kx;
  pl.bq.R = R;
  pl.bq.heads = heads;
  // else A is the diagonal, fused; in split mode the far workers write A X (+ far reads) into Y
  pl.bq.a_prepass = split || !(a.implicit && a.k == 1 && a.offsets[0] == 0);
  // 2 by default: measured (benchmarks.md, GPU v7), TMA with one waiting thread is the fastest
  pl.bq.copy = o.copy;
  if (o.profile) {
    const std::size_t pb = std::size_t((P.d + W - 1) / W) * 16 * sizeof(unsigned long long);
    pl.prof = DevBuf(pb);
    // zeros for roles a kernel does not have (the tensor-copy thread is the issue thread in narrow CTAs)
    MG_CUDA(cudaMemset(pl.prof.p, 0, pb), "memset");
    pl.bq.prof = pl.prof.template as<unsigned long long>();
    for (auto& e : pl.bi_ev) MG_CUDA(cudaEventCreate(&e), "event");  // kept for the process (diagnostics)
  }
  pl.bi_kin = kin;
  pl.bi_ku = bi::build_ku(kin);
  pl.ntiles = ntiles;
  pl.bq.err = pl.bi_err.template as<std::uint32_t>();
  pl.bq.stall = pl.bq.err + 1;
  pl.bq.split = 0;
  if (split) {
    pl.bq.split = R - C + 1;
    pl.bq.ntiles = ntiles;
    pl.bq.nworkers = nsm - ntiles;
    std::uint32_t kf = 0;
    if (b.implicit)
      while (kf < b.k && b.offsets[kf] < pl.bq.split) ++kf;
    pl.bq.kfar = kf;
    // parts per chunk: as many as keep about one segment (row, tile) per worker thread
    const std::uint32_t per_chunk = std::uint32_t(C) * (P.d / W);
    pl.bq.fparts = 1;
    while (pl.bq.fparts * 2 <= std::uint32_t(C) && per_chunk / (pl.bq.fparts * 2) >= std::uint32_t(C * W))
      pl.bq.fparts *= 2;
    pl.bi_nflags = ntiles + nch;
    pl.bi_flags = DevBuf(std::size_t(pl.bi_nflags) * sizeof(std::uint32_t));
    pl.bq.progress = pl.bi_flags.template as<std::uint32_t>();
    pl.bq.fready = pl.bq.progress + ntiles;
  }
  pl.smem = smem;
  pl.bq.gx = gx;
  pl.bq.g_bytes = bi::round128(std::uint32_t(((gx + 1) * C * W + C) * sizeof(T)));
  pl.bq.tma = tma_ok ? 1 : 0;  // (decided above)
  pl.bq.ytma = ytma_ok ? 1 : 0;
  pl.bi_ws = wsl;
  if (pl.bi_ws) {
    if constexpr (sizeof(T) == 4)
      for (const void* f : {reinterpret_cast<const void*>(bi::bi_solve_ws<C, false>),
                            reinterpret_cast<const void*>(bi::bi_solve_ws<C, true>)})
        MG_CUDA(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)), "attribute");
  }
  if (pl.bq.tma) {
    std::uint32_t j = 0;
    for (std::uint32_t k = 0; k < b.k && j < gx; ++k)
      if (b.offsets[k] > R - C) pl.bq.goff[j++] = b.offsets[k];
  }
  pl.bi_build_smem = bi::linv_rows_bytes<T, C>() + eb + bi::build_rd_bytes<T, C>(kin, pl.bi_ku);
  const void* bfn = b.implicit ? reinterpret_cast<const void*>(bi_build_kernel<T, C, true>(pl.bi_ku))
                               : reinterpret_cast<const void*>(bi_build_kernel<T, C, false>(pl.bi_ku));
  MG_CUDA(cudaFuncSetAttribute(bfn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(pl.bi_build_smem)),
          "attribute");
  pl.bi_launch = b.implicit ? bi_launch<T, C, true> : bi_launch<T, C, false>;
  pl.name = std::string("gpu-blockinv-") + (b.implicit ? "implicit" : "csr") + "<" +
            (sizeof(T) == 8 ? "fp64" : "fp32") + (mma ? ",3xtf32" : "") + ",chunk=" + std::to_string(C) +
            ",tile=" + std::to_string(W) + ",ring=" + std::to_string(R) + ",lists=" + std::to_string(kx) +
            ",staged=" + std::to_string(gx) + (pl.bq.tma ? (pl.bq.ytma ? "(tma),Y=tma" : "(tma)") : "") +
            (pl.bi_ws ? ",ws" : "") +
            (split ? ",split=" + std::to_string(pl.bq.split) + ",workers=" + std::to_string(pl.bq.nworkers) +
                         "x" + std::to_string(pl.bq.fparts)
                   : std::string(pl.bq.a_prepass ? ",A=pass" : ",A=diag")) +
            ">";
  return true;
}

template <class T>
void make_plan(Plan<T>& pl, DevProblem<T>& P, const SolveMatrix& a, const SolveMatrix& b, std::uint32_t heads,
               const SolveOptions& o) {
  constexpr std::uint32_t F = ring_rows<T>();
  const bool want_pipeline = o.kernel == SolveOptions::Kernel::Pipeline;
  const std::string prec = sizeof(T) == 8 ? "fp64" : "fp32";
  P.nchunks = (P.n + TC - 1) / TC;
  const bool want_bi = o.kernel == SolveOptions::Kernel::BlockInv;
  if (first_order(a, b) && !want_pipeline && !want_bi) {
    pl.scan = true;
    const std::uint64_t segs = (std::uint64_t(P.n) + kSeg - 1) / kSeg * P.d;
    pl.pm = DevBuf(segs * sizeof(T));
    pl.qm = DevBuf(segs * sizeof(T));
    pl.carry = DevBuf(segs * sizeof(T));
    pl.name = "gpu-scan1<" + prec + ",segment=" + std::to_string(kSeg) + ">";
    pl.explain = "plan: " + pl.name + ": a first-order pattern (B reads only i - 1)";
    return;
  }
  if (want_pipeline) pl.explain = "plan: gpu-pipeline (asked for)";
  if (!want_pipeline) {
    std::string why;
    // chunks of 64 rows, or of 32 when the read lists are too long for 64 (or when asked)
    // the warp-specialized solve first where it applies (one CTA per tile; fp32 implicit patterns whose reads
    // beyond the ring are all staged by tensor copies: pow2 at n = 65536, d = 256 took 1.19 ms against 1.52
    // in split mode, benchmarks.md GPU v10), then split mode (it needs at most half the multiprocessors as
    // tiles; the only fit for sq1 at n = 65536), then one CTA per tile with staged reads, then with direct
    // reads too.
    // SolveOptions::split On / Off forces split mode on / off
    auto try_c = [&](auto plan) {
      if (o.split == SolveOptions::Split::On) return plan(kBiSplit);
      if (o.split == SolveOptions::Split::Off) return plan(kBiPlainWs) || plan(kBiPlain);
      return plan(kBiPlainWs) || plan(kBiSplit) || plan(kBiPlainStaged) || plan(kBiPlain);
    };
    // every rejected (chunk, mode) and why, then the plan taken
    std::string tried;
    auto attempt = [&](int chunk, int mode, bool ok) {
      static const char* const kModes[] = {"one CTA per tile", "one CTA per tile, staged reads", "split",
                                           "warp-specialized"};
      if (!ok) tried += "; chunk " + std::to_string(chunk) + ", " + kModes[mode] + ": " + why;
      return ok;
    };
    const bool ok =
        (o.chunk != 32 && try_c([&](int mode) {
           return attempt(64, mode, bi_plan<T, 64>(pl, P, a, b, heads, mode, o, why));
         })) ||
        try_c([&](int mode) { return attempt(32, mode, bi_plan<T, 32>(pl, P, a, b, heads, mode, o, why)); });
    if (ok) {
      pl.explain = "plan: " + pl.name + (tried.empty() ? "" : " (not taken" + tried + ")");
      return;
    }
    pl.explain = "plan: not blockinv: " + why + " (tried" + tried.substr(1) + ")";
  }
  // offset classes of B
  std::uint32_t far_terms = 0;  // per row, on average: A's reads + B's reads at offsets >= F
  if (b.implicit) {
    auto count_lt = [&](std::uint32_t lim) {
      std::uint32_t c = 0;
      while (c < b.k && b.offsets[c] < lim) ++c;
      return c;
    };
    P.k_band = count_lt(KB);
    P.k_near = count_lt(NEAR);
    P.k_mid = count_lt(F);
    for (int k = 0; k < KB; ++k) P.band_idx[k] = -1;
    for (std::uint32_t k = 0; k < P.k_band; ++k) P.band_idx[b.offsets[k]] = int(k);
    P.band_mask = 0;
    for (std::uint32_t k = 0; k < P.k_band; ++k) P.band_mask |= 1u << b.offsets[k];
    P.nm = P.k_near - P.k_band;
    P.mm = P.k_mid - P.k_near;
    far_terms = (b.k - P.k_mid) + a.k;
  } else {
    std::uint32_t nm = 0, mm = 0;
    std::uint64_t far = 0;
    P.band_mask = 0;
    for (std::uint32_t i = 0; i < P.n; ++i) {
      std::uint32_t m = 0, m2 = 0;
      for (std::uint64_t e = b.ptr[i]; e < b.ptr[i + 1]; ++e) {
        const std::uint32_t o = i - b.idx[e];
        if (o >= F)
          ++far;
        else if (o >= std::uint32_t(NEAR))
          ++m2;
        else if (o >= std::uint32_t(KB))
          ++m;
        else
          P.band_mask |= 1u << o;
      }
      nm = std::max(nm, m);
      mm = std::max(mm, m2);
    }
    P.nm = nm;
    P.mm = mm;
    far_terms = std::uint32_t((far + a.ptr[P.n]) / std::max<std::uint32_t>(1, P.n));
  }
  const std::uint32_t dh = P.d / heads;
  P.staged = (heads == 1 || dh % TW == 0) && P.nm <= std::uint32_t(NMMAX) && P.mm <= std::uint32_t(MIDMAX);
  P.pkg_bytes = pkg_layout(sizeof(T), P.nm, P.mm, P.staged != 0).bytes;
  constexpr std::uint32_t VWMAX = 16 / sizeof(T);
  P.vw = P.d % VWMAX == 0 ? VWMAX : 1;
  P.tpo = 1;
  while (P.tpo < 16 && P.tpo * 6 < far_terms) P.tpo *= 2;
  const std::uint32_t vpr = TW / P.vw;
  P.ng = std::max<std::uint32_t>(1, TC * vpr * P.tpo / kThreads);
  P.tpo = P.ng * kThreads / (TC * vpr);  // exact split of the 512 threads
  pl.ntiles = (P.d + TW - 1) / TW;
  pl.smem = solver_smem_bytes<T>();
  const bool imp = b.implicit;
  const void* fn = imp ? reinterpret_cast<const void*>(pipeline_solve<T, true>)
                       : reinterpret_cast<const void*>(pipeline_solve<T, false>);
  MG_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(pl.smem)),
          "cudaFuncSetAttribute");
  int occ = 0;
  MG_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, fn, kThreads, pl.smem), "occupancy");
  const unsigned resident = unsigned(std::max(occ, 1) * num_sms());
  if (resident < 2) throw std::string("the pipeline kernel needs two co-resident blocks");
  pl.tiles_per = std::min<std::uint32_t>(pl.ntiles, std::max(1u, resident / 2));
  if (pl.tiles_per > 128) pl.tiles_per = 128;  // gather CTAs cache progress for at most 128 tiles
  pl.grid = resident;
  pl.vring = DevBuf(std::size_t(pl.tiles_per) * (F / TC) * P.pkg_bytes);
  pl.flags = DevBuf((pl.tiles_per + 1) * sizeof(std::uint32_t));
  P.vring = pl.vring.template as<unsigned char>();
  P.prof = nullptr;
  if (o.profile) {
    pl.prof = DevBuf(std::size_t(kMaxTiles + pl.grid) * 8 * sizeof(unsigned long long));
    P.prof = pl.prof.template as<unsigned long long>();
  }
  P.progress = pl.flags.template as<std::uint32_t>();
  P.err = P.progress + pl.tiles_per;
  pl.name = std::string("gpu-pipeline-") + (imp ? "implicit" : "csr") + "<" + prec +
            (P.staged ? ",staged" : ",direct") + ",tile=32,chunk=64,far>=" + std::to_string(F) +
            ",gather-ctas=" + std::to_string(pl.grid - pl.tiles_per) + ",tpo=" + std::to_string(P.tpo) + ">";
  char buf[160];
  std::snprintf(buf, sizeof buf,
                ": nm=%u mm=%u k_band=%u k_near=%u k_mid=%u pkg=%u B ng=%u vw=%u tiles/launch=%u", P.nm, P.mm,
                P.k_band, P.k_near, P.k_mid, P.pkg_bytes, P.ng, P.vw, pl.tiles_per);
  pl.explain += (pl.explain.empty() ? "plan: " : "; ") + pl.name + buf;
}

// One solve, X to Y (stream-ordered). Throws on a launch error or a pipeline stall.
template <class T>
void run_plan(Plan<T>& pl, DevProblem<T> P, cudaStream_t st) {
  if (pl.bi) {
    pl.bi_launch(pl, P, st);
    return;
  }
  if (pl.scan) {
    const std::uint64_t segs = (std::uint64_t(P.n) + kSeg - 1) / kSeg * P.d;
    const unsigned bl = unsigned((segs + 255) / 256);
    scan_maps<T><<<bl, 256, 0, st>>>(P, pl.pm.template as<T>(), pl.qm.template as<T>());
    scan_carry<T><<<(P.d + 127) / 128, 128, 0, st>>>(P, pl.pm.template as<T>(), pl.qm.template as<T>(),
                                                     pl.carry.template as<T>());
    scan_apply<T><<<bl, 256, 0, st>>>(P, pl.carry.template as<T>());
    MG_CUDA(cudaGetLastError(), "scan launch");
    return;
  }
  const void* fn = P.b.implicit ? reinterpret_cast<const void*>(pipeline_solve<T, true>)
                                : reinterpret_cast<const void*>(pipeline_solve<T, false>);
  for (std::uint32_t t0 = 0; t0 < pl.ntiles; t0 += pl.tiles_per) {
    P.tile0 = t0;
    P.ntiles = std::min(pl.tiles_per, pl.ntiles - t0);
    MG_CUDA(
        cudaMemsetAsync(pl.vring.p, 0xff, std::size_t(P.ntiles) * (ring_rows<T>() / TC) * P.pkg_bytes, st),
        "memset");
    MG_CUDA(cudaMemsetAsync(pl.flags.p, 0, (pl.tiles_per + 1) * sizeof(std::uint32_t), st), "memset");
    if (P.prof)
      MG_CUDA(
          cudaMemsetAsync(P.prof, 0, std::size_t(kMaxTiles + pl.grid) * 8 * sizeof(unsigned long long), st),
          "memset");
    void* args[] = {&P};
    MG_CUDA(cudaLaunchCooperativeKernel(fn, dim3(pl.grid), dim3(kThreads), args, pl.smem, st),
            "pipeline launch");
  }
}

template <class T>
void check_plan(Plan<T>& pl) {
  if (pl.scan) return;
  if (pl.bi) {
    std::uint32_t err = 0;
    MG_CUDA(cudaMemcpy(&err, pl.bq.err, sizeof err, cudaMemcpyDeviceToHost), "read status");
    if (err) throw std::string("internal error: a blockinv read list overflowed");
    MG_CUDA(cudaMemcpy(&err, pl.bq.stall, sizeof err, cudaMemcpyDeviceToHost), "read status");
    if (err) throw std::string("internal error: the blockinv split mode stalled (a wait exceeded 20 s)");
    if (pl.prof.p) {  // the last launch's counters, averaged over the CTAs (cycles)
      std::vector<unsigned long long> hp(std::size_t(pl.ntiles) * 16);
      MG_CUDA(cudaMemcpy(hp.data(), pl.prof.p, hp.size() * sizeof(hp[0]), cudaMemcpyDeviceToHost), "prof");
      double v[16] = {0};
      for (std::uint32_t t = 0; t < pl.ntiles; ++t)
        for (int k = 0; k < 16; ++k) v[k] += double(hp[t * 16 + k]) / pl.ntiles / 1e6;
      if (pl.bi_ws) {  // bi_solve_ws: three groups, each phase ends at a mark
        std::fprintf(stderr,
                     "profile (Mcycles per CTA) product: wait F/lists %.3f near %.3f wait L/barrier %.3f "
                     "mma+barrier %.3f\n",
                     v[0], v[1], v[2], v[3]);
        std::fprintf(
            stderr,
            "profile (Mcycles per CTA) far    : wait done %.3f wait lists/staged %.3f far sums %.3f\n", v[4],
            v[5], v[6]);
        std::fprintf(
            stderr,
            "profile (Mcycles per CTA) issue  : wait done %.3f Y store %.3f package copies %.3f wait "
            "F+staging %.3f\n",
            v[8], v[9], v[10], v[11]);
      }
      for (int role = 0; role < (pl.bi_ws ? 0 : 4); ++role)
        std::fprintf(
            stderr,
            "profile (Mcycles per CTA) %-5s: own work %.3f barrier %.3f matvec %.3f wait+barrier %.3f\n",
            role == 0   ? "near"
            : role == 1 ? "far"
            : role == 2 ? "issue"
                        : "tma",
            v[role * 4], v[role * 4 + 1], v[role * 4 + 2], v[role * 4 + 3]);
      float b_ms = 0, s_ms = 0;
      MG_CUDA(cudaEventElapsedTime(&b_ms, pl.bi_ev[0], pl.bi_ev[1]), "event");
      MG_CUDA(cudaEventElapsedTime(&s_ms, pl.bi_ev[1], pl.bi_ev[2]), "event");
      std::fprintf(stderr,
                   "profile: A X + packages %.3f ms, solve %.3f ms (last launch, timed with counters on)\n",
                   b_ms, s_ms);
    }
    return;
  }
  if (pl.prof.p) {  // the last launch's counters, averaged (cycles)
    std::vector<unsigned long long> h(std::size_t(kMaxTiles + pl.grid) * 8);
    MG_CUDA(cudaMemcpy(h.data(), pl.prof.p, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost), "prof");
    const std::uint32_t nt = std::min(pl.tiles_per, pl.ntiles);
    double sv[8] = {0};
    for (std::uint32_t t = 0; t < nt; ++t)
      for (int k = 0; k < 5; ++k) sv[k] += double(h[t * 8 + k]) / nt;
    double gv[3] = {0};
    const std::uint32_t ng = pl.grid - pl.tiles_per;
    for (std::uint32_t g = 0; g < ng; ++g)
      for (int k = 0; k < 3; ++k) gv[k] += double(h[(kMaxTiles + g) * 8 + k]) / ng;
    std::fprintf(
        stderr,
        "profile (Mcycles per CTA): solver solve %.3f wait %.3f | helpers consume %.3f prefetch %.3f "
        "wait %.3f | gather progress-wait %.3f compute %.3f items %.1f\n",
        sv[0] / 1e6, sv[1] / 1e6, sv[2] / 1e6, sv[3] / 1e6, sv[4] / 1e6, gv[0] / 1e6, gv[1] / 1e6, gv[2]);
  }
  std::uint32_t err = 0;
  MG_CUDA(cudaMemcpy(&err, pl.flags.template as<std::uint32_t>() + pl.tiles_per, sizeof err,
                     cudaMemcpyDeviceToHost),
          "read status");
  if (err) throw std::string("internal error: the pipeline kernel stalled (a wait exceeded 20 s)");
}

template <class T>
SolveRun solve_t(const SolveProblem& p, const void* x, void* y, const SolveOptions& o) {
  SolveRun r;
  const std::uint64_t nd = std::uint64_t(p.n) * p.d;
  DevStruct sa, sb;
  DevBuf va, vb, dx(nd * sizeof(T)), dy(nd * sizeof(T));
  cudaEvent_t e0, e1, e2, e3;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventCreate(&e2);
  cudaEventCreate(&e3);
  cudaEventRecord(e0);
  upload(va, static_cast<const T*>(p.a.vals), value_count(p.a, p.n, p.heads));
  upload(vb, static_cast<const T*>(p.b.vals), value_count(p.b, p.n, p.heads));
  MG_CUDA(cudaMemcpy(dx.p, x, nd * sizeof(T), cudaMemcpyHostToDevice), "upload X");
  DevProblem<T> P{};
  P.n = p.n;
  P.d = p.d;
  P.dh = p.d / p.heads;
  P.a = dev_matrix<T>(p.a, p.n, sa, va.as<T>());
  P.b = dev_matrix<T>(p.b, p.n, sb, vb.as<T>());
  P.x = dx.as<T>();
  P.y = dy.as<T>();
  Plan<T> plan;
  make_plan(plan, P, p.a, p.b, p.heads, o);
  r.plan = plan.explain;
  if (o.verbose) std::fprintf(stderr, "%s\n", plan.explain.c_str());
  cudaEventRecord(e1);
  run_plan(plan, P, nullptr);
  r.kernel = plan.name;
  cudaEventRecord(e2);
  MG_CUDA(cudaMemcpy(y, dy.p, nd * sizeof(T), cudaMemcpyDeviceToHost), "download Y");
  cudaEventRecord(e3);
  MG_CUDA(cudaEventSynchronize(e3), "synchronize");
  check_plan(plan);
  float k_ms = 0, t_ms = 0;
  cudaEventElapsedTime(&k_ms, e1, e2);
  cudaEventElapsedTime(&t_ms, e0, e3);
  r.kernel_ms = k_ms;
  r.total_ms = t_ms;
  r.ran = true;
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaEventDestroy(e2);
  cudaEventDestroy(e3);
  return r;
}

template <class T>
BenchResult bench_t(const BenchSpec& s) {
  BenchResult res;
  const std::uint64_t nd = std::uint64_t(s.n) * s.d;
  const bool implicit = s.ptr.empty();
  DevBuf dx(nd * sizeof(T)), dy(nd * sizeof(T));
  DevStruct sa, sb;
  std::vector<std::uint32_t> a_off;
  std::vector<std::uint64_t> a_ptr;
  std::vector<std::uint32_t> a_idx;
  SolveMatrix A, B;
  B.implicit = implicit;
  std::uint32_t kmax = 1;
  if (implicit) {
    B.offsets = s.offsets.data();
    B.k = std::uint32_t(s.offsets.size());
    kmax = std::max<std::uint32_t>(1, B.k);
    // [k][i][h]
    B.hs = 1;
    B.is = s.heads;
    B.ks = std::uint64_t(s.n) * s.heads;
    a_off.push_back(0);
    if (!s.a_diagonal) a_off.insert(a_off.end(), s.offsets.begin(), s.offsets.end());
    A.implicit = true;
    A.offsets = a_off.data();
    A.k = std::uint32_t(a_off.size());
    A.hs = 1;
    A.is = s.heads;
    A.ks = std::uint64_t(s.n) * s.heads;
  } else {
    B.ptr = s.ptr.data();
    B.idx = s.idx.data();
    B.hs = 1;
    B.is = s.heads;
    for (std::uint32_t i = 0; i < s.n; ++i)
      kmax = std::max<std::uint32_t>(kmax, std::uint32_t(s.ptr[i + 1] - s.ptr[i]));
    A.implicit = false;
    a_ptr.assign(std::size_t(s.n) + 1, 0);
    for (std::uint32_t i = 0; i < s.n; ++i) {
      if (!s.a_diagonal)
        for (std::uint64_t e = s.ptr[i]; e < s.ptr[i + 1]; ++e) a_idx.push_back(s.idx[e]);
      a_idx.push_back(i);
      a_ptr[i + 1] = a_idx.size();
    }
    A.ptr = a_ptr.data();
    A.idx = a_idx.data();
    A.hs = 1;
    A.is = s.heads;
  }
  const std::uint64_t na = value_count(A, s.n, s.heads), nb = value_count(B, s.n, s.heads);
  DevBuf va(na * sizeof(T)), vb(nb * sizeof(T));
  fill_random<T><<<1024, 256>>>(dx.as<T>(), nd, s.seed, 11, 0, 1.0);
  fill_random<T><<<1024, 256>>>(va.as<T>(), na, s.seed, 12, 2, s.a_diagonal ? 1.0 : 1.0 / (kmax + 1));
  if (nb) fill_random<T><<<1024, 256>>>(vb.as<T>(), nb, s.seed, 13, 1, 0.9 / kmax);
  MG_CUDA(cudaGetLastError(), "fill_random");
  DevProblem<T> P{};
  P.n = s.n;
  P.d = s.d;
  P.dh = s.d / s.heads;
  P.a = dev_matrix<T>(A, s.n, sa, va.as<T>());
  P.b = dev_matrix<T>(B, s.n, sb, vb.as<T>());
  P.x = dx.as<T>();
  P.y = dy.as<T>();
  Plan<T> plan;
  make_plan(plan, P, A, B, s.heads, s.options);
  res.plan = plan.explain;
  if (s.options.verbose) std::fprintf(stderr, "%s\n", plan.explain.c_str());
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> ts, cs;
  res.kernel = plan.name;
  run_plan(plan, P, nullptr);  // warm-up
  MG_CUDA(cudaDeviceSynchronize(), "warm-up");
  for (int k = 0; k < std::max(1, s.reps); ++k) {
    cudaEventRecord(e0);
    run_plan(plan, P, nullptr);
    cudaEventRecord(e1);
    MG_CUDA(cudaEventSynchronize(e1), "solve");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    ts.push_back(ms);
  }
  for (int k = 0; k < std::max(3, s.reps); ++k) {
    cudaEventRecord(e0);
    cudaMemcpyAsync(dy.p, dx.p, nd * sizeof(T), cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    MG_CUDA(cudaEventSynchronize(e1), "copy");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cs.push_back(ms);
  }
  // the solve once more (the copy overwrote Y), with the clock probe beside it on a second stream
  {
    cudaStream_t s1, s2;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    DevBuf probe(2 * sizeof(double));
    clock_probe<<<1, 1, 0, s2>>>(probe.as<double>());  // idle-ish clock
    MG_CUDA(cudaStreamSynchronize(s2), "probe");
    run_plan(plan, P, s1);
    clock_probe<<<1, 1, 0, s2>>>(probe.as<double>() + 1);
    MG_CUDA(cudaDeviceSynchronize(), "solve");
    double mhz[2] = {0, 0};
    MG_CUDA(cudaMemcpy(mhz, probe.p, sizeof mhz, cudaMemcpyDeviceToHost), "probe");
    res.sm_mhz_idle = mhz[0];
    res.sm_mhz_during = mhz[1];
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
  }
  check_plan(plan);
  std::sort(ts.begin(), ts.end());
  std::sort(cs.begin(), cs.end());
  res.ms = ts[ts.size() / 2];
  res.ms_min = ts[0];
  res.copy_ms = cs[cs.size() / 2];
  if (s.check_cols > 0) {
    const std::uint32_t cols = std::min(s.check_cols, s.d);
    DevBuf ref(std::uint64_t(s.n) * cols * sizeof(double));
    cudaEventRecord(e0);
    naive_solve<T><<<(cols + 31) / 32, 32>>>(P, cols, ref.as<double>());
    cudaEventRecord(e1);
    MG_CUDA(cudaEventSynchronize(e1), "naive");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    res.naive_ms = ms;
    std::vector<double> hr(std::uint64_t(s.n) * cols);
    std::vector<T> hy(nd);
    MG_CUDA(cudaMemcpy(hr.data(), ref.p, hr.size() * sizeof(double), cudaMemcpyDeviceToHost), "download");
    MG_CUDA(cudaMemcpy(hy.data(), dy.p, nd * sizeof(T), cudaMemcpyDeviceToHost), "download");
    double num = 0, den = 0;
    for (std::uint64_t i = 0; i < s.n; ++i)
      for (std::uint32_t c = 0; c < cols; ++c) {
        const double a = double(hy[i * s.d + c]), b = hr[i * cols + c];
        num += (a - b) * (a - b);
        den += b * b;
      }
    res.check_relerr = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  res.ran = true;
  return res;
}

std::string no_device_note() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
  if (count == 0) return "no CUDA device is visible";
  return "";
}

}  // namespace

SolveRun solve(const SolveProblem& p, const void* x, void* y, const SolveOptions& options) {
  SolveRun r;
  r.note = no_device_note();
  if (!r.note.empty()) return r;
  if (p.n == 0 || p.d == 0 || p.heads == 0 || p.d % p.heads != 0) {
    r.note = "bad problem: n, d must be positive and d a multiple of heads";
    return r;
  }
  try {
    return p.fp64 ? solve_t<double>(p, x, y, options) : solve_t<float>(p, x, y, options);
  } catch (const std::string& e) {
    r.note = e;
    return r;
  }
}

BenchResult bench_solve(const BenchSpec& s) {
  BenchResult r;
  r.note = no_device_note();
  if (!r.note.empty()) return r;
  try {
    return s.fp64 ? bench_t<double>(s) : bench_t<float>(s);
  } catch (const std::string& e) {
    r.note = e;
    return r;
  }
}

}  // namespace mixgraph::gpu
