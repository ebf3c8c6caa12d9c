// gpu-blockinv: chunked block forward substitution with precomputed chunk inverses (docs/design.md).
// Included by solve.cu inside its anonymous namespace (uses DevProblem, DevMatrix, coef_imp, coef_csr).
//
// Rows are cut into chunks of C (64, or 32 when the read lists are long), columns into tiles of W (one
// 32-byte sector per row: 8 fp32, 4 fp64 columns). With L_c the chunk's diagonal block of I - B and
// w_c = (A X)_c + (reads of rows before the chunk), y_c = L_c^{-1} w_c.
//  * bi_build (one CTA per (head, chunk), all in parallel, coefficients only): writes a *package* per (head,
//    chunk): L_c^{-1} (lower triangle, padded rows), and the chunk's reads of earlier rows, per row sorted by
//    offset o: "near" (the previous chunk, r < o <= r + C), "ring" (r + C < o <= R - C, served from a
//    shared-memory ring of the last R rows) and "global" (o > R - C, read back from Y in global memory).
//  * bi_ax (only when A is more than its diagonal): Y = A X, which bi_solve then reads row by row.
//  * bi_solve (one independent CTA per column tile; see the roles above the kernel): per chunk c, in
//    parallel, w_c = F_c + near reads (2 warps), F_{c+1} = A X + ring reads + global reads (4 warps), and
//    copies ahead (the rest): L^{-1} two chunks ahead and read lists five ahead by TMA bulk copies on
//    mbarriers, the global rows and x three chunks ahead by cp.async; barrier; y_c = L_c^{-1} w_c by every
//    thread into the ring and Y; barrier. No communication between CTAs: any number of tiles runs with no
//    co-residency requirement and nothing can stall.
// Every pattern family goes through the same solve kernel: implicit and CSR B differ only in bi_build.

namespace bi {

template <class T>
constexpr int kW = int(32 / sizeof(T));  // columns per tile
template <class T>
constexpr int kEP = int(16 / sizeof(T));  // elements per 16-byte piece
template <int C>
constexpr int kLD = C + 4;  // row stride of the w buffer (16-byte aligned rows, conflict-free)
// L^{-1} is stored as its lower triangle, row r padded to whole 16-byte pieces, plus one piece where the
// row's piece count would be even: the rows that one warp reads at once then start in distinct banks.
template <class T>
__host__ __device__ constexpr std::uint32_t lrow_len(std::uint32_t r) {
  const std::uint32_t ep = 16 / sizeof(T), pieces = r / ep + 1;
  return (pieces + ((pieces & 1u) ? 0u : 1u)) * ep;
}
template <class T>
__host__ __device__ constexpr std::uint32_t lrow_start(std::uint32_t r) {
  std::uint32_t s = 0;
  for (std::uint32_t q = 0; q < r; ++q) s += lrow_len<T>(q);
  return s;
}
constexpr std::uint32_t kGCap =
    16;                    // "global" reads per row staged in shared memory (more are read directly)
constexpr int kLBufs = 3;  // L^{-1} buffers: in use, and two in flight
constexpr int kEBufs = 6;  // read-list buffers: chunks c .. c + 3 in use, c + 4 and c + 5 in flight
constexpr int kGBufs = 3;  // staged rows: chunk c + 1 in use, c + 2 and c + 3 in flight
constexpr int kParts = 2;  // far-sum threads per row

struct Params {
  unsigned char* pkg = nullptr;  // [heads][nchunks] packages
  std::uint32_t pkg_bytes = 0, linv_bytes = 0, e_bytes = 0;
  std::uint32_t kx = 0;          // read-list capacity per row
  std::uint32_t R = 0;           // ring rows (power of two, >= 8 C)
  std::uint32_t gx = 0;          // staged "global" reads per row (<= kGCap)
  std::uint32_t g_bytes = 0;     // one staging buffer: x/AX rows [C][W], global rows [gx][C][W], A diag [C]
  std::uint32_t heads = 1;       // coefficient sets (1 when every column shares B)
  std::uint32_t* err = nullptr;  // 1: a read list overflowed (host reports it)
  int a_prepass =
      0;  // 0: A is the diagonal, applied in bi_solve; 1: Y holds A X (bi_ax) when bi_solve starts
  unsigned long long* prof = nullptr;  // MIXGRAPH_GPU_PROFILE: cycles per CTA and phase, or null
  int diag = 0;  // MIXGRAPH_GPU_DIAG (wrong results, timing only): 1 no staging copies, 2 no package copies
                 // in the loop, 4 no Y stores
};

// Package: [L^{-1}: lower triangle, padded rows (lrow_start)][E: coef [kx][C] T | off [kx][C] u32 | cnt [C]
// u32], cnt = nn | nr << 10 | nx << 20 (reads [0, nn) near, [nn, nr) ring, [nr, nx) global).
__host__ __device__ constexpr std::uint32_t round16(std::uint32_t b) {
  return (b + 15u) & ~15u;
}
template <class T, int C>
__host__ __device__ constexpr std::uint32_t linv_bytes() {
  return round16(std::uint32_t(lrow_start<T>(C) * sizeof(T)));
}
template <class T, int C>
__host__ __device__ constexpr std::uint32_t e_bytes(std::uint32_t kx) {
  return round16(std::uint32_t(kx * C * sizeof(T) + kx * C * 4 + C * 4));
}

__device__ __forceinline__ void cp16(void* s, const void* g) {
  const unsigned sa = static_cast<unsigned>(__cvta_generic_to_shared(s));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_small(void* s, const void* g, int bytes) {  // 4 or 8 bytes
  const unsigned sa = static_cast<unsigned>(__cvta_generic_to_shared(s));
  if (bytes == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(sa), "l"(g) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(sa), "l"(g) : "memory");
}
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
// One thread: expect `bytes` on the barrier and start the bulk copy (TMA) that completes them.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          smem_u32(dst)),
      "l"(src), "r"(bytes), "r"(smem_u32(bar))
      : "memory");
}
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  while (!done)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(smem_u32(bar)), "r"(parity)
        : "memory");
}
__device__ __forceinline__ void cp_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
__device__ __forceinline__ void cp_wait_all() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}

