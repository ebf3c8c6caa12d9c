#pragma once
// gpu-blockinv: bi_build, the package (L_c^{-1} and read lists) of every (head, chunk), in parallel
// (layout: blockinv_common.cuh).

#include "blockinv_common.cuh"

namespace mixgraph::gpu {
namespace {
namespace bi {

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

}  // namespace bi
}  // namespace
}  // namespace mixgraph::gpu
