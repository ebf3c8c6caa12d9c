#pragma once
// The gpu-blockinv part of the planner (bi_plan: chunk, ring, mode, staging, copies) and its launch.

#include <algorithm>
#include <string>

#include "blockinv_build.cuh"
#include "blockinv_far.cuh"
#include "blockinv_solve.cuh"
#include "blockinv_solve_ws.cuh"
#include "mixgraph/gpu_solve.hpp"
#include "plan_types.cuh"

namespace mixgraph::gpu {
namespace {

// The driver's tensor-map encoder, through the runtime (no link to libcuda); null if the driver lacks it.
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 enc = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      f = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return enc;
}
// A 2-D tensor map over the n x d row-major matrix at p, boxes of W columns x C rows (bi_solve's staged
// rows); false when there is no encoder or it refuses (the caller then stages with cp.async).
template <class T>
bool tensor_map(CUtensorMap& m, const T* p, std::uint32_t n, std::uint32_t d, std::uint32_t W,
                std::uint32_t C) {
  const PFN_cuTensorMapEncodeTiled_v12000 enc = tensor_map_encoder();
  if (!enc || (reinterpret_cast<std::uintptr_t>(p) & 15u) || (std::size_t(d) * sizeof(T)) % 16) return false;
  const cuuint64_t dims[2] = {d, n}, strides[1] = {cuuint64_t(d) * sizeof(T)};
  const cuuint32_t box[2] = {W, C}, estr[2] = {1, 1};
  return enc(&m, sizeof(T) == 8 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2,
             const_cast<T*>(p), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// bi_build's instance for ku reads loaded ahead per row (bi::build_ku)
template <class T, int C, bool IMP>
auto bi_build_kernel(std::uint32_t ku) {
  return ku <= 4   ? bi::bi_build<T, C, IMP, 4>
         : ku == 5 ? bi::bi_build<T, C, IMP, 5>
         : ku == 6 ? bi::bi_build<T, C, IMP, 6>
         : ku == 7 ? bi::bi_build<T, C, IMP, 7>
                   : bi::bi_build<T, C, IMP, 8>;
}

// gpu-blockinv launch: packages (coefficients only), then the solve.
template <class T, int C, bool IMP>
void bi_launch(Plan<T>& pl, const DevProblem<T>& P, cudaStream_t st) {
  bi::Params q = pl.bq;
  CUtensorMap tmx{}, tmy{};
  if (q.tma)
    q.tma = tensor_map(tmx, P.x, P.n, P.d, bi::kW<T>, C) && tensor_map(tmy, P.y, P.n, P.d, bi::kW<T>, C);
  MG_CUDA(cudaMemsetAsync(pl.bq.err, 0, 2 * sizeof(std::uint32_t), st), "memset");
  if (pl.bq.split)
    MG_CUDA(cudaMemsetAsync(pl.bi_flags.p, 0, pl.bi_nflags * sizeof(std::uint32_t), st), "memset");
  if (pl.bi_ev[0]) MG_CUDA(cudaEventRecord(pl.bi_ev[0], st), "event");
  if (pl.bq.a_prepass && !pl.bq.split) bi::bi_ax<T><<<4 * num_sms(), 256, 0, st>>>(P);
  bi_build_kernel<T, C, IMP>(pl.bi_ku)<<<P.nchunks * q.heads, C, pl.bi_build_smem, st>>>(P, q, pl.bi_kin);
  MG_CUDA(cudaGetLastError(), "blockinv build launch");
  if (pl.bi_ev[1]) MG_CUDA(cudaEventRecord(pl.bi_ev[1], st), "event");
  if (q.split) {  // tiles and far workers, all co-resident
    DevProblem<T> p = P;
    void* args[] = {&p, &q, &tmx, &tmy};
    MG_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(bi::bi_solve<T, C, bi::kEBufsSplit>),
                                        dim3(pl.ntiles + q.nworkers), dim3(C * bi::kW<T> + bi::kPubThreads),
                                        args, pl.smem, st),
            "blockinv split launch");
  } else {
    if (pl.bi_ws) {
      // its read lists hold no offsets, so bi_solve cannot take a warp-specialized plan's packages
      if (!q.tma)
        throw std::string(
            "internal error: the tensor maps of the warp-specialized solve could not be encoded");
      if constexpr (sizeof(T) == 4)
        (q.prof ? bi::bi_solve_ws<C, true>
                : bi::bi_solve_ws<C, false>)<<<pl.ntiles, bi::ws_threads<C>(), pl.smem, st>>>(P, q, tmx, tmy);
      else
        throw std::string("internal error: a warp-specialized plan that is not fp32");
    } else {
      bi::bi_solve<T, C, bi::kEBufs><<<pl.ntiles, C * bi::kW<T>, pl.smem, st>>>(P, q, tmx, tmy);
    }
    MG_CUDA(cudaGetLastError(), "blockinv solve launch");
  }
  if (pl.bi_ev[2]) MG_CUDA(cudaEventRecord(pl.bi_ev[2], st), "event");
}

// Plans gpu-blockinv with chunks of C rows; false (and why) when the problem does not suit it.
// mode 0: one CTA per tile, reads beyond the ring staged from Y (up to kGCap per row, the rest read
// directly); 1: the same, but only when no row has more than kGCap such reads; 2: split mode (far workers
// compute the reads at offsets >= G = R - C + 1, the tiles only the ring's).
// 3: as 1, and only where the warp-specialized solve applies (fp32, tensor copies throughout)
enum BiMode { kBiPlain = 0, kBiPlainStaged = 1, kBiSplit = 2, kBiPlainWs = 3 };
template <class T, int C>
bool bi_plan(Plan<T>& pl, DevProblem<T>& P, const SolveMatrix& a, const SolveMatrix& b, std::uint32_t heads,
             int mode, const SolveOptions& o, std::string& why) {
  const bool split = mode == kBiSplit;
  constexpr int W = bi::kW<T>;
  const std::uint32_t dh = P.d / heads;
  if (P.d % W != 0) {
    why = "d is not a multiple of the tile width " + std::to_string(W);
    return false;
  }
  if (heads > 1 && dh % W != 0) {
    why = "heads of " + std::to_string(dh) + " columns are narrower than a tile of " + std::to_string(W);
    return false;
  }
  // per row of a chunk: reads of earlier rows outside the chunk (kx; in split mode only those at offsets
  // <= lim = R - C) and inside it (kin)
  auto count_reads = [&](std::uint32_t lim, std::uint32_t& kx, std::uint32_t& kin) {
    kx = 0;
    kin = 0;
    if (b.implicit) {
      for (std::uint32_t k = 0; k < b.k; ++k) {
        const std::uint32_t o = b.offsets[k];
        if (o == 0 || o > lim) continue;
        ++kx;                                       // row 0 of a chunk reads every offset outside the chunk
        if (o < std::uint32_t(C) && o != 1) ++kin;  // (bi_build keeps the read of row q - 1 in a register)
      }
    } else {
      for (std::uint32_t i = 0; i < P.n; ++i) {
        std::uint32_t in = 0, out = 0;
        for (std::uint64_t e = b.ptr[i]; e < b.ptr[i + 1]; ++e) {
          if (b.idx[e] >= i || i - b.idx[e] > lim) continue;
          const std::uint64_t o = i - b.idx[e];
          if (o > i % C)
            ++out;
          else if (o != 1)  // (bi_build keeps the read of row q - 1 in a register)
            ++in;
        }
        kx = std::max(kx, out);
        kin = std::max(kin, in);
      }
    }
    kx = std::max<std::uint32_t>(kx, 1);
    kin = std::max<std::uint32_t>(kin, 1);
  };
  const std::uint32_t nsm = std::uint32_t(num_sms()), ntiles = (P.d + W - 1) / W;
  if (split && ntiles > nsm / 2) {
    why = "split mode needs half the multiprocessors for far workers (" + std::to_string(ntiles) + " tiles)";
    return false;
  }
  std::uint32_t kx = 0, kin = 0;
  count_reads(~0u, kx, kin);
  if (kx > 1023 && !split) {
    why = "more than 1023 reads per row";
    return false;
  }
  int dev = 0, optin = 0;
  cudaGetDevice(&dev);
  MG_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "attribute");
  // fp32: L^{-1} in mma fragment order, products by 3xTF32 tensor-core instructions (benchmarks.md, GPU v10);
  // SolveOptions::mma = false keeps the padded rows and the FMA product
  const bool mma = sizeof(T) == 4 && o.mma;
  const std::size_t lbuf = bi::linv_bytes<T, C>();  // one L^{-1} buffer of bi_solve (either layout)
  const std::size_t lb = mma ? bi::linv_frag_bytes<C>() : bi::linv_rows_bytes<T, C>();  // in a package
  // the warp-specialized solve (mode kBiPlainWs; benchmarks.md, GPU v10): fp32 implicit B, its own buffer
  // counts and far threads, read lists without offsets. SolveOptions::ws = false keeps bi_solve
  const bool wsl = mode == kBiPlainWs;
  if (wsl && !(sizeof(T) == 4 && mma && b.implicit && !split && o.ws)) {
    why = "the warp-specialized solve does not apply";
    return false;
  }
  const int ebufs = wsl ? bi::kEBufsWs : split ? bi::kEBufsSplit : bi::kEBufs;
  const int gbufs = wsl ? bi::kGBufsWs : bi::kGBufs, parts = wsl ? bi::kWsParts : bi::kParts;
  // reads per row at offsets > R - C ("global": staged from Y), capped at kGCap (the rest are read directly)
  auto global_reads = [&](std::uint32_t R) {
    std::uint32_t g = 0;
    if (b.implicit) {
      for (std::uint32_t k = 0; k < b.k; ++k) g += b.offsets[k] > R - C ? 1 : 0;
    } else {
      for (std::uint32_t i = 0; i < P.n; ++i) {
        std::uint32_t m = 0;
        for (std::uint64_t e = b.ptr[i]; e < b.ptr[i + 1]; ++e)
          m += (b.idx[e] < i && i - b.idx[e] > R - C) ? 1 : 0;
        g = std::max(g, m);
      }
    }
    return g;
  };
  auto smem_for = [&](std::uint32_t R, std::uint32_t gx) {
    if (split) count_reads(R - C, kx, kin);
    const std::size_t gb = bi::round128(std::uint32_t(((gx + 1) * C * W + C) * sizeof(T)));
    return std::size_t(R) * W * sizeof(T) + bi::kLBufs * lbuf + ebufs * bi::e_bytes<T, C>(kx, wsl) +
           256 /* ring, gbuf: 128-byte alignment */ + gbufs * gb +
           std::size_t(2) * parts * C * W * sizeof(T) + std::size_t(W) * bi::kLD<C> * sizeof(T) +
           (bi::kLBufs + ebufs + gbufs + 2 * bi::kWsK) * sizeof(std::uint64_t) +
           (wsl ? std::size_t(std::min<std::uint32_t>(b.k, C + kx)) * 4 : 0);  // bi_solve_ws: B's offsets
  };
  auto staged_for = [&](std::uint32_t R) { return split ? 0u : std::min(global_reads(R), bi::kGCap); };
  std::uint32_t R = 4096;
  if (o.ring) R = o.ring;  // a cap (tests: rings of a few chunks)
  // R >= 8 C: rows staged three chunks ahead are at offsets > R - C and must be final by then. Split mode:
  // R >= 16 C, so that a far worker's chunk needs only rows published before a tile waits for it.
  const std::uint32_t rmin = (split ? 16u : 8u) * C;
  // (dynamic shared memory plus bi_solve's few static bytes must fit the opt-in limit)
  const std::size_t dyn_max = std::size_t(optin) - bi::kStaticSmem;
  while (R >= rmin && (R & (R - 1)) == 0 && smem_for(R, staged_for(R)) > dyn_max) R /= 2;
  if (R < rmin || (R & (R - 1)) != 0 || kx > 1023) {
    why = "the read lists (" + std::to_string(kx) + " per row) leave no room for the shared-memory ring";
    return false;
  }
  smem_for(R, 0);  // kx, kin of this R
  if ((mode == kBiPlainStaged || mode == kBiPlainWs) && global_reads(R) > bi::kGCap) {
    why = "more than " + std::to_string(bi::kGCap) + " reads per row beyond the ring (" +
          std::to_string(global_reads(R)) + ")";
    return false;
  }
  const std::uint32_t gx = staged_for(R);
  const std::size_t eb = bi::e_bytes<T, C>(kx, wsl), smem = smem_for(R, gx);
  // implicit B with every read beyond the ring staged: staged rows by tensor copies (bi_launch checks that
  // the driver encodes the maps), and Y by tensor stores too (benchmarks.md, GPU v8: 1-1.5% faster than
  // per-thread stores; in bi_solve_ws 0.7% faster on the bandwidth case but 9% slower at n = 65536, d = 256,
  // GPU v12); SolveOptions::tma / ytma = false turn them off
  const bool tma_ok = !split && b.implicit && gx == global_reads(R) && tensor_map_encoder() && o.tma;
  const bool ytma_ok = o.ytma;
  if (wsl && !tma_ok) {  // it stages by tensor copies (Y: a tensor store per chunk, or per-thread stores)
    why = "the warp-specialized solve needs every read beyond the ring staged by tensor copies";
    return false;
  }
  const void* sfn = split ? reinterpret_cast<const void*>(bi::bi_solve<T, C, bi::kEBufsSplit>)
                          : reinterpret_cast<const void*>(bi::bi_solve<T, C, bi::kEBufs>);
  raise_smem_limit(sfn, smem);
  if (split) {  // the cooperative grid (tiles + one far worker per other multiprocessor) must be resident
    int occ = 0;
    MG_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, sfn, C * W + bi::kPubThreads, smem),
            "occupancy");
    if (occ < 1) {
      why = "split mode: the grid cannot be resident";
      return false;
    }
  }
  const std::uint32_t nch = (P.n + C - 1) / C;
  const std::size_t pkg = lb + eb, total = std::size_t(heads) * nch * pkg;
  std::size_t fr = 0, tot = 0;
  MG_CUDA(cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
  if (total > fr / 2) {
    why = "the chunk inverses need " + std::to_string(total >> 20) + " MiB";
    return false;
  }
  pl.bi = true;
  P.nchunks = nch;
  pl.bi_pkg = DevBuf(total);
  pl.bi_err = DevBuf(2 * sizeof(std::uint32_t));
  pl.bq.pkg = pl.bi_pkg.template as<unsigned char>();
  pl.bq.pkg_bytes = std::uint32_t(pkg);
  pl.bq.linv_bytes = std::uint32_t(lb);
  pl.bq.mma = mma ? 1 : 0;
  // the far sums' rows in swizzled halves (bi::seg_sw); SolveOptions::swz = false keeps column order
  pl.bq.swz = o.swz ? 1 : 0;
  pl.bq.nooff = wsl ? 1 : 0;
  pl.bq.noffs = wsl ? std::min<std::uint32_t>(b.k, C + kx) : 0;
  pl.bq.e_bytes = std::uint32_t(eb);
  pl.bq.kx = kx;
  pl.bq.R = R;
  pl.bq.heads = heads;
  // else A is the diagonal, fused; in split mode the far workers write A X (+ far reads) into Y
  pl.bq.a_prepass = split || !(a.implicit && a.k == 1 && a.offsets[0] == 0);
  // 2 by default: measured (benchmarks.md, GPU v7), TMA with one waiting thread is the fastest
  pl.bq.copy = o.copy;
  if (o.profile) {
    const std::size_t pb = std::size_t((P.d + W - 1) / W) * 16 * sizeof(unsigned long long);
    pl.prof = DevBuf(pb);
    // zeros for roles a kernel does not have (the tensor-copy thread is the issue thread in narrow CTAs)
    MG_CUDA(cudaMemset(pl.prof.p, 0, pb), "memset");
    pl.bq.prof = pl.prof.template as<unsigned long long>();
    for (auto& e : pl.bi_ev) MG_CUDA(cudaEventCreate(&e), "event");  // kept for the process (diagnostics)
  }
  pl.bi_chunk = C;
  pl.bi_kin = kin;
  pl.bi_ku = bi::build_ku(kin);
  pl.ntiles = ntiles;
  pl.bq.err = pl.bi_err.template as<std::uint32_t>();
  pl.bq.stall = pl.bq.err + 1;
  pl.bq.split = 0;
  if (split) {
    pl.bq.split = R - C + 1;
    pl.bq.ntiles = ntiles;
    pl.bq.nworkers = nsm - ntiles;
    std::uint32_t kf = 0;
    if (b.implicit)
      while (kf < b.k && b.offsets[kf] < pl.bq.split) ++kf;
    pl.bq.kfar = kf;
    // parts per chunk: as many as keep about one segment (row, tile) per worker thread
    const std::uint32_t per_chunk = std::uint32_t(C) * (P.d / W);
    pl.bq.fparts = 1;
    while (pl.bq.fparts * 2 <= std::uint32_t(C) && per_chunk / (pl.bq.fparts * 2) >= std::uint32_t(C * W))
      pl.bq.fparts *= 2;
    pl.bi_nflags = ntiles + nch;
    pl.bi_flags = DevBuf(std::size_t(pl.bi_nflags) * sizeof(std::uint32_t));
    pl.bq.progress = pl.bi_flags.template as<std::uint32_t>();
    pl.bq.fready = pl.bq.progress + ntiles;
  }
  pl.smem = smem;
  pl.bq.gx = gx;
  pl.bq.g_bytes = bi::round128(std::uint32_t(((gx + 1) * C * W + C) * sizeof(T)));
  pl.bq.tma = tma_ok ? 1 : 0;  // (decided above)
  pl.bq.ytma = ytma_ok ? 1 : 0;
  pl.bi_ws = wsl;
  if (pl.bi_ws) {
    if constexpr (sizeof(T) == 4)
      for (const void* f : {reinterpret_cast<const void*>(bi::bi_solve_ws<C, false>),
                            reinterpret_cast<const void*>(bi::bi_solve_ws<C, true>)})
        raise_smem_limit(f, smem);
  }
  if (pl.bq.tma) {
    std::uint32_t j = 0;
    for (std::uint32_t k = 0; k < b.k && j < gx; ++k)
      if (b.offsets[k] > R - C) pl.bq.goff[j++] = b.offsets[k];
  }
  pl.bi_build_smem = bi::linv_rows_bytes<T, C>() + eb + bi::build_rd_bytes<T, C>(kin, pl.bi_ku);
  const void* bfn = b.implicit ? reinterpret_cast<const void*>(bi_build_kernel<T, C, true>(pl.bi_ku))
                               : reinterpret_cast<const void*>(bi_build_kernel<T, C, false>(pl.bi_ku));
  raise_smem_limit(bfn, pl.bi_build_smem);
  pl.bi_launch = b.implicit ? bi_launch<T, C, true> : bi_launch<T, C, false>;
  pl.name = std::string("gpu-blockinv-") + (b.implicit ? "implicit" : "csr") + "<" +
            (sizeof(T) == 8 ? "fp64" : "fp32") + (mma ? ",3xtf32" : "") + ",chunk=" + std::to_string(C) +
            ",tile=" + std::to_string(W) + ",ring=" + std::to_string(R) + ",lists=" + std::to_string(kx) +
            ",staged=" + std::to_string(gx) + (pl.bq.tma ? (pl.bq.ytma ? "(tma),Y=tma" : "(tma)") : "") +
            (pl.bi_ws ? ",ws" : "") +
            (split ? ",split=" + std::to_string(pl.bq.split) + ",workers=" + std::to_string(pl.bq.nworkers) +
                         "x" + std::to_string(pl.bq.fparts)
                   : std::string(pl.bq.a_prepass ? ",A=pass" : ",A=diag")) +
            ">";
  return true;
}

}  // namespace
}  // namespace mixgraph::gpu