// ---- bi_build: grid (chunks, heads), C threads ----
// Shared memory: in-chunk reads per row (source index, coefficient) [C][kin], their counts, and the columns
// of L^{-1} being built [C][C].
template <class T, int C, bool IMP>
__global__ void __launch_bounds__(C) bi_build(DevProblem<T> P, Params Q, std::uint32_t kin) {
  extern __shared__ __align__(16) unsigned char sm[];
  T* cols = reinterpret_cast<T*>(sm);                                  // [C][C]
  T* inc = cols + C * C;                                               // [C][kin]
  std::uint8_t* ino = reinterpret_cast<std::uint8_t*>(inc + C * kin);  // [C][kin]
  __shared__ std::uint32_t nin[C];
  const std::uint32_t c = blockIdx.x, h = blockIdx.y, r = threadIdx.x;
  const std::uint32_t s = c * C, i = s + r;
  unsigned char* pk = Q.pkg + (std::uint64_t(h) * P.nchunks + c) * Q.pkg_bytes;
  T* linv = reinterpret_cast<T*>(pk);
  T* ec = reinterpret_cast<T*>(pk + Q.linv_bytes);
  std::uint32_t* eo = reinterpret_cast<std::uint32_t*>(ec + std::size_t(Q.kx) * C);
  std::uint32_t* ecnt = eo + std::size_t(Q.kx) * C;
  const DevMatrix<T>& B = P.b;
  std::uint32_t m = 0, x = 0, nn = 0, nr = 0;
  bool over = false;
  auto take = [&](std::uint32_t o, T v) {
    if (o == 0 || o > i) return;  // not a read of an earlier row
    if (o <= r) {
      if (m < kin) {
        inc[r * kin + m] = v;
        ino[r * kin + m] = std::uint8_t(r - o);
        ++m;
      } else {
        over = true;
      }
      return;
    }
    if (x >= Q.kx) {
      over = true;
      return;
    }
    ec[std::size_t(x) * C + r] = v;
    eo[std::size_t(x) * C + r] = o;
    ++x;
    if (o <= r + C) nn = x;
    if (o <= Q.R - C) nr = x;
  };
  if (i < P.n) {
    if (IMP) {
      for (std::uint32_t k = 0; k < B.k; ++k) {
        const std::uint32_t o = __ldg(B.off + k);
        if (o > i) break;
        take(o, coef_imp(B, h, i, k));
      }
    } else {
      const std::uint64_t e0 = __ldg(B.ptr + i), e1 = __ldg(B.ptr + i + 1);
      for (std::uint64_t e = e1; e > e0; --e) {  // columns descending: offsets ascending
        const std::uint32_t j = __ldg(B.idx + e - 1);
        if (j < i) take(i - j, coef_csr(B, h, e - 1));
      }
    }
  }
  if (over) atomicExch(Q.err, 1u);
  nr = nr < nn ? nn : nr;
  for (std::uint32_t k = x; k < Q.kx; ++k) {
    ec[std::size_t(k) * C + r] = T(0);
    eo[std::size_t(k) * C + r] = 0;
  }
  ecnt[r] = nn | (nr << 10) | (x << 20);
  nin[r] = m;
  __syncthreads();
  // thread j: column j of L^{-1} by forward substitution, rows in order
  const std::uint32_t j = r;
  std::uint32_t st = 0;  // lrow_start(q)
  for (std::uint32_t q = 0; q < std::uint32_t(C); ++q) {
    T v = q == j ? T(1) : T(0);
    if (q > j) {
      const std::uint32_t cnt = nin[q];
      for (std::uint32_t t = 0; t < cnt; ++t) v = fma(inc[q * kin + t], cols[ino[q * kin + t] * C + j], v);
    }
    cols[q * C + j] = v;
    if (j < lrow_len<T>(q)) linv[st + j] = v;
    st += lrow_len<T>(q);
  }
}

