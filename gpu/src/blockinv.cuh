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
//  * bi_ax (only when A is more than its diagonal, split mode off): Y = A X, which bi_solve then reads row by
//    row.
//  * bi_solve (one CTA per column tile; see the roles above the kernel): per chunk c, in parallel,
//    w_c = F_c + near reads (2 warps), F_{c+1} = A X + ring reads + global reads (4 warps), and copies ahead
//    (the rest): L^{-1} two chunks ahead and a read list EB - 1 ahead (TMA bulk copies or cp.async,
//    Params::copy), the global rows and x three chunks ahead (cp.async); barrier; y_c = L_c^{-1} w_c by
//    every thread into the ring and Y; barrier.
//    - Split mode off: no communication between CTAs; any number of tiles runs with no co-residency
//      requirement and nothing can stall.
//    - Split mode (Params::split = G): one cooperative grid of the tile CTAs plus far workers (bi_far), which
//      write Y = A X + the reads at offsets >= G ahead of the tiles; the tiles' lists hold only ring reads.
//      Progress flows through global counters (see bi_far), published by a warp outside the tile's barriers.
// Every pattern family goes through the same solve kernel: implicit and CSR B differ only in bi_build and in
// bi_far's index loads.

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
constexpr std::uint32_t lrow_start_sum(std::uint32_t r) {  // the definition: the lengths of rows 0 .. r - 1
  std::uint32_t s = 0;
  for (std::uint32_t q = 0; q < r; ++q) s += lrow_len<T>(q);
  return s;
}
// the same in closed form (the loop was 7% of bi_build's instructions, ncu source counters, GPU v12): the ep
// rows of group m = q / ep have m + 1 pieces, plus one where m + 1 is even, of ep elements each
template <class T>
__host__ __device__ constexpr std::uint32_t lrow_start(std::uint32_t r) {
  const std::uint32_t ep = 16 / sizeof(T), m = r / ep;
  return ep * ep * (m * (m + 1) / 2 + m / 2) + (r - ep * m) * ep * (m + 1 + (m & 1u));
}
template <class T>
constexpr bool lrow_start_closed_form_holds() {
  for (std::uint32_t r = 0; r <= 256; ++r)
    if (lrow_start<T>(r) != lrow_start_sum<T>(r)) return false;
  return true;
}
static_assert(lrow_start_closed_form_holds<float>() && lrow_start_closed_form_holds<double>(),
              "lrow_start's closed form");
constexpr std::uint32_t kGCap =
    16;                    // "global" reads per row staged in shared memory (more are read directly)
constexpr int kLBufs = 3;  // L^{-1} buffers: in use, and two in flight
// Read-list buffers (bi_solve's EB). Chunk c issues the list of chunk c + EB - 1, which is complete after the
// wait at the end of chunk c + 1 and first read in chunk c + 2: 6 = chunks c .. c + 3 in use (c + 3 by the
// staging of global rows), c + 4 and c + 5 in flight; 4 in split mode (no global rows): c (near) and c + 1
// (far) in use, c + 2 and c + 3 in flight.
constexpr int kEBufs = 6;
// bi_solve_ws: list buffers (issued three chunks ahead, after the chunk that last read the buffer is done),
// staging buffers (c + 3 staged into the buffer that c - 1 released) and far threads per row
constexpr int kEBufsWs = 4;
constexpr int kGBufsWs = 4;
// (rows staged GB - 1 chunks ahead at offsets > R - C are final for R >= 8 C while GB <= 5; 5 buffers, which
// need a ring of 1024 rows at the bandwidth case, measured 1.2 ms slower there: benchmarks.md, GPU v13)
static_assert(kGBufsWs >= 2 && kGBufsWs <= 5, "staging buffers of bi_solve_ws");
constexpr int kWsParts = 4;
constexpr int kEBufsSplit = 4;
// split mode: bi_solve runs one more warp per tile CTA, the *publisher*: it is in none of the tile's barriers
// (they are named barriers over the C W role threads) and turns the tile's "chunks done" (a shared-memory
// counter) into its global progress with a GPU-scope fence, so the fence's latency stays off the chunk loop
constexpr int kPubThreads = 32;
constexpr std::size_t kStaticSmem = 64;  // bound on bi_solve's static shared memory (done_s, bi_far's flag)
constexpr int kGBufs = 3;                // staged rows: chunk c + 1 in use, c + 2 and c + 3 in flight
constexpr int kParts = 2;                // far-sum threads per row (4 measured slower: benchmarks.md, GPU v8)

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
  unsigned long long* prof = nullptr;  // SolveOptions::profile: cycles per CTA and phase, or null
  int copy = 0;  // package copies: 0 cp.async by the issue threads, 1 TMA bulk copies (every thread waits on
                 // the mbarriers), 2 TMA bulk copies (one thread waits, the barrier publishes)
  // split mode (Q.split = G > 0): reads at offsets >= G are not in the read lists; far-worker CTAs (blockIdx
  // >= ntiles of one cooperative grid) write Y = A X + those reads, chunk by chunk, ahead of the tiles
  std::uint32_t split = 0;
  std::uint32_t ntiles = 0, nworkers = 0;
  std::uint32_t kfar = 0;             // implicit B: first offset index with offset >= G
  std::uint32_t fparts = 1;           // worker items per chunk (parts of C / fparts rows)
  std::uint32_t* progress = nullptr;  // [ntiles] chunks done (as published by the tile's publisher warp)
  std::uint32_t* fready = nullptr;    // [nchunks] parts of the chunk whose Y = A X + far reads are written
  std::uint32_t* stall = nullptr;     // 1: a split-mode wait timed out (host reports it)
  // staged rows by TMA tensor copies (implicit B, every read beyond the ring staged, split mode off): slot
  // 0 (x, or A X in Y) and slot 1 + j (rows i - goff[j]) of a chunk are each one box of W columns x C rows of
  // X or Y, so the issue role starts gx + 1 copies per chunk instead of (gx + 1) C 2 per-row cp.async
  int tma = 0;
  int ytma =
      0;  // with tma: Y rows written by one tensor store per chunk from the ring (no per-thread stores)
  std::uint32_t goff[kGCap] = {};  // the offsets > R - C, ascending (the order of every row's global reads)
  int mma = 0;    // fp32: L^{-1} in fragment order (linv_frag_bytes), y = L^{-1} w by 3xTF32 mma.sync
  int swz = 1;    // far sums (and bi_solve's near sums): row halves in swizzled order (seg_sw)
  int nooff = 0;  // read lists without offsets (implicit B, bi_solve_ws): row r's list is the offsets above r
  std::uint32_t noffs = 0;  // with nooff: B's offsets that bi_solve_ws keeps in shared memory (<= C + kx)
};

