// gpu-gated-scan: per-channel gated first-order recurrences, forward and adjoint (gpu_gated_scan.hpp), as
// three passes over segments of rows: (1) each segment's affine map from the value entering it to the
// value leaving it, (2) per column, the value entering each segment, (3) a replay of each segment that
// writes the outputs (the adjoint's gradients in the same pass). The adjoint walks the rows backwards in
// place. A thread owns V adjacent columns (16-byte loads where d and the pointers allow) and one segment.
// gated_scan_reference.cpp is the same three passes on the host.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "gated_scan_args.hpp"
#include "mixgraph/gpu_gated_scan.hpp"

namespace mixgraph::gpu {
namespace {

template <class T, int V>
__device__ __forceinline__ void ldv(const T* __restrict__ p, T (&r)[V]) {
  if constexpr (V == 4) {
    static_assert(std::is_same_v<T, float>);
    const float4 a = __ldg(reinterpret_cast<const float4*>(p));
    r[0] = a.x, r[1] = a.y, r[2] = a.z, r[3] = a.w;
  } else if constexpr (V == 2) {
    static_assert(std::is_same_v<T, double>);
    const double2 a = __ldg(reinterpret_cast<const double2*>(p));
    r[0] = a.x, r[1] = a.y;
  } else {
    r[0] = __ldg(p);
  }
}
template <class T, int V>
__device__ __forceinline__ void stv(T* __restrict__ p, const T (&r)[V]) {
  if constexpr (V == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(r[0], r[1], r[2], r[3]);
  } else if constexpr (V == 2) {
    *reinterpret_cast<double2*>(p) = make_double2(r[0], r[1]);
  } else {
    *p = r[0];
  }
}

template <class T, int V>
__device__ __forceinline__ void fill(T (&r)[V], T v) {
#pragma unroll
  for (int j = 0; j < V; ++j) r[j] = v;
}

// A segment's affine map v -> p v + q (from the identity p = 1, q = 0): its store into the workspace.
template <class T, int V>
__device__ __forceinline__ void store_map(T* __restrict__ P, T* __restrict__ Q, std::uint64_t map,
                                          const T (&p)[V], const T (&q)[V]) {
  stv<T, V>(P + map, p);
  stv<T, V>(Q + map, q);
}

struct Geo {
  std::uint32_t batch, n, d, seg, nseg, dv;  // dv = d / V column groups
};

// One thread: segment sg (batch b, index s) and column group cv; false past the end.
struct Cell {
  std::uint32_t b, s, i0, i1;
  std::uint64_t col, map;  // first column; its entry in the workspace
};
__device__ __forceinline__ bool cell(const Geo& G, int V, Cell& c) {
  const std::uint64_t t = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  if (t >= std::uint64_t(G.batch) * G.nseg * G.dv) return false;
  const std::uint64_t sg = t / G.dv;
  c.col = (t % G.dv) * V;
  c.b = std::uint32_t(sg / G.nseg);
  c.s = std::uint32_t(sg % G.nseg);
  c.i0 = c.s * G.seg;
  c.i1 = min(G.n, c.i0 + G.seg);
  c.map = sg * G.d + c.col;
  return true;
}
__device__ __forceinline__ std::uint64_t at(const Geo& G, std::uint32_t b, std::uint32_t t,
                                            std::uint64_t col) {
  return (std::uint64_t(b) * G.n + t) * G.d + col;
}

// ---- forward: y[t] = g[t] y[t-1] + u[t] x[t] ----
// Row t's inputs at element k: g[t], x[t] and (U) u[t].
template <class T, int V, bool U>
__device__ __forceinline__ void fwd_inputs(const T* __restrict__ x, const T* __restrict__ g,
                                           const T* __restrict__ u, std::uint64_t k, T (&gv)[V], T (&xv)[V],
                                           T (&uv)[V]) {
  ldv<T, V>(g + k, gv);
  ldv<T, V>(x + k, xv);
  if constexpr (U) ldv<T, V>(u + k, uv);
}
template <class T, int V, bool U>
__global__ void fwd_maps(Geo G, const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ u,
                         T* __restrict__ P, T* __restrict__ Q) {
  Cell c;
  if (!cell(G, V, c)) return;
  T p[V], q[V];  // the identity map
#pragma unroll
  for (int j = 0; j < V; ++j) p[j] = T(1), q[j] = T(0);
#pragma unroll 4
  for (std::uint32_t t = c.i0; t < c.i1; ++t) {
    const std::uint64_t k = at(G, c.b, t, c.col);
    T gv[V], xv[V], uv[V];
    fwd_inputs<T, V, U>(x, g, u, k, gv, xv, uv);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const T bt = t == 0 ? T(0) : gv[j];
      q[j] = fma(bt, q[j], U ? uv[j] * xv[j] : xv[j]);
      p[j] *= bt;
    }
  }
  store_map<T, V>(P, Q, c.map, p, q);
}
template <class T, int V, bool U>
__global__ void fwd_apply(Geo G, const T* __restrict__ x, const T* __restrict__ g, const T* __restrict__ u,
                          const T* __restrict__ carry, T* __restrict__ y) {
  Cell c;
  if (!cell(G, V, c)) return;
  T v[V];
  ldv<T, V>(carry + c.map, v);
#pragma unroll 4
  for (std::uint32_t t = c.i0; t < c.i1; ++t) {
    const std::uint64_t k = at(G, c.b, t, c.col);
    T gv[V], xv[V], uv[V];
    fwd_inputs<T, V, U>(x, g, u, k, gv, xv, uv);
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = fma(t == 0 ? T(0) : gv[j], v[j], U ? uv[j] * xv[j] : xv[j]);
    stv<T, V>(y + k, v);
  }
}

// ---- pass 2: per (batch, column group), the value entering each segment (written over P); REV: last
// segment first (the adjoint) ----
template <class T, int V, bool REV>
__global__ void carries(Geo G, T* __restrict__ P, const T* __restrict__ Q) {
  const std::uint64_t t = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  if (t >= std::uint64_t(G.batch) * G.dv) return;
  const std::uint32_t b = std::uint32_t(t / G.dv);
  const std::uint64_t col = (t % G.dv) * V;
  T v[V];
  fill<T, V>(v, T(0));
  constexpr std::uint32_t kBatch = 16;  // loads of this many segments in flight before the chain uses them
  for (std::uint32_t s0 = 0; s0 < G.nseg; s0 += kBatch) {
    T p[kBatch][V], q[kBatch][V];
    std::uint64_t m[kBatch];
#pragma unroll
    for (std::uint32_t r = 0; r < kBatch; ++r) {
      if (s0 + r >= G.nseg) break;
      const std::uint32_t s = REV ? G.nseg - 1 - (s0 + r) : s0 + r;
      m[r] = (std::uint64_t(b) * G.nseg + s) * G.d + col;
      ldv<T, V>(P + m[r], p[r]);
      ldv<T, V>(Q + m[r], q[r]);
    }
#pragma unroll
    for (std::uint32_t r = 0; r < kBatch; ++r) {
      if (s0 + r >= G.nseg) break;
      stv<T, V>(P + m[r], v);
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = fma(p[r][j], v[j], q[r][j]);
    }
  }
}

// ---- adjoint: z[t] = dy[t] + g[t+1] z[t+1], rows walked backwards ----
// Row t's inputs at element k: g[t+1] (0 past the last row) and dy[t].
template <class T, int V>
__device__ __forceinline__ void bwd_inputs(const Geo& G, const T* __restrict__ dy, const T* __restrict__ g,
                                           std::uint32_t t, std::uint64_t k, T (&gv)[V], T (&dv)[V]) {
  if (t + 1 < G.n) {
    ldv<T, V>(g + k + G.d, gv);
  } else {
    fill<T, V>(gv, T(0));
  }
  ldv<T, V>(dy + k, dv);
}
template <class T, int V>
__global__ void bwd_maps(Geo G, const T* __restrict__ dy, const T* __restrict__ g, T* __restrict__ P,
                         T* __restrict__ Q) {
  Cell c;
  if (!cell(G, V, c)) return;
  T p[V], q[V];  // the identity map
#pragma unroll
  for (int j = 0; j < V; ++j) p[j] = T(1), q[j] = T(0);
#pragma unroll 4
  for (std::uint32_t t = c.i1; t-- > c.i0;) {
    const std::uint64_t k = at(G, c.b, t, c.col);
    T gv[V], dv[V];
    bwd_inputs<T, V>(G, dy, g, t, k, gv, dv);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      q[j] = fma(gv[j], q[j], dv[j]);
      p[j] *= gv[j];
    }
  }
  store_map<T, V>(P, Q, c.map, p, q);
}
template <class T, int V, bool U, bool DX, bool DG, bool DU>
__global__ void bwd_apply(Geo G, const T* __restrict__ dy, const T* __restrict__ g, const T* __restrict__ y,
                          const T* __restrict__ x, const T* __restrict__ u, const T* __restrict__ carry,
                          T* __restrict__ dx, T* __restrict__ dg, T* __restrict__ du) {
  Cell c;
  if (!cell(G, V, c)) return;
  T z[V];
  ldv<T, V>(carry + c.map, z);
#pragma unroll 4
  for (std::uint32_t t = c.i1; t-- > c.i0;) {
    const std::uint64_t k = at(G, c.b, t, c.col);
    T gv[V], dv[V];
    bwd_inputs<T, V>(G, dy, g, t, k, gv, dv);
#pragma unroll
    for (int j = 0; j < V; ++j) z[j] = fma(gv[j], z[j], dv[j]);
    if constexpr (DX) {
      if constexpr (U) {
        T uv[V], o[V];
        ldv<T, V>(u + k, uv);
#pragma unroll
        for (int j = 0; j < V; ++j) o[j] = z[j] * uv[j];
        stv<T, V>(dx + k, o);
      } else {
        stv<T, V>(dx + k, z);
      }
    }
    if constexpr (DG) {
      T o[V];
      if (t > 0) {
        T yv[V];
        ldv<T, V>(y + k - G.d, yv);
#pragma unroll
        for (int j = 0; j < V; ++j) o[j] = z[j] * yv[j];
      } else {
        fill<T, V>(o, T(0));
      }
      stv<T, V>(dg + k, o);
    }
    if constexpr (DU) {
      T xv[V], o[V];
      ldv<T, V>(x + k, xv);
#pragma unroll
      for (int j = 0; j < V; ++j) o[j] = z[j] * xv[j];
      stv<T, V>(du + k, o);
    }
  }
}

