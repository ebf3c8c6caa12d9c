#pragma once
// gpu-blockinv: chunked block forward substitution with precomputed chunk inverses (docs/design.md).
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
//
// This file: the tile, ring and buffer constants, Params (the launch parameters), the package
// layout (L^{-1} rows or mma fragments, read lists) and the package build's read width.
#include <cuda.h>  // CUtensorMap (the encoder is taken from the runtime: no link to libcuda)
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common.cuh"
#include "tma.cuh"

namespace mixgraph::gpu {
namespace {
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

}  // namespace bi
}  // namespace
}  // namespace mixgraph::gpu
