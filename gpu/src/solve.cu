// GPU sparse mixer solve (gpu_solve.hpp). C++17, plain pointers, no lib/ headers.
//
// Three kernels (every run names the one it used; make_plan chooses):
//
// * gpu-blockinv (blockinv_*.cuh): the default where it fits; chunk inverses built in parallel, then one
//   CTA per 8-column tile (4 in fp64) marching over chunks of 64 rows. In split mode (tiles on at most half
//   the multiprocessors) far-worker CTAs of the same cooperative grid write A X + the long-range reads into
//   Y ahead of the tiles.
// * gpu-pipeline: the fallback (heads narrower than a tile, d not a multiple of the tile, read lists too
//   long for shared memory). Chunked block forward substitution spread over the whole GPU. Columns are cut
//   into tiles of 32 (a warp, one column per lane) and rows into chunks of 64. One persistent, cooperative
//   grid:
//   - one *solver* CTA per tile marches over the chunks in order. Its warp 0 solves the chunk row by row:
//     reads at offsets < 8 from registers (a dense band with zero coefficients where the pattern has no
//     read), reads at offsets 8..127 from a shared-memory ring of the last F rows. Its helper warps stage
//     the next chunk meanwhile: the far sums (below), plus the reads at offsets 128..F-1 from the ring, plus
//     the chunk's coefficients.
//   - every other CTA is a *gather* CTA: it computes V = A X + (reads at offsets >= F) for (tile, chunk,
//     row group) items in chunk order, as soon as the rows F back are final, and writes them into a small
//     ring in global memory (slots start as a sentinel NaN, the helpers spin until none is left).
//   So the sequential part (the solver warp) only does the short reads, and the long-range traffic, the
//   bulk of the bytes for patterns like sq1, is spread over all multiprocessors.
//   Progress flows one way: the solver CTA publishes "chunks done" (release at GPU scope, from a spare warp
//   so the fence is off the critical path); gather CTAs acquire it before reading Y.
// * gpu-scan1: first-order recurrences (B reads only i - 1: ssm-style gates, any heads) as a three-pass
//   chunked scan: per-segment affine maps (y_out = P y_in + Q), a sequential pass over segment maps per
//   column, and a pass that replays each segment from its true carry.
//
// fp32 uses FMA in fp32 (no TF32), fp64 in fp64.

#include <cuda_runtime.h>

#include <string>

#include "bench_harness.cuh"
#include "host.cuh"
#include "mixgraph/blockinv_reference.hpp"
#include "mixgraph/gpu_solve.hpp"
#include "plan.cuh"
#include "weights_fill.cuh"

namespace mixgraph::gpu {
namespace {

template <class T>
SolveRun solve_t(const SolveProblem& p, const void* x, void* y, const SolveOptions& o) {
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
  const SolveMatrix ma = device_coefs<T>(p.a, p.n, p.heads, va), mb = device_coefs<T>(p.b, p.n, p.heads, vb);
  MG_CUDA(cudaMemcpy(dx.p, x, nd * sizeof(T), cudaMemcpyHostToDevice), "upload X");
  DevProblem<T> P{};
  P.n = p.n;
  P.d = p.d;
  P.dh = p.d / p.heads;
  P.a = dev_matrix<T>(ma, p.n, sa, va.as<T>());
  P.b = dev_matrix<T>(mb, p.n, sb, vb.as<T>());
  P.x = dx.as<T>();
  P.y = dy.as<T>();
  Plan<T> plan;
  make_plan(plan, P, ma, mb, p.heads, o);
  r.plan = plan.explain;
  if (o.verbose) std::fprintf(stderr, "%s\n", plan.explain.c_str());
  cudaEventRecord(e1);
  run_plan(plan, P, nullptr);
  r.kernel = plan.name;
  cudaEventRecord(e2);
  MG_CUDA(cudaMemcpy(y, dy.p, nd * sizeof(T), cudaMemcpyDeviceToHost), "download Y");
  cudaEventRecord(e3);
  MG_CUDA(cudaEventSynchronize(e3), "synchronize");
  check_plan(plan);
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

// The packages of a blockinv plan (blockinv_packages), after one solve of X = 0.
template <class T>
BlockInvPackages packages_t(const SolveProblem& p, const SolveOptions& o) {
  BlockInvPackages r;
  const std::uint64_t nd = std::uint64_t(p.n) * p.d;
  DevStruct sa, sb;
  DevBuf va, vb, dx(nd * sizeof(T)), dy(nd * sizeof(T));
  const SolveMatrix ma = device_coefs<T>(p.a, p.n, p.heads, va), mb = device_coefs<T>(p.b, p.n, p.heads, vb);
  MG_CUDA(cudaMemset(dx.p, 0, nd * sizeof(T)), "memset");
  DevProblem<T> P{};
  P.n = p.n;
  P.d = p.d;
  P.dh = p.d / p.heads;
  P.a = dev_matrix<T>(ma, p.n, sa, va.as<T>());
  P.b = dev_matrix<T>(mb, p.n, sb, vb.as<T>());
  P.x = dx.as<T>();
  P.y = dy.as<T>();
  Plan<T> plan;
  make_plan(plan, P, ma, mb, p.heads, o);
  r.kernel = plan.name;
  if (!plan.bi) {
    r.note = "the planner did not choose gpu-blockinv (" + plan.explain + ")";
    return r;
  }
  run_plan(plan, P, nullptr);
  MG_CUDA(cudaDeviceSynchronize(), "synchronize");
  check_plan(plan);
  PackageLayout& L = r.layout;
  L.chunk = plan.bi_chunk;
  L.kx = plan.bq.kx;
  L.R = plan.bq.R;
  L.split = plan.bq.split;
  L.kin = plan.bi_kin;
  L.ku = plan.bi_ku;
  L.mma = plan.bq.mma != 0;
  L.nooff = plan.bq.nooff != 0;
  L.linv_bytes = plan.bq.linv_bytes;
  L.e_bytes = plan.bq.e_bytes;
  L.pkg_bytes = plan.bq.pkg_bytes;
  r.bytes.resize(std::size_t(p.heads) * P.nchunks * L.pkg_bytes);
  MG_CUDA(cudaMemcpy(r.bytes.data(), plan.bi_pkg.p, r.bytes.size(), cudaMemcpyDeviceToHost), "download");
  r.ran = true;
  return r;
}

std::string no_device_note() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
  if (count == 0) return "no CUDA device is visible";
  return "";
}

}  // namespace

SolveRun solve(const SolveProblem& p, const void* x, void* y, const SolveOptions& options) {
  SolveRun r;
  r.note = no_device_note();
  if (!r.note.empty()) return r;
  if (p.n == 0 || p.d == 0 || p.heads == 0 || p.d % p.heads != 0) {
    r.note = "bad problem: n, d must be positive and d a multiple of heads";
    return r;
  }
  try {
    return p.fp64 ? solve_t<double>(p, x, y, options) : solve_t<float>(p, x, y, options);
  } catch (const std::string& e) {
    r.note = e;
    return r;
  }
}

BlockInvPackages blockinv_packages(const SolveProblem& p, const SolveOptions& o) {
  BlockInvPackages r;
  r.note = no_device_note();
  if (!r.note.empty()) return r;
  if (p.n == 0 || p.d == 0 || p.heads == 0 || p.d % p.heads != 0) {
    r.note = "bad problem: n, d must be positive and d a multiple of heads";
    return r;
  }
  try {
    return p.fp64 ? packages_t<double>(p, o) : packages_t<float>(p, o);
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