constexpr unsigned kThreads = 256;

unsigned blocks(std::uint64_t threads) {
  return unsigned((threads + kThreads - 1) / kThreads);
}

Geo geo(const GatedScan& s, int V) {
  const std::uint32_t seg = gated_scan_segment(s);
  return Geo{s.batch, s.n, s.d, seg, (s.n + seg - 1) / seg, s.d / std::uint32_t(V)};
}

// The carry pass takes one column per thread whatever V the other passes use (more chains in flight).
Geo scalar(Geo G) {
  G.dv = G.d;
  return G;
}

std::string launched(const char* what) {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? "" : std::string("gated scan ") + what + ": " + cudaGetErrorString(e);
}

template <class T, int V, bool U>
std::string forward_v(const GatedScan& s, const GatedScanForward& a, cudaStream_t st) {
  const Geo G = geo(s, V);
  T* P = static_cast<T*>(a.work);
  T* Q = P + gated_scan_workspace(s) / 2;
  const T *x = static_cast<const T*>(a.x), *g = static_cast<const T*>(a.g), *u = static_cast<const T*>(a.u);
  const std::uint64_t cells = std::uint64_t(G.batch) * G.nseg * G.dv;
  fwd_maps<T, V, U><<<blocks(cells), kThreads, 0, st>>>(G, x, g, u, P, Q);
  carries<T, 1, false><<<blocks(std::uint64_t(G.batch) * G.d), kThreads, 0, st>>>(scalar(G), P, Q);
  fwd_apply<T, V, U><<<blocks(cells), kThreads, 0, st>>>(G, x, g, u, P, static_cast<T*>(a.y));
  return launched("forward");
}

