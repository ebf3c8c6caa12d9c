#pragma once
// gpu-blockinv: bi_solve, one CTA per column tile marching over the chunks (split mode: with the far
// workers of blockinv_far.cuh in one cooperative grid).

#include <cstring>

#include "blockinv_far.cuh"
#include "blockinv_mma.cuh"
#include "blockinv_seg.cuh"

namespace mixgraph::gpu {
namespace {
namespace bi {

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

}  // namespace bi
}  // namespace
}  // namespace mixgraph::gpu
