// GPU sparse mixer solve (gpu_solve.hpp). C++17, plain pointers, no lib/ headers.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mixgraph/gpu_solve.hpp"

namespace mixgraph::gpu {
namespace {

constexpr int kGatherWarps = 24;  // warps that gather the next chunk while one warp solves
constexpr int kThreads = 32 * (1 + kGatherWarps);

template <class T>
struct DevMatrix {
  int implicit;
  const std::uint32_t* off;
  std::uint32_t k, k_short;  // implicit: offsets[0, k_short) are < S (solved in order), the rest gathered
  const std::uint64_t* ptr;
  const std::uint32_t* idx;
  const T* val;
  std::uint64_t hs, is, ks;
};

template <class T>
struct DevProblem {
  std::uint32_t n, d, dh;
  DevMatrix<T> a, b;
  std::uint32_t ks_max;  // staged short reads per row
  int mode;  // diagnostics only (MIXGRAPH_GPU_MODE): 1 = skip the solver's rows, 2 = skip the gather
  const T* x;
  T* y;
};

template <class T>
__device__ __forceinline__ T coef_imp(const DevMatrix<T>& m, std::uint32_t h, std::uint32_t i,
                                      std::uint32_t k) {
  return __ldg(m.val + (h * m.hs + std::uint64_t(i) * m.is + std::uint64_t(k) * m.ks));
}
template <class T>
__device__ __forceinline__ T coef_csr(const DevMatrix<T>& m, std::uint32_t h, std::uint64_t e) {
  return __ldg(m.val + (h * m.hs + e * m.is));
}

// Gather for chunk c (rows c*TR ..): acc = (A X)_i + sum of the long-range B reads (offset >= S = 2 TR, rows
// at least one chunk back, finished), and stage the short reads' coefficients (and, for CSR, their offsets).
// Every load of a thread's row is independent of the others, so the loops are unrolled to keep many loads in
// flight (the gather is latency-bound otherwise).
constexpr std::uint32_t kOffCap = 1024;  // offsets kept in shared memory (more are read through the L1)

struct OffsetTable {
  const std::uint32_t* s;  // shared copy of the first min(k, kOffCap) offsets
  const std::uint32_t* g;  // all offsets (global)
  __device__ __forceinline__ std::uint32_t operator[](std::uint32_t k) const {
    return k < kOffCap ? s[k] : __ldg(g + k);
  }
};

__device__ __forceinline__ std::uint32_t count_le_t(const OffsetTable& off, std::uint32_t lo, std::uint32_t k,
                                                    std::uint32_t i) {
  std::uint32_t a = lo, b = k;
  while (a < b) {
    const std::uint32_t m = (a + b) >> 1;
    if (off[m] <= i)
      a = m + 1;
    else
      b = m;
  }
  return a;
}

template <class T, int W, int TR, int KSMAX, bool IMP>
__device__ void gather_chunk(const DevProblem<T>& P, std::uint32_t c, int g, T* acc, T* scoef,
                             std::uint8_t* sidx, int* scnt, std::uint32_t col0, const OffsetTable& aoff,
                             const OffsetTable& boff) {
  constexpr int G = 32 * kGatherWarps;
  constexpr std::uint32_t S = 2 * TR;
  const std::uint32_t row0 = c * TR;
  const std::uint32_t KS = P.ks_max;
  const DevMatrix<T>& A = P.a;
  const DevMatrix<T>& B = P.b;
  constexpr int PPT = (TR * W + G - 1) / G;  // pairs per thread
#pragma unroll
  for (int q = 0; q < PPT; ++q) {
    const int p = g + q * G;
    if (p >= TR * W) break;
    const int r = p / W, w = p % W;
    const std::uint32_t i = row0 + r, col = col0 + w;
    const bool ok = i < P.n && col < P.d;
    const std::uint32_t h = (col < P.d ? col : P.d - 1) / P.dh;
    // the short reads' coefficients first (implicit patterns), so their loads overlap the gather's
    constexpr int KR = (IMP && KSMAX > 0) ? KSMAX : 1;
    T cfs[KR];
    if (IMP && KSMAX > 0) {
#pragma unroll
      for (int ks = 0; ks < KR; ++ks) {
        const bool valid = ok && std::uint32_t(ks) < B.k_short && boff[ks] <= i;
        cfs[ks] = valid ? coef_imp(B, h, i, ks) : T(0);
      }
    }
    T v0 = T(0), v1 = T(0);
    if (ok) {
      if (IMP) {
        const std::uint32_t ka = count_le_t(aoff, 0, A.k, i);
#pragma unroll 4
        for (std::uint32_t k = 0; k < ka; ++k)
          v0 = fma(coef_imp(A, h, i, k), __ldg(P.x + std::uint64_t(i - aoff[k]) * P.d + col), v0);
        const std::uint32_t kb = count_le_t(boff, B.k_short, B.k, i);
        std::uint32_t k = B.k_short;
#pragma unroll 4
        for (; k + 1 < kb; k += 2) {
          const std::uint32_t o0 = boff[k], o1 = boff[k + 1];
          v0 = fma(coef_imp(B, h, i, k), P.y[std::uint64_t(i - o0) * P.d + col], v0);
          v1 = fma(coef_imp(B, h, i, k + 1), P.y[std::uint64_t(i - o1) * P.d + col], v1);
        }
        if (k < kb) v0 = fma(coef_imp(B, h, i, k), P.y[std::uint64_t(i - boff[k]) * P.d + col], v0);
      } else {
        const std::uint64_t alo = A.ptr[i], ahi = A.ptr[i + 1];
#pragma unroll 4
        for (std::uint64_t e = alo; e < ahi; ++e)
          v0 = fma(coef_csr(A, h, e), __ldg(P.x + std::uint64_t(A.idx[e]) * P.d + col), v0);
        const std::uint64_t lo = B.ptr[i];
        std::uint64_t e_end = B.ptr[i + 1];
        while (e_end > lo && i - B.idx[e_end - 1] < S) --e_end;
        std::uint64_t e = lo;
#pragma unroll 4
        for (; e + 1 < e_end; e += 2) {
          v0 = fma(coef_csr(B, h, e), P.y[std::uint64_t(B.idx[e]) * P.d + col], v0);
          v1 = fma(coef_csr(B, h, e + 1), P.y[std::uint64_t(B.idx[e + 1]) * P.d + col], v1);
        }
        if (e < e_end) v0 = fma(coef_csr(B, h, e), P.y[std::uint64_t(B.idx[e]) * P.d + col], v0);
      }
    }
    acc[r * W + w] = v0 + v1;
    if (IMP) {  // the short offsets are the same for every row: coefficient 0 where the offset exceeds i
      if (KSMAX > 0) {
#pragma unroll
        for (int ks = 0; ks < KR; ++ks)
          if (std::uint32_t(ks) < KS) scoef[(r * KS + ks) * W + w] = cfs[ks];
      } else {
        for (std::uint32_t ks = 0; ks < KS; ++ks) {
          const bool valid = ok && ks < B.k_short && boff[ks] <= i;
          scoef[(r * KS + ks) * W + w] = valid ? coef_imp(B, h, i, ks) : T(0);
        }
      }
    }
  }
  if (!IMP) {
    // short reads of CSR rows, nearest first: ks = 0 is the largest j
    for (std::uint32_t p = g; p < TR * KS * W; p += G) {
      const std::uint32_t r = p / (KS * W), rem = p % (KS * W), ks = rem / W, w = rem % W;
      const std::uint32_t i = row0 + r, col = col0 + w;
      const std::uint32_t h = (col < P.d ? col : P.d - 1) / P.dh;
      T cf = T(0);
      std::uint32_t o = 0;
      bool valid = false;
      if (i < P.n) {
        const std::uint64_t lo = B.ptr[i], hi = B.ptr[i + 1];
        if (hi - lo > ks) {
          const std::uint64_t e = hi - 1 - ks;
          o = i - B.idx[e];
          if (o < S) {
            valid = true;
            cf = coef_csr(B, h, e);
          }
        }
      }
      scoef[(r * KS + ks) * W + w] = valid ? cf : T(0);
      if (w == 0) sidx[r * KS + ks] = static_cast<std::uint8_t>(valid ? o : 0);
    }
    for (int r = g; r < TR; r += G) {
      const std::uint32_t i = row0 + r;
      int cnt = 0;
      if (i < P.n) {
        const std::uint64_t lo = B.ptr[i], hi = B.ptr[i + 1];
        while (std::uint32_t(cnt) < KS && hi - lo > std::uint64_t(cnt) && i - B.idx[hi - 1 - cnt] < S) ++cnt;
      }
      scnt[r] = cnt;
    }
  }
}

// One CTA per tile of W columns marches over chunks of TR rows: warp 0 solves chunk c in order (reads at
// offsets < 2 TR from a shared-memory ring of the last 2 TR rows, offset 1 from a register) while the other
// warps gather chunk c + 1; one barrier per chunk. KSMAX > 0: the short reads are unrolled (at most KSMAX).
template <class T, int W, int TR, int KSMAX, bool IMP>
__global__ void __launch_bounds__(kThreads, 1) chunked_solve(DevProblem<T> P) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  constexpr int kRing = 2 * TR;
  const std::uint32_t KS = P.ks_max;
  T* ring = reinterpret_cast<T*>(smem_raw);  // kRing * 32: one column per lane, never shared between lanes
  T* acc = ring + kRing * 32;                // 2 * TR * W
  T* scoef = acc + 2 * TR * W;               // 2 * TR * KS * W
  int* scnt = reinterpret_cast<int*>(scoef + 2 * TR * KS * W);               // 2 * TR
  std::uint32_t* soff = reinterpret_cast<std::uint32_t*>(scnt + 2 * TR);     // 2 * kOffCap (B, then A)
  std::uint8_t* sidx = reinterpret_cast<std::uint8_t*>(soff + 2 * kOffCap);  // 2 * TR * KS