template <class T, int V, bool U, bool DX, bool DG, bool DU>
std::string backward_v(const GatedScan& s, const GatedScanBackward& a, cudaStream_t st) {
  const Geo G = geo(s, V);
  T* P = static_cast<T*>(a.work);
  T* Q = P + gated_scan_workspace(s) / 2;
  const T* dy = static_cast<const T*>(a.dy);
  const T* g = static_cast<const T*>(a.g);
  const std::uint64_t cells = std::uint64_t(G.batch) * G.nseg * G.dv;
  bwd_maps<T, V><<<blocks(cells), kThreads, 0, st>>>(G, dy, g, P, Q);
  carries<T, 1, true><<<blocks(std::uint64_t(G.batch) * G.d), kThreads, 0, st>>>(scalar(G), P, Q);
  bwd_apply<T, V, U, DX, DG, DU><<<blocks(cells), kThreads, 0, st>>>(
      G, dy, g, static_cast<const T*>(a.y), static_cast<const T*>(a.x), static_cast<const T*>(a.u), P,
      static_cast<T*>(a.dx), static_cast<T*>(a.dg), static_cast<T*>(a.du));
  return launched("backward");
}

// The widest V the columns and every pointer allow.
template <class T>
int width(std::uint32_t d, std::initializer_list<const void*> ptrs) {
  constexpr int W = std::is_same_v<T, float> ? 4 : 2;
  if (d % W) return 1;
  for (const void* p : ptrs)
    if (p && reinterpret_cast<std::uintptr_t>(p) % 16) return 1;
  return W;
}

