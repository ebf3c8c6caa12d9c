#pragma once
// The planner (make_plan: scan, blockinv or pipeline, as SolveOptions allow), one solve (run_plan) and
// its status check (check_plan, with the profile counters).

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "mixgraph/gpu_solve.hpp"
#include "pipeline_solve.cuh"
#include "plan_blockinv.cuh"
#include "scan.cuh"

namespace mixgraph::gpu {
namespace {

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
  raise_smem_limit(fn, pl.smem);
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
    const bool fused = pl.sg.a.on || pl.sg.b.on;
    if (fused)
      scan_maps<T, true><<<bl, 256, 0, st>>>(P, pl.sg, pl.pm.template as<T>(), pl.qm.template as<T>());
    else
      scan_maps<T, false><<<bl, 256, 0, st>>>(P, pl.sg, pl.pm.template as<T>(), pl.qm.template as<T>());
    scan_carry<T><<<(P.d + 127) / 128, 128, 0, st>>>(P, pl.pm.template as<T>(), pl.qm.template as<T>(),
                                                     pl.carry.template as<T>());
    if (fused)
      scan_apply<T, true><<<bl, 256, 0, st>>>(P, pl.sg, pl.carry.template as<T>());
    else
      scan_apply<T, false><<<bl, 256, 0, st>>>(P, pl.sg, pl.carry.template as<T>());
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

// check_plan's status words, copied on the device into the no-wait calls' status word (Workspace::status):
// bit 1 a blockinv read list overflowed, 2 the blockinv split mode stalled, 4 the pipeline kernel stalled.
constexpr std::uint32_t kStatusList = 1, kStatusSplitStall = 2, kStatusPipelineStall = 4;

__global__ void collect_status(const std::uint32_t* a, std::uint32_t abit, const std::uint32_t* b,
                               std::uint32_t bbit, volatile std::uint32_t* out) {
  std::uint32_t s = 0;
  if (a && *a) s |= abit;
  if (b && *b) s |= bbit;
  if (s) *out = *out | s;
}

// Queues on st the copy of the plan's status words into out (a device address of mapped host memory): the
// check of check_plan without a host synchronisation; status_message() reads the bits.
template <class T>
void queue_status(Plan<T>& pl, cudaStream_t st, std::uint32_t* out) {
  if (pl.scan) return;
  if (pl.bi)
    collect_status<<<1, 1, 0, st>>>(pl.bq.err, kStatusList, pl.bq.stall, kStatusSplitStall, out);
  else
    collect_status<<<1, 1, 0, st>>>(pl.flags.template as<std::uint32_t>() + pl.tiles_per,
                                    kStatusPipelineStall, nullptr, 0, out);
  MG_CUDA(cudaGetLastError(), "status");
}

// What status bits of queue_status mean ("" for none), in check_plan's words.
std::string status_message(std::uint32_t bits) {
  if (bits & kStatusList) return "internal error: a blockinv read list overflowed";
  if (bits & kStatusSplitStall)
    return "internal error: the blockinv split mode stalled (a wait exceeded 20 s)";
  if (bits & kStatusPipelineStall)
    return "internal error: the pipeline kernel stalled (a wait exceeded 20 s)";
  return "";
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

}  // namespace
}  // namespace mixgraph::gpu