// ---- bi_ax: Y = A X, when A is more than a diagonal (bi_solve then reads row i of Y before it writes it)
// ----
template <class T>
__global__ void bi_ax(DevProblem<T> P) {
  const DevMatrix<T>& A = P.a;
  for (std::uint64_t q = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; q < std::uint64_t(P.n) * P.d;
       q += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t i = std::uint32_t(q / P.d), col = std::uint32_t(q % P.d), h = col / P.dh;
    T v = T(0);
    if (A.implicit) {
      for (std::uint32_t k = 0; k < A.k; ++k) {
        const std::uint32_t o = __ldg(A.off + k);
        if (o > i) break;
        v = fma(coef_imp(A, h, i, k), __ldg(P.x + std::uint64_t(i - o) * P.d + col), v);
      }
    } else {
      for (std::uint64_t e = __ldg(A.ptr + i); e < __ldg(A.ptr + i + 1); ++e)
        v = fma(coef_csr(A, h, e), __ldg(P.x + std::uint64_t(__ldg(A.idx + e)) * P.d + col), v);
    }
    P.y[q] = v;
  }
}

// ---- bi_solve: one CTA per tile of W columns, C * W threads ----
// A row segment of a tile (W columns, 32 bytes) as two 16-byte vectors.
template <class T>
struct Seg {
  using V = typename std::conditional<sizeof(T) == 4, float4, double2>::type;
  V a, b;
};
__device__ __forceinline__ void vfma(float4& acc, float c, const float4& x) {
  acc.x = fma(c, x.x, acc.x);
  acc.y = fma(c, x.y, acc.y);
  acc.z = fma(c, x.z, acc.z);
  acc.w = fma(c, x.w, acc.w);
}
__device__ __forceinline__ void vfma(double2& acc, double c, const double2& x) {
  acc.x = fma(c, x.x, acc.x);
  acc.y = fma(c, x.y, acc.y);
}
__device__ __forceinline__ void vadd(float4& acc, const float4& x) {
  acc.x += x.x;
  acc.y += x.y;
  acc.z += x.z;
  acc.w += x.w;
}
__device__ __forceinline__ void vadd(double2& acc, const double2& x) {
  acc.x += x.x;
  acc.y += x.y;
}
template <class T>
__device__ __forceinline__ Seg<T> seg_zero() {
  Seg<T> z;
  memset(&z, 0, sizeof z);
  return z;
}
template <class T>
__device__ __forceinline__ Seg<T> seg_ld(const T* p) {  // shared memory or global written before a barrier
  Seg<T> v;
  v.a = *reinterpret_cast<const typename Seg<T>::V*>(p);
  v.b = *reinterpret_cast<const typename Seg<T>::V*>(p + 16 / sizeof(T));
  return v;
}
template <class T>
__device__ __forceinline__ Seg<T> seg_ldcg(const T* p) {
  Seg<T> v;
  v.a = __ldcg(reinterpret_cast<const typename Seg<T>::V*>(p));
  v.b = __ldcg(reinterpret_cast<const typename Seg<T>::V*>(p + 16 / sizeof(T)));
  return v;
}
template <class T>
__device__ __forceinline__ void seg_fma(Seg<T>& acc, T c, const Seg<T>& x) {
  vfma(acc.a, c, x.a);
  vfma(acc.b, c, x.b);
}
template <class T>
__device__ __forceinline__ void seg_add(Seg<T>& acc, const Seg<T>& x) {
  vadd(acc.a, x.a);
  vadd(acc.b, x.b);
}
template <class T>
__device__ __forceinline__ void seg_st(T* p, const Seg<T>& v) {
  *reinterpret_cast<typename Seg<T>::V*>(p) = v.a;
  *reinterpret_cast<typename Seg<T>::V*>(p + 16 / sizeof(T)) = v.b;
}