// Package: [L^{-1}: lower triangle, padded rows (lrow_start)][E: coef [kx][C] T | off [kx][C] u32 | cnt [C]
// u32], cnt = nn | nr << 10 | nx << 20 (reads [0, nn) near, [nn, nr) ring, [nr, nx) global).
__host__ __device__ constexpr std::uint32_t round16(std::uint32_t b) {
  return (b + 15u) & ~15u;
}
__host__ __device__ constexpr std::uint32_t round128(std::uint32_t b) {
  return (b + 127u) & ~127u;
}
// L^{-1} as padded rows (bi_build builds it so; the fp64 package and Params::mma = 0 keep it so)
template <class T, int C>
__host__ __device__ constexpr std::uint32_t linv_rows_bytes() {
  return round16(std::uint32_t(lrow_start<T>(C) * sizeof(T)));
}
// fp32 with Params::mma: L^{-1} as the A fragments of mma.sync m16n8k8 (tf32), tile (mi, ki) of 16 rows x 8
// columns for ki <= 2 mi + 1 at index mi (mi + 1) + ki, 32 lanes x 4 values each (lane l: rows 16 mi + l / 4
// (+ 8), columns 8 ki + l % 4 (+ 4)), so that every lane loads its fragment as one 16-byte piece
template <int C>
__host__ __device__ constexpr std::uint32_t frag_tiles() {
  return std::uint32_t(C / 16) * std::uint32_t(C / 16 + 1);
}
template <int C>
__host__ __device__ constexpr std::uint32_t linv_frag_bytes() {
  return frag_tiles<C>() * 512u;
}
template <class T, int C>  // one L^{-1} buffer of bi_solve: either layout fits
__host__ __device__ constexpr std::uint32_t linv_bytes() {
  return sizeof(T) == 4 && linv_frag_bytes<C>() > linv_rows_bytes<T, C>() ? linv_frag_bytes<C>()
                                                                          : linv_rows_bytes<T, C>();
}
template <class T, int C>
__host__ __device__ constexpr std::uint32_t e_bytes(std::uint32_t kx, bool nooff = false) {
  return round16(std::uint32_t(kx * C * sizeof(T) + (nooff ? 0u : kx * C * 4) + C * 4));
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
// the mbarrier and tensor-copy wrappers (tma.cuh)
using tma::bulk_copy;
using tma::mbar_arrive;
using tma::mbar_expect;
using tma::mbar_init;
using tma::mbar_wait;
using tma::smem_u32;
using tma::tma_box;
using tma::tma_store_box;
__device__ __forceinline__ void cp_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
__device__ __forceinline__ void cp_wait_all() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}

// an in-chunk read of bi_build: coefficient, and the byte offset of the source row's start in L^{-1} (one 8-
// or 16-byte shared load; rows start in increasing order, so source row >= j is p >= the start of row j)
template <class T>
struct alignas(sizeof(T) == 4 ? 8 : 16) BRead {
  T c;
  std::uint32_t p;
};
// bi_build's reads per row loaded one row ahead (more are read in place): kin itself from 4 to 8 (the
// longest in-chunk list of a row), 4 below, so that no row pays for more (benchmarks.md, GPU v11, v12;
// v11's 4, 6 or 8: docs/history/gpu-variants.md)
__host__ __device__ constexpr std::uint32_t build_ku(std::uint32_t kin) {
  return kin <= 4 ? 4u : (kin <= 8 ? kin : 8u);
}
// the in-chunk reads in shared memory: [C + 1][max(kin, KU)], each row padded with reads {0, 0} (coefficient
// 0 of row 0) to at least KU, and a row C of padding (read ahead after the last row)
template <class T, int C>
__host__ __device__ constexpr std::uint32_t build_rd_bytes(std::uint32_t kin, std::uint32_t ku) {
  return std::uint32_t((C + 1) * (kin > ku ? kin : ku) * sizeof(BRead<T>));
}