  const int tid = threadIdx.x;
  const std::uint32_t col0 = blockIdx.x * W;
  for (int q = tid; q < kRing * 32; q += kThreads) ring[q] = T(0);
  if (IMP) {
    for (std::uint32_t q = tid; q < kOffCap; q += kThreads) {
      soff[q] = q < P.b.k ? P.b.off[q] : 0xffffffffu;
      soff[kOffCap + q] = q < P.a.k ? P.a.off[q] : 0xffffffffu;
    }
  }
  const OffsetTable boff{soff, P.b.off}, aoff{soff + kOffCap, P.a.off};
  __syncthreads();
  const std::uint32_t nchunks = (P.n + TR - 1) / TR;
  if (tid >= 32) gather_chunk<T, W, TR, KSMAX, IMP>(P, 0, tid - 32, acc, scoef, sidx, scnt, col0, aoff, boff);
  __syncthreads();
  std::uint32_t offr[KSMAX > 0 ? KSMAX : 1];
#pragma unroll
  for (int ks = 0; ks < (KSMAX > 0 ? KSMAX : 1); ++ks)
    offr[ks] = (IMP && std::uint32_t(ks) < KS && std::uint32_t(ks) < P.b.k) ? __ldg(P.b.off + ks) : 0u;
  T prev = T(0);
  for (std::uint32_t c = 0; c < nchunks; ++c) {
    const int buf = c & 1;
    if (tid < 32) {
      if (!(P.mode & 1)) {
        // every lane runs the same straight-line code (no divergent branches on the sequential path): lanes
        // past W shadow column W - 1 and do not store
        const int w = tid < W ? tid : W - 1;
        const bool writer = tid < W;
        const T* a_b = acc + buf * TR * W;
        const T* c_b = scoef + std::size_t(buf) * TR * KS * W;
        const std::uint8_t* i_b = sidx + buf * TR * KS;
        const int* n_b = scnt + buf * TR;
        const std::uint32_t col = col0 + w;
        const std::uint32_t row0 = c * TR;
        const int rows = min(TR, int(P.n - row0));
        for (int r = 0; r < rows; ++r) {
          const std::uint32_t i = row0 + r;
          T v = a_b[r * W + w];
          T v2 = T(0);
          const int cnt = IMP ? int(KS) : n_b[r];
          std::uint32_t o0;
          if (KSMAX > 0) {
#pragma unroll
            for (int ks = (KSMAX > 0 ? KSMAX : 1) - 1; ks >= 1; --ks) {
              const int kc =
                  ks < int(KS) ? ks : int(KS) - 1;  // a staged slot (its coefficient is 0 if unused)
              const std::uint32_t o = IMP ? offr[ks] : i_b[r * KS + kc];
              const T yv = ring[((i - o) & (kRing - 1)) * 32 + tid];
              const T cf = c_b[(r * KS + kc) * W + w];
              const T cfm = ks < cnt ? cf : T(0);
              if (ks & 1)
                v2 = fma(cfm, yv, v2);
              else
                v = fma(cfm, yv, v);
            }
            o0 = IMP ? offr[0] : i_b[r * KS];
          } else {
            int ks = cnt - 1;
            for (; ks >= 2; ks -= 2) {
              const std::uint32_t o1 = IMP ? __ldg(P.b.off + ks) : i_b[r * KS + ks];
              const std::uint32_t o2 = IMP ? __ldg(P.b.off + ks - 1) : i_b[r * KS + ks - 1];
              v = fma(c_b[(r * KS + ks) * W + w], ring[((i - o1) & (kRing - 1)) * 32 + tid], v);
              v2 = fma(c_b[(r * KS + ks - 1) * W + w], ring[((i - o2) & (kRing - 1)) * 32 + tid], v2);
            }
            if (ks >= 1) {
              const std::uint32_t o1 = IMP ? __ldg(P.b.off + 1) : i_b[r * KS + 1];
              v = fma(c_b[(r * KS + 1) * W + w], ring[((i - o1) & (kRing - 1)) * 32 + tid], v);
            }
            o0 = IMP ? (P.b.k > 0 ? __ldg(P.b.off) : 0u) : i_b[r * KS];
          }
          v += v2;
          const T yr0 = ring[((i - o0) & (kRing - 1)) * 32 + tid];
          const T y0 = (o0 == 1) ? prev : yr0;
          const T c0 = c_b[(r * KS) * W + w];
          v = fma(cnt > 0 ? c0 : T(0), y0, v);
          ring[(i & (kRing - 1)) * 32 + tid] = v;
          prev = v;
          if (writer && col < P.d) P.y[std::uint64_t(i) * P.d + col] = v;
        }
      }
    } else if (c + 1 < nchunks && !(P.mode & 2)) {
      const int nb = (c + 1) & 1;
      gather_chunk<T, W, TR, KSMAX, IMP>(P, c + 1, tid - 32, acc + nb * TR * W,
                                         scoef + std::size_t(nb) * TR * KS * W, sidx + nb * TR * KS,
                                         scnt + nb * TR, col0, aoff, boff);
    }
    __syncthreads();
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
  b.~DevBuf();
  new (&b) DevBuf(count * sizeof(U));
  if (count) MG_CUDA(cudaMemcpy(b.p, h, count * sizeof(U), cudaMemcpyHostToDevice), "upload");
}

std::size_t smem_bytes(std::size_t tsize, int W, int TR, std::uint32_t KS) {
  return tsize * (2 * TR * 32 + 2 * TR * W + 2 * std::size_t(TR) * KS * W) + sizeof(int) * 2 * TR +
         sizeof(std::uint32_t) * 2 * kOffCap + 2 * TR * KS + 16;
}

int num_sms() {
  int dev = 0, sms = 132;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return sms;
}

// The launch configuration: rows per chunk TR (64 when at most 16 offsets are < 128, else 32), unrolled short
// reads when they fit, and W columns per block.
struct Config {
  int TR = 32;
  int KSMAX = 0;
  int W = 8;
};

template <class T, int W, int TR, int KSMAX, bool IMP>
std::string launch_k(const DevProblem<T>& P, cudaStream_t st) {
  const std::size_t sm = smem_bytes(sizeof(T), W, TR, P.ks_max);
  MG_CUDA(cudaFuncSetAttribute(chunked_solve<T, W, TR, KSMAX, IMP>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize, int(sm)),
          "cudaFuncSetAttribute");
  const unsigned blocks = (P.d + W - 1) / W;
  chunked_solve<T, W, TR, KSMAX, IMP><<<blocks, kThreads, sm, st>>>(P);
  MG_CUDA(cudaGetLastError(), "chunked_solve launch");
  return std::string("gpu-chunked-") + (IMP ? "implicit" : "csr") + "<" + (sizeof(T) == 8 ? "fp64" : "fp32") +
         ",W=" + std::to_string(W) + ",T=" + std::to_string(TR) +
         (KSMAX > 0 ? ",unrolled" + std::to_string(KSMAX) : "") + ">";
}

template <class T, int W>
std::string launch_w(const DevProblem<T>& P, cudaStream_t st, const Config& c) {
  const bool imp = P.b.implicit != 0;
  if (c.TR == 64) {
    if (c.KSMAX == 2) return imp ? launch_k<T, W, 64, 2, true>(P, st) : launch_k<T, W, 64, 2, false>(P, st);
    if (c.KSMAX == 8) return imp ? launch_k<T, W, 64, 8, true>(P, st) : launch_k<T, W, 64, 8, false>(P, st);
    return imp ? launch_k<T, W, 64, 16, true>(P, st) : launch_k<T, W, 64, 16, false>(P, st);
  }
  if (c.KSMAX > 0) return imp ? launch_k<T, W, 32, 16, true>(P, st) : launch_k<T, W, 32, 16, false>(P, st);
  return imp ? launch_k<T, W, 32, 0, true>(P, st) : launch_k<T, W, 32, 0, false>(P, st);
}

template <class T>
std::string launch(const DevProblem<T>& P, cudaStream_t st, const Config& c) {
  switch (c.W) {
    case 32:
      return launch_w<T, 32>(P, st, c);
    case 16:
      return launch_w<T, 16>(P, st, c);
    case 8:
      return launch_w<T, 8>(P, st, c);
    default:
      return launch_w<T, 4>(P, st, c);
  }
}

std::uint32_t short_count_csr(const std::uint64_t* ptr, const std::uint32_t* idx, std::uint32_t n,
                              std::uint32_t S) {
  std::uint32_t m = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t c = 0;
    for (std::uint64_t e = ptr[i + 1]; e > ptr[i] && i - idx[e - 1] < S; --e) ++c;
    m = std::max(m, c);
  }
  return m;
}

std::uint32_t short_count_implicit(const std::uint32_t* off, std::uint32_t k, std::uint32_t S) {
  std::uint32_t c = 0;
  while (c < k && off[c] < S) ++c;
  return c;
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

// Chooses TR, KSMAX and W, and sets the short-read counts of P for that TR.
template <class T>
Config configure(DevProblem<T>& P, const SolveMatrix& b) {
  Config c;
  auto shorts = [&](std::uint32_t S) {
    return b.implicit ? short_count_implicit(b.offsets, b.k, S) : short_count_csr(b.ptr, b.idx, P.n, S);
  };
  const std::uint32_t s128 = shorts(128);
  if (s128 <= 16) {
    c.TR = 64;
    c.KSMAX = s128 <= 2 ? 2 : s128 <= 8 ? 8 : 16;
    P.ks_max = s128;
  } else {
    c.TR = 32;
    P.ks_max = shorts(64);
    c.KSMAX = P.ks_max <= 16 ? 16 : 0;
  }
  P.b.k_short = b.implicit ? P.ks_max : 0;
  if (P.ks_max == 0) P.ks_max = 1;
  // W: the fewest columns per block (whole 32-byte sectors) that still fit the grid in one wave
  const int wmin = int(32 / sizeof(T));
  const int sms = num_sms();
  c.W = wmin;
  while (c.W < 32 && int((P.d + c.W - 1) / c.W) > sms) c.W *= 2;
  if (const char* e = std::getenv("MIXGRAPH_GPU_W")) {
    const int w = std::atoi(e);
    if (w == 4 || w == 8 || w == 16 || w == 32) c.W = w;
  }
  while (c.W > 4 && smem_bytes(sizeof(T), c.W, c.TR, P.ks_max) > 200 * 1024) c.W /= 2;
  if (const char* e = std::getenv("MIXGRAPH_GPU_MODE")) P.mode = std::atoi(e);
  return c;
}

template <class T>
SolveRun solve_t(const SolveProblem& p, const void* x, void* y) {
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
  const Config cfg = configure(P, p.b);
  P.x = dx.as<T>();
  P.y = dy.as<T>();
  cudaEventRecord(e1);
  r.kernel = launch<T>(P, nullptr, cfg);
  cudaEventRecord(e2);
  MG_CUDA(cudaMemcpy(y, dy.p, nd * sizeof(T), cudaMemcpyDeviceToHost), "download Y");
  cudaEventRecord(e3);
  MG_CUDA(cudaEventSynchronize(e3), "synchronize");
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
  const Config W = configure(P, B);
  P.x = dx.as<T>();
  P.y = dy.as<T>();
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> ts, cs;
  res.kernel = launch<T>(P, nullptr, W);  // warm-up
  MG_CUDA(cudaDeviceSynchronize(), "warm-up");
  for (int k = 0; k < std::max(1, s.reps); ++k) {
    cudaEventRecord(e0);
    launch<T>(P, nullptr, W);
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
    launch<T>(P, s1, W);
    clock_probe<<<1, 1, 0, s2>>>(probe.as<double>() + 1);
    MG_CUDA(cudaDeviceSynchronize(), "solve");
    double mhz[2] = {0, 0};
    MG_CUDA(cudaMemcpy(mhz, probe.p, sizeof mhz, cudaMemcpyDeviceToHost), "probe");
    res.sm_mhz_idle = mhz[0];
    res.sm_mhz_during = mhz[1];
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
  }
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

SolveRun solve(const SolveProblem& p, const void* x, void* y) {
  SolveRun r;
  r.note = no_device_note();
  if (!r.note.empty()) return r;
  if (p.n == 0 || p.d == 0 || p.heads == 0 || p.d % p.heads != 0) {
    r.note = "bad problem: n, d must be positive and d a multiple of heads";
    return r;
  }
  try {
    return p.fp64 ? solve_t<double>(p, x, y) : solve_t<float>(p, x, y);
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
