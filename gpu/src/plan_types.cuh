#pragma once
// The plan: which kernel runs and its workspace (planner: plan.cuh).

#include <string>

#include "blockinv_common.cuh"
#include "common.cuh"
#include "host.cuh"
#include "scan.cuh"

namespace mixgraph::gpu {
namespace {

// Which kernel runs and its workspace. Built once per problem (host structure in hand), launched many times.
template <class T>
struct Plan {
  bool scan = false;
  std::string name;
  // pipeline
  unsigned grid = 0;            // CTAs per launch (solver CTAs + gather CTAs), all co-resident
  std::uint32_t tiles_per = 0;  // solver CTAs (tiles) per launch
  std::uint32_t ntiles = 0;
  std::size_t smem = 0;
  DevBuf vring, flags;  // flags: progress[tiles_per] then err
  DevBuf prof;          // SolveOptions::profile
  // scan
  DevBuf pm, qm, carry;
  ScanGen sg;  // seeded coefficients made in the scan kernels (the FUSED instances) where sg.a/b.on
  // blockinv
  bool bi = false;
  bi::Params bq;
  DevBuf bi_pkg, bi_err;  // bi_err: [0] list overflow, [1] split-mode stall
  DevBuf bi_flags;        // split mode: progress [ntiles], fready [nchunks]
  std::uint32_t bi_nflags = 0;
  std::uint32_t bi_chunk = 0;           // C
  std::uint32_t bi_kin = 0, bi_ku = 4;  // bi_build: longest in-chunk read list, reads loaded ahead (build_ku)
  std::size_t bi_build_smem = 0;
  bool bi_ws = false;  // the warp-specialized solve (bi_solve_ws) where it applies
  cudaEvent_t bi_ev[3] = {nullptr, nullptr, nullptr};  // SolveOptions::profile: start, built, solved
  void (*bi_launch)(Plan&, const DevProblem<T>&, cudaStream_t) = nullptr;
  std::string explain;  // what the planner chose and why (SolveRun::plan)
};

bool first_order(const SolveMatrix& a, const SolveMatrix& b) {
  return a.implicit && b.implicit && b.k == 1 && b.offsets[0] == 1;
}

// SolveOptions::Layout: channel-major coefficients, for gpu-scan1 only (the planner's first choice on
// first-order patterns under Kernel::Auto); Auto takes it where a warp's 32 columns span several heads.
bool channel_major(const SolveProblem& p, const SolveOptions& o) {
  if (o.kernel != SolveOptions::Kernel::Auto || !first_order(p.a, p.b)) return false;
  if (o.layout != SolveOptions::Layout::Auto) return o.layout == SolveOptions::Layout::ChannelMajor;
  return p.heads > 1 && p.d / p.heads < 32;
}

// SolveOptions::Fused: seeded coefficients made inside gpu-scan1 (which the planner takes for every
// first-order pattern under Kernel::Auto) unless asked off.
bool fused_seeded(const SolveProblem& p, const SolveOptions& o) {
  if (o.kernel != SolveOptions::Kernel::Auto || !first_order(p.a, p.b)) return false;
  if (o.fused_seeded == SolveOptions::Fused::Off) return false;
  return p.a.gen == CoefGen::Seeded || p.b.gen == CoefGen::Seeded;
}

}  // namespace
}  // namespace mixgraph::gpu