template <class T>
std::string forward_t(const GatedScan& s, const GatedScanForward& a, cudaStream_t st) {
  constexpr int W = std::is_same_v<T, float> ? 4 : 2;
  const bool wide =
      width<T>(s.d, {a.x, a.g, a.u, a.y, a.work}) == W && (gated_scan_workspace(s) / 2) % W == 0;
  if (wide) return a.u ? forward_v<T, W, true>(s, a, st) : forward_v<T, W, false>(s, a, st);
  return a.u ? forward_v<T, 1, true>(s, a, st) : forward_v<T, 1, false>(s, a, st);
}

// The instances: u given or not, each output asked for or not.
template <class T, int V>
std::string backward_w(const GatedScan& s, const GatedScanBackward& a, cudaStream_t st) {
  const int key = (a.u ? 8 : 0) | (a.dx ? 4 : 0) | (a.dg ? 2 : 0) | (a.du ? 1 : 0);
  switch (key) {
#define MG_CASE(k) \
  case k:          \
    return backward_v<T, V, (k & 8) != 0, (k & 4) != 0, (k & 2) != 0, (k & 1) != 0>(s, a, st);
    MG_CASE(1)
    MG_CASE(2) MG_CASE(3) MG_CASE(4) MG_CASE(5) MG_CASE(6) MG_CASE(7) MG_CASE(9) MG_CASE(10) MG_CASE(11)
        MG_CASE(12) MG_CASE(13) MG_CASE(14) MG_CASE(15)
#undef MG_CASE
            default : return "gated scan: no output asked for";
  }
}

template <class T>
std::string backward_t(const GatedScan& s, const GatedScanBackward& a, cudaStream_t st) {
  constexpr int W = std::is_same_v<T, float> ? 4 : 2;
  const bool wide = width<T>(s.d, {a.dy, a.g, a.y, a.x, a.u, a.dx, a.dg, a.du, a.work}) == W &&
                    (gated_scan_workspace(s) / 2) % W == 0;
  return wide ? backward_w<T, W>(s, a, st) : backward_w<T, 1>(s, a, st);
}

}  // namespace

std::string gated_scan_forward(const GatedScan& s, const GatedScanForward& a, void* stream) {
  const std::string err = gated_scan_check(s, a.x, a.g, a.work, a.y != nullptr);
  if (!err.empty()) return err;
  const auto st = static_cast<cudaStream_t>(stream);
  return s.fp64 ? forward_t<double>(s, a, st) : forward_t<float>(s, a, st);
}

std::string gated_scan_backward(const GatedScan& s, const GatedScanBackward& a, void* stream) {
  std::string err = gated_scan_check(s, a.dy, a.g, a.work, a.dx || a.dg || a.du);
  if (err.empty() && a.dg && !a.y) err = "gated scan: dg needs y";
  if (err.empty() && a.du && !a.x) err = "gated scan: du needs x";
  if (!err.empty()) return err;
  const auto st = static_cast<cudaStream_t>(stream);
  return s.fp64 ? backward_t<double>(s, a, st) : backward_t<float>(s, a, st);
}

}  // namespace mixgraph::gpu
