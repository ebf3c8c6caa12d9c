#pragma once
// Shared by every kernel family of the solve: the device problem (DevProblem, DevMatrix), the
// pipeline's tile and chunk constants and package layout, coefficient access, memory-model
// helpers (acquire / release, spin_until with a stall timeout), sentinels and vector loads.
#include <cuda.h>  // CUtensorMap (the encoder is taken from the runtime: no link to libcuda)
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

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

}  // namespace
}  // namespace mixgraph::gpu
