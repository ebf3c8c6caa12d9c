#pragma once
// gpu-blockinv: bi_solve_ws, the warp-specialized solve (fp32, staged rows and Y by tensor copies).

#include <cstring>

#include "blockinv_mma.cuh"
#include "blockinv_seg.cuh"

namespace mixgraph::gpu {
namespace {
namespace bi {

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
}  // namespace
}  // namespace mixgraph::gpu