// ---- bi_build: grid chunks x heads (1-D, see below), C threads ----
// Shared memory: L^{-1} being built, already in the package's layout (lower triangle, padded rows), the
// package's read lists (part E, e_bytes), and the in-chunk reads per row other than offset 1 (coefficient,
// source row) (build_rd_bytes). The package is assembled in shared memory and written out in whole 16-byte
// pieces by consecutive threads: each thread filling its own list position (rows differ in where a given
// offset falls) scattered partial-sector stores over the list and cost the build 2x its bytes in L2 write
// sectors (ncu, bandwidth case).
template <class T, int C, bool IMP, int KU>
__global__ void __launch_bounds__(C) bi_build(DevProblem<T> P, Params Q, std::uint32_t kin) {
  extern __shared__ __align__(16) unsigned char sm[];
  constexpr std::uint32_t LVB = linv_rows_bytes<T, C>();
  T* lv = reinterpret_cast<T*>(sm);                            // [LVB]
  unsigned char* es = sm + LVB;                                // [e_bytes]
  BRead<T>* rd = reinterpret_cast<BRead<T>*>(es + Q.e_bytes);  // [C + 1][ks] (build_rd_bytes)
  const std::uint32_t ks = kin > std::uint32_t(KU) ? kin : std::uint32_t(KU);
  __shared__ std::uint32_t nin[C], rsh[C];  // in-chunk reads of row q (offset 1 apart), row starts in lv
  __shared__ T b1s[C];                      // coefficient of row q's read of row q - 1 (offset 1)
  // block b = c * heads + h: the heads of one chunk run together, so the sectors of coefficients they share
  // ([k][i][h] layout) are read from DRAM once (with (c, h) as a 2-D grid each sector was read once per head
  // that used it: 20 GB for the 1.3 GB of the bandwidth case, ncu)
  const std::uint32_t c = blockIdx.x / Q.heads, h = blockIdx.x % Q.heads, r = threadIdx.x;
  const std::uint32_t s = c * C, i = s + r;
  unsigned char* pk = Q.pkg + (std::uint64_t(h) * P.nchunks + c) * Q.pkg_bytes;
  for (std::uint32_t g = r; g < LVB / 16; g += C) reinterpret_cast<uint4*>(lv)[g] = make_uint4(0, 0, 0, 0);
  rsh[r] = lrow_start<T>(r);
  b1s[r] = T(0);
  __syncthreads();
  T* ec = reinterpret_cast<T*>(es);
  // (with Q.nooff the lists hold no offsets: eo is not written, the counts follow the coefficients)
  std::uint32_t* eo = reinterpret_cast<std::uint32_t*>(ec + std::size_t(Q.kx) * C);
  std::uint32_t* ecnt = Q.nooff ? eo : eo + std::size_t(Q.kx) * C;
  const DevMatrix<T>& B = P.b;
  std::uint32_t m = 0, x = 0, nn = 0, nr = 0;
  bool over = false;
  auto take = [&](std::uint32_t o, T v) {
    if (o == 0 || o > i) return;          // not a read of an earlier row
    if (Q.split && o >= Q.split) return;  // split mode: the far workers' read
    if (o == 1 && r > 0) {                // the substitution takes row q - 1 from a register
      b1s[r] += v;
      return;
    }
    if (o <= r) {
      if (m < kin) {
        rd[r * ks + m] = BRead<T>{v, std::uint32_t(rsh[r - o] * sizeof(T))};
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
    if (!Q.nooff) eo[std::size_t(x) * C + r] = o;
    ++x;
    if (o <= r + C) nn = x;
    if (o <= Q.R - C) nr = x;
  };
  // the row's reads in batches of KB, every load of a batch issued before the first is used (one read at a
  // time, each waiting for its offset and then its coefficient, made the build latency-bound: 9 ms of the
  // bandwidth case)
  constexpr std::uint32_t KB = 8;
  if (i < P.n) {
    if (IMP) {
      // row i's coefficient of offset k at cb[k * ks] (the 64-bit index of coef_imp, formed per load, was
      // most of the gather's instructions: ncu source counters, GPU v12)
      const T* cb = B.val + (h * B.hs + std::uint64_t(i) * B.is);
      const std::uint64_t ks = B.ks;
      for (std::uint32_t k0 = 0; k0 < B.k; k0 += KB) {
        std::uint32_t o[KB];
        T v[KB];
#pragma unroll
        for (std::uint32_t u = 0; u < KB; ++u) o[u] = k0 + u < B.k ? __ldg(B.off + k0 + u) : ~0u;
        const T* ck = cb + k0 * ks;
#pragma unroll
        for (std::uint32_t u = 0; u < KB; ++u) v[u] = o[u] <= i ? __ldg(ck + u * ks) : T(0);
#pragma unroll
        for (std::uint32_t u = 0; u < KB; ++u)
          if (o[u] <= i) take(o[u], v[u]);
        if (o[KB - 1] > i) break;  // offsets ascend
      }
    } else {
      const std::uint64_t e0 = __ldg(B.ptr + i), e1 = __ldg(B.ptr + i + 1);
      for (std::uint64_t eb = e1; eb > e0;) {  // columns descending: offsets ascending
        const std::uint32_t nb = std::uint32_t(eb - e0 < KB ? eb - e0 : KB);
        std::uint32_t j[KB];
        T v[KB];
#pragma unroll
        for (std::uint32_t u = 0; u < KB; ++u) {
          j[u] = u < nb ? __ldg(B.idx + eb - 1 - u) : i;
          v[u] = u < nb ? coef_csr(B, h, eb - 1 - u) : T(0);
        }
#pragma unroll
        for (std::uint32_t u = 0; u < KB; ++u)
          if (j[u] < i) take(i - j[u], v[u]);
        eb -= nb;
      }
    }
  }
  if (over) atomicExch(Q.err, 1u);
  nr = nr < nn ? nn : nr;
  for (std::uint32_t k = x; k < Q.kx; ++k) {
    ec[std::size_t(k) * C + r] = T(0);
    if (!Q.nooff) eo[std::size_t(k) * C + r] = 0;
  }
  ecnt[r] = nn | (nr << 10) | (x << 20);
  nin[r] = m;
  for (std::uint32_t u = m; u < ks; ++u) rd[r * ks + u] = BRead<T>{T(0), 0u};
  if (r < ks) rd[std::uint32_t(C) * ks + r] = BRead<T>{T(0), 0u};
  __syncthreads();
  // thread j: column j of L^{-1} by forward substitution, rows in order. Row q is b1[q] (row q - 1, kept in
  // a register) + the in-chunk reads of rows src <= q - 2 (0 where src < j). Those are loaded one row ahead,
  // so that the chain from row to row is only the fma (they were behind the previous row's store, a round
  // trip through shared memory per row; with L^{-1} built in place, 22 instead of 29 KB of shared memory per
  // block, the bandwidth case's build went from 7.8 to 7.0 ms). A read is its coefficient and its source
  // row's byte offset p, and counts in column j when p >= row j's (source row >= j); every row has at least
  // KU reads (padding), so loading ahead needs neither the row's count nor a guard (7.0 -> 3.6 ms together
  // with the lanes on one row below, benchmarks.md, GPU v11)
  const std::uint32_t j = r;
  const std::uint32_t rj = std::uint32_t(rsh[j] * sizeof(T)), j4 = std::uint32_t(j * sizeof(T));
  const unsigned char* lvb = reinterpret_cast<const unsigned char*>(lv);
  T nb[KU], ny[KU];
  auto ahead = [&](std::uint32_t q) {  // row q's first KU reads (srcs <= q - 2, stored; padding reads 0)
    const BRead<T>* rq = rd + q * ks;
#pragma unroll
    for (int u = 0; u < KU; ++u) {
      const BRead<T> e = rq[u];
      nb[u] = e.c;
      ny[u] = e.p >= rj ? *reinterpret_cast<const T*>(lvb + e.p + j4) : T(0);
    }
  };
  // every lane of a warp is on the same row q (from the warp's first column on; rows above a column are 0
  // in it), so that a row's reads are broadcast loads and its sources consecutive words: with q = j + 1 ..
  // per lane, the lanes read different rows and ncu counted 44% of the build's shared-load wavefronts as
  // bank conflicts (benchmarks.md, GPU v11)
  const std::uint32_t q0 = j & ~31u;
  T prev = T(0);
  ahead(q0);
  for (std::uint32_t q = q0; q < std::uint32_t(C); ++q) {
    T cb[KU], cy[KU];
#pragma unroll
    for (int u = 0; u < KU; ++u) {
      cb[u] = nb[u];
      cy[u] = ny[u];
    }
    ahead(q + 1);
    T a0 = T(0), a1 = T(0);
#pragma unroll
    for (int u = 0; u < KU; u += 2) {
      a0 = fma(cb[u], cy[u], a0);
      if (u + 1 < KU) a1 = fma(cb[u + 1], cy[u + 1], a1);
    }
    if (ks > std::uint32_t(KU))
      for (std::uint32_t u = KU, cnt = nin[q]; u < cnt; ++u) {
        const BRead<T> e = rd[q * ks + u];
        if (e.p >= rj) a0 = fma(e.c, *reinterpret_cast<const T*>(lvb + e.p + j4), a0);
      }
    prev = q == j ? T(1) : fma(b1s[q], prev, a0 + a1);  // (0 above the diagonal: its reads are all 0)
    if (q >= j) lv[rsh[q] + j] = prev;
  }
  __syncthreads();
  // out: L^{-1} (padding included, or in fragment order) and E, in 16-byte pieces
  if (sizeof(T) == 4 && Q.mma) {
    // thread r writes pieces g = r + C k: tile t = g / 32 = k C / 32 + r / 32, lane l = r % 32; unrolled over
    // k, with the tile's m-index mi from three compares (the per-piece search loop and index arithmetic were
    // 13% of the build's instructions, ncu source counters, GPU v12)
    static_assert(C % 32 == 0 && C <= 64, "fragment tiles: at most 4 m-tiles");
    const std::uint32_t l = r % 32;
#pragma unroll
    for (std::uint32_t k = 0; k < frag_tiles<C>() * 32u / C; ++k) {
      const std::uint32_t g = r + C * k, t = g / 32;
      const std::uint32_t mi = (t >= 2u) + (t >= 6u) + (t >= 12u);  // (mi + 1)(mi + 2) > t
      const std::uint32_t r0 = 16 * mi + l / 4, c0 = 8 * (t - mi * (mi + 1)) + l % 4;
      auto at = [&](std::uint32_t q, std::uint32_t j) { return j <= q ? lv[rsh[q] + j] : T(0); };
      const float v[4] = {float(at(r0, c0)), float(at(r0 + 8, c0)), float(at(r0, c0 + 4)),
                          float(at(r0 + 8, c0 + 4))};  // (only fp32 gets here)
      uint4 u;
      memcpy(&u, v, sizeof u);
      reinterpret_cast<uint4*>(pk)[g] = u;
    }
  } else {
    for (std::uint32_t g = r; g < LVB / 16; g += C)
      reinterpret_cast<uint4*>(pk)[g] = reinterpret_cast<const uint4*>(lv)[g];
  }
  for (std::uint32_t g = r; g < Q.e_bytes / 16; g += C)
    reinterpret_cast<uint4*>(pk + Q.linv_bytes)[g] = reinterpret_cast<const uint4*>(es)[g];
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
// Rows of W columns are 32 bytes apart in the ring and the staging buffers, so the 16-byte loads of 8
// consecutive threads reading 8 consecutive rows (a quarter warp's wavefront) fall in only 4 of the 8 16-byte
// bank groups: 2 wavefronts where 1 would do. A thread whose row has bit 2 set takes its two halves in the
// other order (sw = kEP elements): the 8 rows then cover all 8 groups, for any common read offset. The
// segment keeps that order (a = half sw / kEP) through the sums, and seg_st_sw puts it back.
template <class T>
__device__ __forceinline__ std::uint32_t seg_sw(std::uint32_t r, bool on) {
  return on ? ((r >> 2) & 1u) * std::uint32_t(16 / sizeof(T)) : 0u;
}
// the halves at pa (= row + sw) and pa + dsw (dsw = kEP - 2 sw: the other half); with sw added to the base
// pointers once, a read costs one address add more than an unswizzled one
template <class T>
__device__ __forceinline__ Seg<T> seg_ld2(const T* pa, int dsw) {
  Seg<T> v;
  v.a = *reinterpret_cast<const typename Seg<T>::V*>(pa);
  v.b = *reinterpret_cast<const typename Seg<T>::V*>(pa + dsw);
  return v;
}
// a 16-byte shared-memory store, stated in PTX: where the row offset r W + sw was formed with an OR, nvcc
// no longer knew the alignment and wrote float4 stores as 4 scalar ones (4-way bank conflicts)
__device__ __forceinline__ void sts16(float* p, const float4& v) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(smem_u32(p)), "f"(v.x), "f"(v.y), "f"(v.z),
               "f"(v.w)
               : "memory");
}
__device__ __forceinline__ void sts16(double* p, const double2& v) {
  asm volatile("st.shared.v2.f64 [%0], {%1, %2};" ::"r"(smem_u32(p)), "d"(v.x), "d"(v.y) : "memory");
}
template <class T>
__device__ __forceinline__ void seg_st2(T* pa, int dsw, const Seg<T>& v) {
  sts16(pa, v.a);
  sts16(pa + dsw, v.b);
}
template <class T>
__device__ __forceinline__ int seg_dsw(std::uint32_t sw) {
  return int(16 / sizeof(T)) - 2 * int(sw);
}
template <class T>
__device__ __forceinline__ Seg<T> seg_ld_sw(const T* p, std::uint32_t sw) {
  return seg_ld2(p + sw, seg_dsw<T>(sw));
}
template <class T>
__device__ __forceinline__ void seg_st_sw(T* p, const Seg<T>& v, std::uint32_t sw) {
  seg_st2(p + sw, seg_dsw<T>(sw), v);
}
template <class T>
__device__ __forceinline__ Seg<T> seg_unsw(const Seg<T>& v, std::uint32_t sw) {  // back to column order
  Seg<T> u;
  u.a = sw ? v.b : v.a;
  u.b = sw ? v.a : v.b;
  return u;
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
__device__ __forceinline__ EView<T, C> eview(const unsigned char* b, std::uint32_t kx, bool nooff = false) {
  EView<T, C> v;
  v.coef = reinterpret_cast<const T*>(b);
  v.off = nooff ? nullptr : reinterpret_cast<const std::uint32_t*>(v.coef + std::size_t(kx) * C);
  v.cnt = nooff ? reinterpret_cast<const std::uint32_t*>(v.coef + std::size_t(kx) * C)
                : v.off + std::size_t(kx) * C;
  return v;
}

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

// 3xTF32 (fp32-accurate) tensor-core products: x = big + small, both tf32; big * big + big * small + small *
// big (the small * small term is below fp32 rounding). big is x with its low 13 bits cleared (x - big is then
// exact), small is passed as is (the tensor core ignores its low 13 bits). Rounding both by cvt.rna instead
// made the bandwidth case 21% slower (benchmarks.md, GPU v10)
__device__ __forceinline__ void tf32_split(float x, std::uint32_t& big, std::uint32_t& small) {
  big = __float_as_uint(x) & 0xffffe000u;
  small = __float_as_uint(x - __uint_as_float(big));
}
__device__ __forceinline__ void mma_tf32(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                         std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// y = L^{-1} w for the 16 rows of m-tile mi by one warp (lane l): L^{-1} in fragment order (Params::mma), w
// as [W][LD] (column-major). Returns rows 16 mi + l / 4 (+ 8), columns 2 (l % 4) (+ 1) in y[0..3] (the
// accumulator layout). NK k-tiles (2 mi + 2), every load issued before the first product, and the products
// spread over NA accumulators per kind, so that no chain of dependent mma is longer than NK / NA.
template <int LD, int NK>
__device__ __forceinline__ void mma_rows(const float* lf, const float* wt, std::uint32_t mi,
                                         std::uint32_t lane, float (&y)[4]) {
  constexpr int NA = NK < 4 ? NK : 4;
  const float4* a4 = reinterpret_cast<const float4*>(lf) + mi * (mi + 1) * 32 + lane;
  const float* wb = wt + (lane >> 2) * LD + (lane & 3);  // B fragment: k = l % 4 (+ 4), n = l / 4
  float4 a[NK];
  float b0[NK], b1[NK];
#pragma unroll
  for (int k = 0; k < NK; ++k) {
    a[k] = a4[k * 32];
    b0[k] = wb[k * 8];
    b1[k] = wb[k * 8 + 4];
  }
  float acc[NA][4] = {}, acx[NA][4] = {};  // big * big; the cross terms
#pragma unroll
  for (int k = 0; k < NK; ++k) {
    const float av[4] = {a[k].x, a[k].y, a[k].z, a[k].w};
    std::uint32_t ab[4], as[4], bb0, bs0, bb1, bs1;
#pragma unroll
    for (int u = 0; u < 4; ++u) tf32_split(av[u], ab[u], as[u]);
    tf32_split(b0[k], bb0, bs0);
    tf32_split(b1[k], bb1, bs1);
    mma_tf32(acc[k % NA], ab, bb0, bb1);
    mma_tf32(acx[k % NA], ab, bs0, bs1);
    mma_tf32(acx[k % NA], as, bb0, bb1);
  }
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    float big = 0.f, cross = 0.f;
#pragma unroll
    for (int m = 0; m < NA; ++m) {
      big += acc[m][u];
      cross += acx[m][u];
    }
    y[u] = big + cross;
  }
}
// m-tile mi of y = L^{-1} w by warp mi (mma_rows with its k-tile count: 2 mi + 2)
template <int C, int LD>
__device__ __forceinline__ void mma_mtile(const float* lf, const float* wt, std::uint32_t mi,
                                          std::uint32_t lane, float (&y)[4]) {
  if (mi == 0)
    mma_rows<LD, 2>(lf, wt, mi, lane, y);
  else if (mi == 1)
    mma_rows<LD, 4>(lf, wt, mi, lane, y);
  else if (C > 32 && mi == 2)
    mma_rows<LD, 6>(lf, wt, mi, lane, y);
  else
    mma_rows<LD, (C > 32 ? 8 : 4)>(lf, wt, mi, lane, y);
}

// The Y tensor stores' issuing thread, after each store: at most 16 stores pending (2 for rings under 24
// chunks), so that the rows staged from Y a few chunks later are complete and no ring slot is rewritten while
// a store still reads it
template <int C>
__device__ __forceinline__ void y_stores_throttle(std::uint32_t R) {
  if (R >= 24u * C)
    asm volatile("cp.async.bulk.wait_group 16;" ::: "memory");
  else
    asm volatile("cp.async.bulk.wait_group 2;" ::: "memory");
}

// Roles per chunk c (thread t of NT = C W):
//   t < C                 "near": row t's w = F + reads of chunk c - 1 (ring), all W columns;
//   C <= t < C (1 + P)    "far": row (t - C) % C, part (t - C) / C of F for chunk c + 1 (ring reads and
//                         staged global rows, every P-th read) -> fpart;
//   the rest              "issue": cp.async of L^{-1} (c + 2), read lists (c + EB - 1) and staged rows (c +
//   3);
// barrier; then every thread (row t / W, column t % W): y = L^{-1} w into the ring and Y; barrier.
// (the publisher warp runs in split mode only, whose instances have EB = kEBufsSplit: the others keep the
// registers of 16 warps, 128 per thread, where a 17th warp on one scheduler would cap them at 96)
template <class T, int C, int EB>
__global__ void __launch_bounds__(C* kW<T> + (EB == kEBufsSplit ? kPubThreads : 0), 1)
    bi_solve(DevProblem<T> P, Params Q, const __grid_constant__ CUtensorMap tmx,
             const __grid_constant__ CUtensorMap tmy) {
  if (Q.split && blockIdx.x >= Q.ntiles) {
    bi_far<T, C>(P, Q, blockIdx.x - Q.ntiles);
    return;
  }
  constexpr int W = kW<T>, NT = C * W, LD = kLD<C>, EP = kEP<T>, NP = kParts;
  constexpr int T0 = C * (1 + NP);                              // first issue thread
  constexpr std::uint32_t LB = linv_bytes<T, C>() / sizeof(T);  // elements per L^{-1} buffer
  // tensor copies never run in split mode (Q.tma is 0 there): kTma compiles them out of its instances
  constexpr bool kTma = EB != kEBufsSplit;
  static_assert(NT - T0 >= 32, "at least one issue warp");
  using V = typename Seg<T>::V;
  extern __shared__ __align__(16) unsigned char sm[];
  const std::uint32_t R = Q.R, rmask = R - 1;
  // [R][W], 128-byte aligned (tensor stores of Y read it); offsets, not integer rounding, keep the pointers
  // visibly shared (see gbuf)
  T* ring = reinterpret_cast<T*>(sm + ((128u - (smem_u32(sm) & 127u)) & 127u));
  T* lbuf = ring + std::size_t(R) * W;                                         // [kLBufs][LB]
  unsigned char* ebuf = reinterpret_cast<unsigned char*>(lbuf + kLBufs * LB);  // [EB][e_bytes]
  // [kGBufs][g_bytes], 128-byte aligned for tensor copies (padded by an offset, not by rounding the pointer
  // through an integer: that hid from the compiler that it and what follows are shared memory, and the loads
  // became generic LD, ncu)
  unsigned char* gbuf = ebuf + EB * std::size_t(Q.e_bytes);
  gbuf += (128u - (smem_u32(gbuf) & 127u)) & 127u;
  T* fpart = reinterpret_cast<T*>(gbuf + kGBufs * std::size_t(Q.g_bytes));  // [2][NP][C][W]
  T* wt = fpart + 2 * NP * C * W;                                           // [W][LD]
  std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(wt + W * LD);      // [kLBufs + EB + kGBufs]
  const std::uint32_t tid = threadIdx.x;
  const std::uint32_t col0 = blockIdx.x * W;
  const std::uint32_t h = Q.heads > 1 ? col0 / P.dh : 0;
  const std::uint32_t nch = P.nchunks, gx = Q.gx;
  const unsigned char* pk0 = Q.pkg + std::uint64_t(h) * nch * Q.pkg_bytes;
  auto ev = [&](std::uint32_t c) { return eview<T, C>(ebuf + (c % EB) * std::size_t(Q.e_bytes), Q.kx); };
  // staging buffer of chunk c: x (or A X) rows [C][W], global rows [gx][C][W], A's diagonal [C]
  auto gx_rows = [&](std::uint32_t c) {
    return reinterpret_cast<T*>(gbuf + (c % kGBufs) * std::size_t(Q.g_bytes));
  };
  const std::uint32_t n = P.n;

  // cp.async work of chunk-relative items, spread over threads [t0, NT)
  auto issue = [&](std::uint32_t t0, std::uint32_t lc, std::uint32_t ec, std::uint32_t gc) {  // copies
    const std::uint32_t nth = NT - t0, me = tid - t0;
    if (tid < t0) return;
    if (Q.copy) {
      if (lc < nch && me == 0)
        bulk_copy(lbuf + (lc % kLBufs) * LB, pk0 + std::uint64_t(lc) * Q.pkg_bytes, Q.linv_bytes,
                  bars + lc % kLBufs);
      if (ec < nch && me == (nth > 32 ? 32u : 0u))
        bulk_copy(ebuf + (ec % EB) * std::size_t(Q.e_bytes),
                  pk0 + std::uint64_t(ec) * Q.pkg_bytes + Q.linv_bytes, Q.e_bytes, bars + kLBufs + ec % EB);
      lc = ec = nch;
    }
    if (lc < nch) {
      const unsigned char* g = pk0 + std::uint64_t(lc) * Q.pkg_bytes;
      unsigned char* d = reinterpret_cast<unsigned char*>(lbuf + (lc % kLBufs) * LB);
      for (std::uint32_t p = me; p < Q.linv_bytes / 16; p += nth) cp16(d + p * 16, g + p * 16);
    }
    if (ec < nch) {
      const unsigned char* g = pk0 + std::uint64_t(ec) * Q.pkg_bytes + Q.linv_bytes;
      unsigned char* d = ebuf + (ec % EB) * std::size_t(Q.e_bytes);
      for (std::uint32_t p = me; p < Q.e_bytes / 16; p += nth) cp16(d + p * 16, g + p * 16);
    }
    if (gc < nch) {
      const EView<T, C> e = ev(gc);
      T* d = gx_rows(gc);
      if (kTma && Q.tma && me == (nth > 64 ? 64u : 0u)) {
        std::uint64_t* bar = bars + kLBufs + EB + gc % kGBufs;
        // the Y rows read here were written by st.global (generic proxy) chunks ago, ordered before this
        // thread by the role barriers; the proxy fence orders them before the tensor copies (async proxy)
        asm volatile("fence.proxy.async.global;" ::: "memory");
        mbar_expect(bar, (gx + 1) * C * W * unsigned(sizeof(T)));
        const int row = int(gc * C);
        tma_box(d, Q.a_prepass ? &tmy : &tmx, int(col0), row, bar);
        for (std::uint32_t j = 0; j < gx; ++j)
          tma_box(d + (j + 1) * C * W, &tmy, int(col0), row - int(Q.goff[j]), bar);
      }
      const std::uint32_t items = (kTma && Q.tma) ? 0u : (gx + 1) * C * 2;  // (slot, row, half)
      for (std::uint32_t it = me; it < items; it += nth) {
        const std::uint32_t half = it & 1u, r = (it >> 1) % C, slot = (it >> 1) / C;
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
        cp16(d + (std::size_t(slot) * C + r) * W + half * EP, src + half * EP);
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
    const std::uint32_t i = c * C + r, sw = seg_sw<T>(r, Q.swz);
    if (c < nch && i < n) {
      const T* g = gx_rows(c);
      if (p == 0) {
        const T a = Q.a_prepass ? T(1) : g[std::size_t(gx + 1) * C * W + r];
        seg_fma(f, a, seg_ld_sw(g + std::size_t(r) * W, sw));
      }
      const EView<T, C> e = ev(c);
      const std::uint32_t q = e.cnt[r], nn = q & 1023u, nr = (q >> 10) & 1023u, nx = q >> 20;
      for (std::uint32_t k = nn + p; k < nr; k += NP)
        seg_fma(f, e.coef[k * C + r], seg_ld_sw(ring + ((i - e.off[k * C + r]) & rmask) * W, sw));
      const std::uint32_t ns = min(nx, nr + gx);
      for (std::uint32_t k = nr + p; k < ns; k += NP)
        seg_fma(f, e.coef[k * C + r], seg_ld_sw(g + (std::size_t(k - nr + 1) * C + r) * W, sw));
      for (std::uint32_t k = ns + p; k < nx; k += NP)  // (global memory: in column order)
        seg_fma(f, e.coef[k * C + r],
                seg_unsw(seg_ldcg(P.y + std::uint64_t(i - e.off[k * C + r]) * P.d + col0), sw));
    }
    seg_st_sw(fpart + ((c & 1) * NP + p) * C * W + r * W, f, sw);
  };
  unsigned long long pacc[4] = {0, 0, 0, 0};
  long long pt = Q.prof ? clock64() : 0;

  // TMA package copies: chunk c's arrival on its buffer's mbarrier
  auto wait_l = [&](std::uint32_t c) {
    if (c < nch) mbar_wait(bars + c % kLBufs, (c / kLBufs) & 1u);
  };
  auto wait_e = [&](std::uint32_t c) {
    if (c < nch) mbar_wait(bars + kLBufs + c % EB, (c / EB) & 1u);
  };
  auto wait_g = [&](std::uint32_t c) {  // staged rows by tensor copies
    if (kTma && Q.tma && c < nch) mbar_wait(bars + kLBufs + EB + c % kGBufs, (c / kGBufs) & 1u);
  };
  __shared__ std::uint32_t done_s;  // split mode: chunks done, for the publisher warp
  if (tid == 0) {
    done_s = 0;
    if (Q.copy || (kTma && Q.tma)) {
      for (int b = 0; b < kLBufs + EB + kGBufs; ++b) mbar_init(bars + b, 1);
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
  }
  __syncthreads();                 // the last barrier of all blockDim threads
  if (tid >= std::uint32_t(NT)) {  // split mode's publisher warp (lane 0)
    if (tid == std::uint32_t(NT)) {
      std::uint32_t last = 0;
      while (last < nch) {
        const std::uint32_t d = ld_acquire_cta_shared(&done_s);
        if (d > last) {
          __threadfence();  // the Y rows of chunks < d (ordered before done_s by the role barrier)
          st_release_gpu(Q.progress + blockIdx.x, d);
          last = d;
        } else {
          __nanosleep(64);
        }
      }
    }
    return;
  }
  auto sync_roles = [] { asm volatile("bar.sync 1, %0;" ::"n"(NT) : "memory"); };
  // split mode: thread T0 waits until the workers wrote chunk c's A X + far reads into Y; the barrier that
  // follows publishes it to the copy threads
  auto wait_far = [&](std::uint32_t c) {
    if (Q.split && c < nch) spin_until(Q.stall, [&] { return ld_acquire_gpu(Q.fready + c) >= Q.fparts; });
  };
  // prologue: packages of chunks 0-1 (L) and 0..EB-2 (lists), then staged rows of chunks 0-2, then F of
  // chunk 0
  if (tid == T0)
    for (std::uint32_t c = 0; c < 4; ++c) wait_far(c);
  issue(0, 0, 0, nch);
  issue(0, 1, 1, nch);
  for (std::uint32_t c = 2; c + 1 < std::uint32_t(EB); ++c) issue(0, nch, c, nch);
  cp_commit();
  cp_wait_all();
  if (Q.copy) {
    for (std::uint32_t c = 0; c + 1 < std::uint32_t(EB); ++c) wait_e(c);
    wait_l(0);
    wait_l(1);
  }
  sync_roles();
  for (std::uint32_t c = 0; c < 3; ++c) issue(0, nch, nch, c);
  cp_commit();
  cp_wait_all();
  for (std::uint32_t c = 0; c < 3; ++c) wait_g(c);
  sync_roles();
  if (tid >= C && tid < T0) far(0, (tid - C) % C, (tid - C) / C);
  sync_roles();

  const std::uint32_t r = tid / W, cl = tid % W;  // matvec role
  // Y by tensor stores: issued by the thread that issues the staged-row copies (so that its later copies of
  // those rows are ordered after the stores it waited for); the ring must be 128-byte aligned for them
  const bool ytma = kTma && Q.tma && Q.ytma && !(smem_u32(ring) & 127u);
  const std::uint32_t TS = T0 + ((NT - T0) > 64 ? 64u : 0u);
  const std::uint32_t lstart = lrow_start<T>(r);
  for (std::uint32_t c = 0; c < nch; ++c) {
    const std::uint32_t s = c * C;
    if (tid < C) {
      // near: w = F + reads of chunk c - 1
      const std::uint32_t sw = seg_sw<T>(tid, Q.swz);
      Seg<T> w = seg_ld_sw(fpart + (c & 1) * NP * C * W + tid * W, sw);
#pragma unroll
      for (int p = 1; p < NP; ++p) seg_add(w, seg_ld_sw(fpart + ((c & 1) * NP + p) * C * W + tid * W, sw));
      const EView<T, C> e = ev(c);
      const std::uint32_t nn = e.cnt[tid] & 1023u;
      for (std::uint32_t k = 0; k < nn; ++k)
        seg_fma(w, e.coef[k * C + tid], seg_ld_sw(ring + ((s + tid - e.off[k * C + tid]) & rmask) * W, sw));
      w = seg_unsw(w, sw);
      T wv[W];
      memcpy(wv, &w, sizeof wv);
#pragma unroll
      for (int q = 0; q < W; ++q) wt[q * LD + tid] = wv[q];
    } else if (tid < T0) {
      far(c + 1, (tid - C) % C, (tid - C) / C);
    } else {
      issue(T0, c + 2, c + EB - 1, c + 3);
    }
    cp_commit();
    if (Q.prof) prof_mark(pacc, 0, pt);
    sync_roles();
    if (Q.prof) prof_mark(pacc, 1, pt);
    // y = L^{-1} w
    if (sizeof(T) == 4 && Q.mma) {  // warp mi < C / 16: rows of m-tile mi by tensor-core products
      const std::uint32_t wp = tid >> 5, lane = tid & 31;
      if (wp < std::uint32_t(C / 16)) {
        float y[4];
        const float* lf = reinterpret_cast<const float*>(lbuf + (c % kLBufs) * LB);
        const float* wf = reinterpret_cast<const float*>(wt);
        mma_mtile<C, LD>(lf, wf, wp, lane, y);
        const std::uint32_t r0 = 16 * wp + (lane >> 2), c0 = 2 * (lane & 3);
#pragma unroll
        for (std::uint32_t h8 = 0; h8 < 2; ++h8) {
          const std::uint32_t rr = r0 + 8 * h8;
          *reinterpret_cast<float2*>(ring + ((s + rr) & rmask) * W + c0) =
              make_float2(y[2 * h8], y[2 * h8 + 1]);
          if (!ytma && s + rr < n)
            *reinterpret_cast<float2*>(P.y + std::uint64_t(s + rr) * P.d + col0 + c0) =
                make_float2(y[2 * h8], y[2 * h8 + 1]);
        }
        if (ytma) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      }
    } else {
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
      if (ytma)  // this thread's ring write, before the tensor store (async proxy) that reads it
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      else if (s + r < n)
        P.y[std::uint64_t(s + r) * P.d + col0 + cl] = y;
    }
    if (Q.prof) prof_mark(pacc, 2, pt);
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    if (Q.copy == 1 || (Q.copy == 2 && tid == T0)) {
      wait_l(c + 1);
      wait_e(c + EB - 2);
    }
    if (tid == T0) wait_g(c + 2);    // read by far() in the next chunk
    if (tid == T0) wait_far(c + 4);  // staged in the next chunk
    sync_roles();
    if (Q.split && tid == T0) st_release_cta_shared(&done_s, c + 1);  // to the publisher warp
    if (ytma && tid == TS) {
      tma_store_box(&tmy, int(col0), int(s), ring + (s & rmask) * W);
      // Stores in flight: the copies this thread issues next (chunk c + 4's rows, in chunk c + 1) read
      // chunks up to c + 5 - R / C, so at most R / C - 5 stores may be pending (and the ring rows of a chunk,
      // rewritten R / C chunks later, are read by then)
      y_stores_throttle<C>(R);
    }
    if (Q.prof) prof_mark(pacc, 3, pt);
  }
  if (ytma && tid == TS) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  if (Q.prof && (tid == 0 || tid == C || tid == T0 || tid == TS)) {
    const int role = tid == 0 ? 0 : (tid == C ? 1 : (tid == T0 ? 2 : 3));
    for (int k = 0; k < 4; ++k) Q.prof[(std::size_t(blockIdx.x) * 4 + role) * 4 + k] = pacc[k];
  }
}

// ---- bi_solve_ws: the warp-specialized solve (fp32, L^{-1} in fragment order, staged rows and Y by tensor
// copies, split mode off), one CTA per tile of W columns ----
// bi_solve's two barriers of all C W threads per chunk made every chunk step as long as its slowest role
// (benchmarks.md, GPU v9: the far sums, the tensor copies and the product each near 20 ms of the bandwidth
// case). Here three groups run their own loops and meet only through mbarriers:
//   product (2 C threads, warps 0 .. C / 16 - 1): per chunk c, waits until F_c is ready and the lists and
//     L^{-1} of c have arrived; w_c = F_c + near reads (thread: row t / 2, 4 columns); named barrier; y_c =
//     L^{-1} w_c by 3xTF32 mma (warp mi: m-tile mi) into the ring; "chunk c done" (every thread arrives);
//     named barrier.
//   far (kParts C threads): F_c = A X + ring reads + staged rows (row t % C, every kParts-th read), after
//     "chunk c - 2 done" (its ring rows are final, and the F buffer it reuses was read) and the arrival of
//     c's lists and staged rows; then "F_c ready".
//   issue (one thread): after "chunk c - 1 done", the tensor store of Y rows of c - 1 from the ring, and the
//     copies that reuse c - 1's buffers: L^{-1} of c + 2, lists of c + EB - 1; after "F_c ready", the staged
//     rows of c + 3 (into c's staging buffer).
// Every wait is on an earlier chunk of another group, so the groups cannot deadlock; "done" and "F ready"
// are arrays of kWsK mbarriers indexed by chunk, and no group gets kWsK chunks ahead of a waiter (each is
// held back by the others' copies), so a waiter's parity is never ambiguous.
constexpr int kWsK = 8;
template <int C>
constexpr int ws_threads() {
  return 2 * C + kWsParts * C + 32;
}
// PROF: the SolveOptions::profile instance (Q.prof set), the only one with the cycle counters (their
// clock reads and tests were about 7% of the kernel's instructions, benchmarks.md GPU v13)
template <int C, bool PROF>
__global__ void __launch_bounds__(ws_threads<C>(), 1)
    bi_solve_ws(DevProblem<float> P, Params Q, const __grid_constant__ CUtensorMap tmx,
                const __grid_constant__ CUtensorMap tmy) {
  using T = float;
  constexpr int W = kW<T>, LD = kLD<C>, NP = kWsParts, EB = kEBufsWs, GB = kGBufsWs;
  constexpr std::uint32_t NPT = 2 * C, NFT = NP * C, TI = NPT + NFT;  // product, far threads; issue thread
  constexpr std::uint32_t LB = linv_bytes<T, C>() / sizeof(T);
  extern __shared__ __align__(16) unsigned char sm[];
  const std::uint32_t R = Q.R, rmask = R - 1;
  // the layout of bi_solve (bi_plan sizes it), then the chunk-indexed mbarriers
  T* ring = reinterpret_cast<T*>(sm + ((128u - (smem_u32(sm) & 127u)) & 127u));  // [R][W]
  T* lbuf = ring + std::size_t(R) * W;                                           // [kLBufs][LB]
  unsigned char* ebuf = reinterpret_cast<unsigned char*>(lbuf + kLBufs * LB);    // [EB][e_bytes]
  unsigned char* gbuf = ebuf + EB * std::size_t(Q.e_bytes);
  gbuf += (128u - (smem_u32(gbuf) & 127u)) & 127u;                      // [GB][g_bytes]
  T* fpart = reinterpret_cast<T*>(gbuf + GB * std::size_t(Q.g_bytes));  // [2][NP][C][W]
  T* wt = fpart + 2 * NP * C * W;                                       // [W][LD]
  std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(wt + W * LD);  // L, lists, staged rows
  std::uint64_t* barF = bars + kLBufs + EB + GB;                        // [kWsK] F_c ready
  std::uint64_t* barD = barF + kWsK;                                    // [kWsK] chunk c done
  // B's offsets (the lists hold none: row r's read k is at offset offs[m_r + k], m_r = offsets <= r)
  std::uint32_t* offs = reinterpret_cast<std::uint32_t*>(barD + kWsK);  // [Q.noffs]
  const std::uint32_t tid = threadIdx.x, col0 = blockIdx.x * W;
  const std::uint32_t h = Q.heads > 1 ? col0 / P.dh : 0;
  const std::uint32_t nch = P.nchunks, gx = Q.gx, n = P.n;
  const unsigned char* pk0 = Q.pkg + std::uint64_t(h) * nch * Q.pkg_bytes;
  auto ev = [&](std::uint32_t c) {
    return eview<T, C>(ebuf + (c % EB) * std::size_t(Q.e_bytes), Q.kx, true);
  };
  auto m_of = [&](std::uint32_t r) {  // offsets <= r (they ascend)
    std::uint32_t m = 0;
    while (m < Q.noffs && offs[m] <= r) ++m;
    return m;
  };
  auto gx_rows = [&](std::uint32_t c) {
    return reinterpret_cast<T*>(gbuf + (c % GB) * std::size_t(Q.g_bytes));
  };
  auto wait_on = [](std::uint64_t* b, std::uint32_t k, std::uint32_t c) {
    mbar_wait(b + c % k, (c / k) & 1u);
  };
  unsigned long long pacc[4] = {0, 0, 0, 0};
  long long pt = PROF ? clock64() : 0;
  auto mark = [&](int k) {
    if (PROF) prof_mark(pacc, k, pt);
  };
  if (tid == 0) {
    for (int b = 0; b < kLBufs + EB + GB; ++b) mbar_init(bars + b, 1);
    for (int b = 0; b < kWsK; ++b) {
      mbar_init(barF + b, NFT);
      mbar_init(barD + b, NPT);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  for (std::uint32_t k = tid; k < Q.noffs; k += blockDim.x) offs[k] = __ldg(P.b.off + k);
  __syncthreads();
  int role = 0;
  if (tid >= TI) {  // ---- issue ----
    if (tid != TI) return;
    role = 2;
    auto copy_l = [&](std::uint32_t c) {
      if (c < nch)
        bulk_copy(lbuf + (c % kLBufs) * LB, pk0 + std::uint64_t(c) * Q.pkg_bytes, Q.linv_bytes,
                  bars + c % kLBufs);
    };
    auto copy_e = [&](std::uint32_t c) {
      if (c < nch)
        bulk_copy(ebuf + (c % EB) * std::size_t(Q.e_bytes),
                  pk0 + std::uint64_t(c) * Q.pkg_bytes + Q.linv_bytes, Q.e_bytes, bars + kLBufs + c % EB);
    };
    auto stage = [&](std::uint32_t c) {  // x (or A X) and the rows beyond the ring, one box each
      if (c >= nch) return;
      std::uint64_t* bar = bars + kLBufs + EB + c % GB;
      asm volatile("fence.proxy.async.global;" ::: "memory");
      mbar_expect(bar, (gx + 1) * C * W * unsigned(sizeof(T)));
      T* d = gx_rows(c);
      tma_box(d, Q.a_prepass ? &tmy : &tmx, int(col0), int(c * C), bar);
      for (std::uint32_t j = 0; j < gx; ++j)
        tma_box(d + (j + 1) * C * W, &tmy, int(col0), int(c * C) - int(Q.goff[j]), bar);
    };
    auto store = [&](std::uint32_t c) {  // Y rows of chunk c from the ring
      if (!Q.ytma) return;               // (the product threads stored them)
      tma_store_box(&tmy, int(col0), int(c * C), ring + ((c * C) & rmask) * W);
      // the staged rows of c + 4, copied next, are rows of chunks <= c + 4 - (R - C) / C - 1, complete by
      // then; and a ring slot is rewritten R / C chunks later
      y_stores_throttle<C>(R);
    };
    copy_l(0);
    copy_l(1);
    for (std::uint32_t c = 0; c + 1 < std::uint32_t(EB); ++c) copy_e(c);
    for (std::uint32_t c = 0; c + 1 < std::uint32_t(GB); ++c) stage(c);
    for (std::uint32_t c = 0; c < nch; ++c) {
      if (c >= 1) {
        wait_on(barD, kWsK, c - 1);
        mark(0);
        store(c - 1);
        mark(1);
      }
      copy_l(c + 2);
      copy_e(c + EB - 1);
      mark(2);
      if (c >= 1)
        wait_on(barF, kWsK, c - 1);  // far has read the staged rows of c - 1, whose buffer c + GB - 1 takes
      stage(c + GB - 1);
      mark(3);
    }
    wait_on(barD, kWsK, nch - 1);
    store(nch - 1);
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  } else if (tid >= NPT) {  // ---- far ----
    role = 1;
    const std::uint32_t t = tid - NPT, r = t % C, p = t / C, mr = m_of(r), sw = seg_sw<T>(r, Q.swz);
    const int dsw = seg_dsw<T>(sw);
    const T* ring_s = ring + sw;        // row halves in swizzled order (seg_sw), sw in the bases
    auto a_of = [&](std::uint32_t c) {  // A's diagonal at row c C + r (read a chunk ahead: global latency)
      const std::uint32_t i = c * C + r;
      return (Q.a_prepass || c >= nch || i >= n) ? T(1)
                                                 : __ldg(P.a.val + (h * P.a.hs + std::uint64_t(i) * P.a.is));
    };
    T a_next = a_of(0);
    for (std::uint32_t c = 0; c < nch; ++c) {
      const T a = a_next;
      a_next = a_of(c + 1);
      if (c >= 2) wait_on(barD, kWsK, c - 2);
      mark(0);
      wait_on(bars + kLBufs, EB, c);
      wait_on(bars + kLBufs + EB, GB, c);
      mark(1);
      Seg<T> f = seg_zero<T>();
      const std::uint32_t i = c * C + r;
      if (i < n) {
        const T* g = gx_rows(c) + sw;
        if (p == 0) seg_fma(f, a, seg_ld2(g + std::size_t(r) * W, dsw));
        const EView<T, C> e = ev(c);
        const std::uint32_t q = e.cnt[r], nn = q & 1023u, nr = (q >> 10) & 1023u, nx = q >> 20;
        // reads in batches of KB, every load of a batch issued before the first is used (one at a time,
        // each waiting for its offset, the far sums were the longest role of the bandwidth case)
        constexpr std::uint32_t KB = 4;
        for (std::uint32_t k0 = nn + p; k0 < nx; k0 += KB * NP) {
          T cf[KB];
          const T* src[KB];
#pragma unroll
          for (std::uint32_t u = 0; u < KB; ++u) {
            const std::uint32_t k = k0 + u * NP;
            cf[u] = k < nx ? e.coef[k * C + r] : T(0);
            // every read beyond the ring is staged (bi_plan)
            src[u] = k >= nx  ? g
                     : k < nr ? ring_s + ((i - offs[mr + k]) & rmask) * W
                              : g + (std::size_t(k - nr + 1) * C + r) * W;
          }
          Seg<T> v[KB];
#pragma unroll
          for (std::uint32_t u = 0; u < KB; ++u)
            v[u] = k0 + u * NP < nx ? seg_ld2(src[u], dsw) : seg_zero<T>();
#pragma unroll
          for (std::uint32_t u = 0; u < KB; ++u)
            if (k0 + u * NP < nx) seg_fma(f, cf[u], v[u]);
        }
      }
      seg_st2(fpart + ((c & 1) * NP + p) * C * W + r * W + sw, dsw, f);
      mbar_arrive(barF + c % kWsK);
      mark(2);
    }
  } else {  // ---- product ----
    const std::uint32_t r = tid >> 1, hf = tid & 1, wp = tid >> 5, lane = tid & 31, mr = m_of(r);
    for (std::uint32_t c = 0; c < nch; ++c) {
      const std::uint32_t s = c * C;
      wait_on(barF, kWsK, c);
      wait_on(bars + kLBufs, EB, c);
      mark(0);
      {  // near: w = F + reads of chunk c - 1, row r, columns 4 hf ..
        const T* fp = fpart + (c & 1) * NP * C * W + r * W + 4 * hf;
        float4 w = *reinterpret_cast<const float4*>(fp);
#pragma unroll
        for (int p = 1; p < NP; ++p) vadd(w, *reinterpret_cast<const float4*>(fp + p * C * W));
        const EView<T, C> e = ev(c);
        const std::uint32_t nn = e.cnt[r] & 1023u;
        constexpr std::uint32_t KB = 4;  // batches, as in the far sums
        for (std::uint32_t k0 = 0; k0 < nn; k0 += KB) {
          float cf[KB];
          float4 v[KB];
#pragma unroll
          for (std::uint32_t u = 0; u < KB; ++u) {
            const std::uint32_t k = k0 + u;
            cf[u] = k < nn ? e.coef[k * C + r] : 0.f;
            v[u] =
                k < nn
                    ? *reinterpret_cast<const float4*>(ring + ((s + r - offs[mr + k]) & rmask) * W + 4 * hf)
                    : make_float4(0.f, 0.f, 0.f, 0.f);
          }
#pragma unroll
          for (std::uint32_t u = 0; u < KB; ++u)
            if (k0 + u < nn) vfma(w, cf[u], v[u]);
        }
        wt[(4 * hf + 0) * LD + r] = w.x;
        wt[(4 * hf + 1) * LD + r] = w.y;
        wt[(4 * hf + 2) * LD + r] = w.z;
        wt[(4 * hf + 3) * LD + r] = w.w;
      }
      mark(1);
      wait_on(bars, kLBufs, c);
      asm volatile("bar.sync 2, %0;" ::"n"(NPT) : "memory");
      mark(2);
      {  // y = L^{-1} w: warp wp, m-tile wp
        float y[4];
        const float* lf = lbuf + (c % kLBufs) * LB;
        mma_mtile<C, LD>(lf, wt, wp, lane, y);
        const std::uint32_t r0 = 16 * wp + (lane >> 2), c0 = 2 * (lane & 3);
        *reinterpret_cast<float2*>(ring + ((s + r0) & rmask) * W + c0) = make_float2(y[0], y[1]);
        *reinterpret_cast<float2*>(ring + ((s + r0 + 8) & rmask) * W + c0) = make_float2(y[2], y[3]);
        if (Q.ytma) {
          // these ring writes, before the tensor store (async proxy) that reads them
          asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        } else if (col0 + c0 < P.d) {
          // Y by per-thread stores, off the tensor unit (the issue thread's proxy fence before it stages
          // rows orders these after "chunk done")
          if (s + r0 < n)
            *reinterpret_cast<float2*>(P.y + std::uint64_t(s + r0) * P.d + col0 + c0) =
                make_float2(y[0], y[1]);
          if (s + r0 + 8 < n)
            *reinterpret_cast<float2*>(P.y + std::uint64_t(s + r0 + 8) * P.d + col0 + c0) =
                make_float2(y[2], y[3]);
        }
      }
      // every writer of the ring rows arrives itself (a release of its own writes), rather than one thread
      // after the barrier: compute-sanitizer's racecheck does not follow a barrier then another thread's
      // arrive, and reported the far sums' ring reads as hazards (benchmarks.md, GPU v10)
      mbar_arrive(barD + c % kWsK);
      asm volatile("bar.sync 2, %0;" ::"n"(NPT) : "memory");
      mark(3);
    }
  }
  if (PROF && (tid == 0 || tid == NPT || tid == TI))
    for (int k = 0; k < 4; ++k) Q.prof[(std::size_t(blockIdx.x) * 4 + role) * 4 + k] = pacc[k];
}

}  // namespace bi