__device__ __forceinline__ void prof_mark(unsigned long long* acc, int k, long long& t) {
  const long long now = clock64();
  acc[k] += static_cast<unsigned long long>(now - t);
  t = now;
}

__device__ __forceinline__ float dot_acc(float4 a, float4 b, float acc) {
  return fma(a.w, b.w, fma(a.z, b.z, fma(a.y, b.y, fma(a.x, b.x, acc))));
}
__device__ __forceinline__ double dot_acc(double2 a, double2 b, double acc) {
  return fma(a.y, b.y, fma(a.x, b.x, acc));
}

template <class T, int C>
struct EView {  // a read list (package part E) in shared memory
  const T* coef;
  const std::uint32_t* off;
  const std::uint32_t* cnt;
};
template <class T, int C>
__device__ __forceinline__ EView<T, C> eview(const unsigned char* b, std::uint32_t kx) {
  EView<T, C> v;
  v.coef = reinterpret_cast<const T*>(b);
  v.off = reinterpret_cast<const std::uint32_t*>(v.coef + std::size_t(kx) * C);
  v.cnt = v.off + std::size_t(kx) * C;
  return v;
}

// Roles per chunk c (thread t of NT = C W):
//   t < C                 "near": row t's w = F + reads of chunk c - 1 (ring), all W columns;
//   C <= t < C (1 + P)    "far": row (t - C) % C, part (t - C) / C of F for chunk c + 1 (ring reads and
//                         staged global rows, every P-th read) -> fpart;
//   the rest              "issue": cp.async of L^{-1} (c + 2), read lists (c + 5) and staged rows (c + 3);
// barrier; then every thread (row t / W, column t % W): y = L^{-1} w into the ring and Y; barrier.
template <class T, int C>
__global__ void __launch_bounds__(C* kW<T>) bi_solve(DevProblem<T> P, Params Q) {
  constexpr int W = kW<T>, NT = C * W, LD = kLD<C>, EP = kEP<T>, NP = kParts;
  constexpr int T0 = C * (1 + NP);                              // first issue thread
  constexpr std::uint32_t LB = linv_bytes<T, C>() / sizeof(T);  // elements per L^{-1} buffer
  static_assert(NT - T0 >= 32, "at least one issue warp");
  using V = typename Seg<T>::V;
  extern __shared__ __align__(16) unsigned char sm[];
  const std::uint32_t R = Q.R, rmask = R - 1;
  T* ring = reinterpret_cast<T*>(sm);                                          // [R][W]
  T* lbuf = ring + std::size_t(R) * W;                                         // [kLBufs][LB]
  unsigned char* ebuf = reinterpret_cast<unsigned char*>(lbuf + kLBufs * LB);  // [kEBufs][e_bytes]
  unsigned char* gbuf = ebuf + kEBufs * std::size_t(Q.e_bytes);                // [kGBufs][g_bytes]
  T* fpart = reinterpret_cast<T*>(gbuf + kGBufs * std::size_t(Q.g_bytes));     // [2][NP][C][W]
  T* wt = fpart + 2 * NP * C * W;                                              // [W][LD]
  std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(wt + W * LD);  // [kLBufs + kEBufs] package barriers
  const std::uint32_t tid = threadIdx.x;
  const std::uint32_t col0 = blockIdx.x * W;
  const std::uint32_t h = Q.heads > 1 ? col0 / P.dh : 0;
  const std::uint32_t nch = P.nchunks, gx = Q.gx;
  const unsigned char* pk0 = Q.pkg + std::uint64_t(h) * nch * Q.pkg_bytes;
  auto ev = [&](std::uint32_t c) { return eview<T, C>(ebuf + (c % kEBufs) * std::size_t(Q.e_bytes), Q.kx); };
  // staging buffer of chunk c: x (or A X) rows [C][W], global rows [gx][C][W], A's diagonal [C]
  auto gx_rows = [&](std::uint32_t c) {
    return reinterpret_cast<T*>(gbuf + (c % kGBufs) * std::size_t(Q.g_bytes));
  };
  const std::uint32_t n = P.n;

  // cp.async work of chunk-relative items, spread over threads [t0, NT)
  auto issue = [&](std::uint32_t t0, std::uint32_t lc, std::uint32_t ec, std::uint32_t gc) {
    const std::uint32_t nth = NT - t0, me = tid - t0;
    if (tid < t0) return;
    if (lc < nch && me == 0)
      bulk_copy(lbuf + (lc % kLBufs) * LB, pk0 + std::uint64_t(lc) * Q.pkg_bytes, Q.linv_bytes,
                bars + lc % kLBufs);
    if (ec < nch && me == (nth > 32 ? 32u : 0u))
      bulk_copy(ebuf + (ec % kEBufs) * std::size_t(Q.e_bytes),
                pk0 + std::uint64_t(ec) * Q.pkg_bytes + Q.linv_bytes, Q.e_bytes, bars + kLBufs + ec % kEBufs);
    if (gc < nch && !(Q.diag & 1)) {
      const EView<T, C> e = ev(gc);
      T* d = gx_rows(gc);
      const std::uint32_t items = (gx + 1) * C;  // (slot, row)
      for (std::uint32_t it = me; it < items; it += nth) {
        const std::uint32_t r = it % C, slot = it / C;
        const std::uint32_t i = gc * C + r;
        if (i >= n) continue;
        const T* src;
        if (slot == 0) {
          src = (Q.a_prepass ? P.y : P.x) + std::uint64_t(i) * P.d + col0;
        } else {
          const std::uint32_t q = e.cnt[r], k = ((q >> 10) & 1023u) + slot - 1;
          if (k >= (q >> 20)) continue;
          src = P.y + std::uint64_t(i - e.off[k * C + r]) * P.d + col0;
        }
        T* dst = d + (std::size_t(slot) * C + r) * W;
        cp16(dst, src);
        cp16(dst + EP, src + EP);
      }
      if (!Q.a_prepass)
        for (std::uint32_t r = me; r < std::uint32_t(C); r += nth)
          if (gc * C + r < n)
            cp_small(d + std::size_t(gx + 1) * C * W + r,
                     P.a.val + (h * P.a.hs + std::uint64_t(gc * C + r) * P.a.is), int(sizeof(T)));
    }
  };
  // far part p of F for chunk c (row r): staged x * a (part 0), ring reads, staged global rows -> fpart
  auto far = [&](std::uint32_t c, std::uint32_t r, std::uint32_t p) {
    Seg<T> f = seg_zero<T>();
    const std::uint32_t i = c * C + r;
    if (c < nch && i < n) {
      const T* g = gx_rows(c);
      if (p == 0) {
        const T a = Q.a_prepass ? T(1) : g[std::size_t(gx + 1) * C * W + r];
        seg_fma(f, a, seg_ld(g + std::size_t(r) * W));
      }
      const EView<T, C> e = ev(c);
      const std::uint32_t q = e.cnt[r], nn = q & 1023u, nr = (q >> 10) & 1023u, nx = q >> 20;
      for (std::uint32_t k = nn + p; k < nr; k += NP)
        seg_fma(f, e.coef[k * C + r], seg_ld(ring + ((i - e.off[k * C + r]) & rmask) * W));
      const std::uint32_t ns = min(nx, nr + gx);
      for (std::uint32_t k = nr + p; k < ns; k += NP)
        seg_fma(f, e.coef[k * C + r], seg_ld(g + (std::size_t(k - nr + 1) * C + r) * W));
      for (std::uint32_t k = ns + p; k < nx; k += NP)
        seg_fma(f, e.coef[k * C + r], seg_ldcg(P.y + std::uint64_t(i - e.off[k * C + r]) * P.d + col0));
    }
    seg_st(fpart + ((c & 1) * NP + p) * C * W + r * W, f);
  };
  unsigned long long pacc[4] = {0, 0, 0, 0};
  long long pt = Q.prof ? clock64() : 0;

  // (with MIXGRAPH_GPU_DIAG bit 2 the loop issues no package copies, so it waits for none: only the
  // prologue's chunks 0-1 (L) and 0-4 (lists) arrive)
  auto wait_l = [&](std::uint32_t c) {
    if (c < nch && !((Q.diag & 2) && c >= 2)) mbar_wait(bars + c % kLBufs, (c / kLBufs) & 1u);
  };
  auto wait_e = [&](std::uint32_t c) {
    if (c < nch && !((Q.diag & 2) && c >= 5)) mbar_wait(bars + kLBufs + c % kEBufs, (c / kEBufs) & 1u);
  };
  if (tid == 0) {
    for (int b = 0; b < kLBufs + kEBufs; ++b) mbar_init(bars + b, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  // prologue: packages of chunks 0-1 (L) and 0-4 (lists), then staged rows of chunks 0-2, then F of chunk 0
  issue(0, 0, 0, nch);
  issue(0, 1, 1, nch);
  for (std::uint32_t c = 2; c < 5; ++c) issue(0, nch, c, nch);
  for (std::uint32_t c = 0; c < 5; ++c) wait_e(c);
  wait_l(0);
  wait_l(1);
  __syncthreads();
  for (std::uint32_t c = 0; c < 3; ++c) issue(0, nch, nch, c);
  cp_commit();
  cp_wait_all();
  __syncthreads();
  if (tid >= C && tid < T0) far(0, (tid - C) % C, (tid - C) / C);
  __syncthreads();

  const std::uint32_t r = tid / W, cl = tid % W;  // matvec role
  const std::uint32_t lstart = lrow_start<T>(r);
  for (std::uint32_t c = 0; c < nch; ++c) {
    const std::uint32_t s = c * C;
    if (tid < C) {
      // near: w = F + reads of chunk c - 1
      Seg<T> w = seg_ld(fpart + (c & 1) * NP * C * W + tid * W);
#pragma unroll
      for (int p = 1; p < NP; ++p) seg_add(w, seg_ld(fpart + ((c & 1) * NP + p) * C * W + tid * W));
      const EView<T, C> e = ev(c);
      const std::uint32_t nn = e.cnt[tid] & 1023u;
      for (std::uint32_t k = 0; k < nn; ++k)
        seg_fma(w, e.coef[k * C + tid], seg_ld(ring + ((s + tid - e.off[k * C + tid]) & rmask) * W));
      T wv[W];
      memcpy(wv, &w, sizeof wv);
#pragma unroll
      for (int q = 0; q < W; ++q) wt[q * LD + tid] = wv[q];
    } else if (tid < T0) {
      far(c + 1, (tid - C) % C, (tid - C) / C);
    } else {
      issue(T0, (Q.diag & 2) ? nch : c + 2, (Q.diag & 2) ? nch : c + 5, c + 3);
    }
    cp_commit();
    if (Q.prof) prof_mark(pacc, 0, pt);
    __syncthreads();
    if (Q.prof) prof_mark(pacc, 1, pt);
    // y = L^{-1} w
    {
      const T* lr = lbuf + (c % kLBufs) * LB + lstart;
      const T* wv = wt + cl * LD;
      // two accumulators over 16-byte pieces; pieces past the diagonal hold zeros or padding, never read
      T a0 = T(0), a1 = T(0);
      const std::uint32_t nq = r / EP + 1;
      std::uint32_t q = 0;
      for (; q + 1 < nq; q += 2) {
        const V x0 = *reinterpret_cast<const V*>(lr + q * EP), y0 = *reinterpret_cast<const V*>(wv + q * EP);
        const V x1 = *reinterpret_cast<const V*>(lr + q * EP + EP),
                y1 = *reinterpret_cast<const V*>(wv + q * EP + EP);
        a0 = dot_acc(x0, y0, a0);
        a1 = dot_acc(x1, y1, a1);
      }
      if (q < nq)
        a0 = dot_acc(*reinterpret_cast<const V*>(lr + q * EP), *reinterpret_cast<const V*>(wv + q * EP), a0);
      const T y = a0 + a1;
      ring[((s + r) & rmask) * W + cl] = y;
      if (s + r < n && !(Q.diag & 4)) P.y[std::uint64_t(s + r) * P.d + col0 + cl] = y;
    }
    if (Q.prof) prof_mark(pacc, 2, pt);
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    wait_l(c + 1);
    wait_e(c + 4);
    __syncthreads();
    if (Q.prof) prof_mark(pacc, 3, pt);
  }
  if (Q.prof && (tid == 0 || tid == C || tid == T0)) {
    const int role = tid == 0 ? 0 : (tid == C ? 1 : 2);
    for (int k = 0; k < 4; ++k) Q.prof[(std::size_t(blockIdx.x) * 3 + role) * 4 + k] = pacc[k];
  }
}

}  // namespace bi
