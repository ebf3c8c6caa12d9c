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

#include <chrono>
#include <new>
#include <string>

#include "device_io.cuh"
#include "host.cuh"
#include "mixgraph/blockinv_reference.hpp"
#include "mixgraph/gpu_solve.hpp"
#include "plan.cuh"
#include "weights_fill.cuh"

namespace mixgraph::gpu {
namespace {

// CUDA events that free themselves
struct Events {
  cudaEvent_t e[2] = {nullptr, nullptr};
  Events() {
    for (auto& x : e) MG_CUDA(cudaEventCreate(&x), "cudaEventCreate");
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  ~Events() {
    for (auto& x : e)
      if (x) cudaEventDestroy(x);
  }
  float ms() const {
    float t = 0;
    cudaEventElapsedTime(&t, e[0], e[1]);
    return t;
  }
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The device coefficients, the plan and one solve from dx to dy, ordered on st (the coefficients are made
// first, on the default stream, and synchronized); returns once Y is written, or with nowait (a no-wait
// solve_device call) once the solve and the copy of its status words into nowait->status are queued. Sets
// r.kernel, r.plan and r.kernel_ms (0 with nowait: not measured).
template <class T>
void solve_core(const SolveProblem& p, const SolveOptions& o, cudaStream_t st, const T* dx, T* dy,
                SolveRun& r, Workspace* nowait = nullptr) {
  const bool cm = channel_major(p, o), fuse = fused_seeded(p, o);
  DevStruct sa, sb;
  DevBuf va, vb;
  ScanGen sg;
  int arrays = 0;  // coefficient arrays of this call, and whether each came from the device cache
  bool reused_all = true;
  // the device coefficients of one matrix: the caller's device array, none (made in the scan kernels),
  // or device_coefs's array
  auto coefs = [&](const SolveMatrix& m, DevBuf& v, ScanSeed& seed) -> SolveMatrix {
    if (m.vals_on_device) {
      const bool empty = m.implicit ? m.k == 0 : m.ptr[p.n] == 0;  // nothing to read: null is fine
      if ((!m.vals && !empty) || (m.gen != CoefGen::Values && m.gen != CoefGen::PerOffset))
        throw std::string("device coefficients need gen = Values or PerOffset and a device pointer");
      if (m.gen == CoefGen::Values) return m;  // read in place (PerOffset: expanded by device_coefs below)
    }
    if (fuse && m.gen == CoefGen::Seeded) {
      seed.on = 1;
      seed.seed = m.gen_seed;
      seed.matrix = m.gen_matrix;
      seed.total = m.gen_total;
      SolveMatrix r = m;
      r.vals = nullptr;
      return r;
    }
    bool reused = false;
    const SolveMatrix dm = device_coefs<T>(m, p.n, p.heads, v, cm, &reused, st);
    ++arrays;
    reused_all = reused_all && reused;
    return dm;
  };
  const SolveMatrix ma = coefs(p.a, va, sg.a), mb = coefs(p.b, vb, sg.b);
  r.coefs_reused = arrays > 0 && reused_all;
  auto vals_of = [](const SolveMatrix& m, const DevBuf& v) {
    return m.vals_on_device && m.gen == CoefGen::Values ? static_cast<const T*>(m.vals) : v.as<T>();
  };
  DevProblem<T> P{};
  P.n = p.n;
  P.d = p.d;
  P.dh = p.d / p.heads;
  P.a = dev_matrix<T>(ma, p.n, sa, vals_of(ma, va), st);  // (queued on st: the kernels follow the copies)
  P.b = dev_matrix<T>(mb, p.n, sb, vals_of(mb, vb), st);
  P.x = dx;
  P.y = dy;
  Plan<T> plan;
  make_plan(plan, P, ma, mb, p.heads, o);
  // The caller's device values are read in place with their strides. gpu-scan1 takes any strides; the
  // other plans read them as they read device_coefs's arrays, so they take the canonical layouts alone
  // (implicit head-major [h][i][k], CSR [h][e]).
  auto canonical = [&](const SolveMatrix& m) {
    if (!(m.vals_on_device && m.gen == CoefGen::Values)) return true;
    if (m.implicit) return m.hs == std::uint64_t(p.n) * m.k && m.is == m.k && m.ks == 1;
    return m.hs == m.ptr[p.n] && m.is == 1;
  };
  if (!plan.scan && !(canonical(ma) && canonical(mb)))
    throw std::string(
        "coefficients on the device outside gpu-scan1 need the canonical layout (implicit hs = n k, is = k, "
        "ks = 1; CSR hs = nnz, is = 1); " +
        plan.explain);
  if ((sg.a.on || sg.b.on) && !plan.scan)  // fused_seeded() holds only where the planner takes gpu-scan1
    throw std::string("internal error: seeded coefficients without an array outside gpu-scan1");
  if (plan.scan) plan.sg = sg;
  if (cm) {
    plan.name.insert(plan.name.size() - 1, ",channel-major");
    plan.explain += "; coefficients channel-major ([k][i][h]: a warp's columns span several heads)";
  }
  if (sg.a.on || sg.b.on) {
    plan.name.insert(plan.name.size() - 1, ",fused-seeded");
    plan.explain += "; seeded coefficients made in the scan kernels (no coefficient array)";
  }
  r.plan = plan.explain;
  if (o.verbose) std::fprintf(stderr, "%s\n", plan.explain.c_str());
  r.kernel = plan.name;
  if (nowait) {
    run_plan(plan, P, st);
    queue_status(plan, st, nowait->status_dev);
    return;
  }
  Events ev;
  MG_CUDA(cudaEventRecord(ev.e[0], st), "event");
  run_plan(plan, P, st);
  MG_CUDA(cudaEventRecord(ev.e[1], st), "event");
  MG_CUDA(cudaEventSynchronize(ev.e[1]), "solve");
  check_plan(plan);
  r.kernel_ms = ev.ms();
}

// The start of a solve_device call on the workspace w (its mutex held): an error that an earlier no-wait
// call's kernels reported is thrown now, and st waits on the device for the earlier call's end (its
// kernels may still run: the slots are about to be reused). With nowait the status word is made first.
void begin_call(Workspace& w, cudaStream_t st, bool nowait) {
  if (w.status && *w.status) {
    const std::uint32_t bits = *w.status;
    *w.status = 0;
    throw status_message(bits) + " (in an earlier solve_device call with wait = false)";
  }
  if (nowait && !w.status) {
    void* h = nullptr;
    MG_CUDA(cudaHostAlloc(&h, sizeof(std::uint32_t), cudaHostAllocMapped), "cudaHostAlloc");
    *static_cast<std::uint32_t*>(h) = 0;
    void* dptr = nullptr;
    MG_CUDA(cudaHostGetDevicePointer(&dptr, h, 0), "cudaHostGetDevicePointer");
    w.status = static_cast<volatile std::uint32_t*>(h);
    w.status_dev = static_cast<std::uint32_t*>(dptr);
  }
  if (w.done) MG_CUDA(cudaStreamWaitEvent(st, w.done, 0), "cudaStreamWaitEvent");
}

// Records the end of a solve_device call on st (also when it failed part way: what it queued may still run).
struct EndCall {
  Workspace& w;
  cudaStream_t st;
  EndCall(Workspace& ws, cudaStream_t s) : w(ws), st(s) {}
  EndCall(const EndCall&) = delete;
  EndCall& operator=(const EndCall&) = delete;
  ~EndCall() {
    if (!w.done && cudaEventCreateWithFlags(&w.done, cudaEventDisableTiming) != cudaSuccess) {
      w.done = nullptr;
      cudaDeviceSynchronize();  // no event: the next call must find the device idle
      return;
    }
    if (cudaEventRecord(w.done, st) != cudaSuccess) cudaDeviceSynchronize();
  }
};

template <class T>
SolveRun solve_t(const SolveProblem& p, const void* x, void* y, const SolveOptions& o) {
  SolveRun r;
  const std::uint64_t nd = std::uint64_t(p.n) * p.d;
  Events all;
  MG_CUDA(cudaEventRecord(all.e[0]), "event");
  DevBuf dx(nd * sizeof(T)), dy(nd * sizeof(T));
  MG_CUDA(cudaMemcpy(dx.p, x, nd * sizeof(T), cudaMemcpyHostToDevice), "upload X");
  solve_core<T>(p, o, nullptr, dx.as<T>(), dy.as<T>(), r);
  MG_CUDA(cudaMemcpy(y, dy.p, nd * sizeof(T), cudaMemcpyDeviceToHost), "download Y");
  MG_CUDA(cudaEventRecord(all.e[1]), "event");
  MG_CUDA(cudaEventSynchronize(all.e[1]), "synchronize");
  r.total_ms = all.ms();
  r.ran = true;
  return r;
}

template <class T>
SolveRun solve_device_t(const SolveProblem& p, const void* x, void* y, const SolveOptions& o,
                        cudaStream_t st) {
  SolveRun r;
  const auto t0 = std::chrono::steady_clock::now();
  int dev = 0;
  MG_CUDA(cudaGetDevice(&dev), "cudaGetDevice");
  const WsScope ws(workspace_of(dev));  // every device buffer of this call from the cache
  const bool nowait = !o.wait && !o.profile;
  begin_call(ws.w, st, nowait);
  const EndCall end(ws.w, st);
  solve_core<T>(p, o, st, static_cast<const T*>(x), static_cast<T*>(y), r, nowait ? &ws.w : nullptr);
  r.total_ms = ms_since(t0);
  r.ran = true;
  return r;
}

template <class T>
SolveRun solve_seeded_x_t(const SolveProblem& p, std::uint64_t seed, void* y, const SolveOptions& o) {
  SolveRun r;
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t nd = std::uint64_t(p.n) * p.d;
  DevBuf dx(nd * sizeof(T)), dy(nd * sizeof(T));
  seeded_x<T>(dx.as<T>(), p.n, p.d, seed, nullptr);
  solve_core<T>(p, o, nullptr, dx.as<T>(), dy.as<T>(), r);
  r.y_sum = device_sum<T>(dy.as<T>(), nd, nullptr);
  if (y) MG_CUDA(cudaMemcpy(y, dy.p, nd * sizeof(T), cudaMemcpyDeviceToHost), "download Y");
  r.total_ms = ms_since(t0);
  r.ran = true;
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

// The checks every entry point makes before touching the device: "" or the note to return.
std::string precheck(const SolveProblem& p) {
  std::string note = no_device_note();
  if (!note.empty()) return note;
  if (p.n == 0 || p.d == 0 || p.heads == 0 || p.d % p.heads != 0)
    return "bad problem: n, d must be positive and d a multiple of heads";
  return "";
}

template <class F>
SolveRun guarded(const SolveProblem& p, F&& f) {
  SolveRun r;
  r.note = precheck(p);
  if (!r.note.empty()) return r;
  try {
    return f();
  } catch (const std::string& e) {
    r.note = e;
  } catch (const std::bad_alloc&) {
    r.note = "out of host memory";
  }
  return r;
}

}  // namespace

SolveRun solve(const SolveProblem& p, const void* x, void* y, const SolveOptions& options) {
  return guarded(
      p, [&] { return p.fp64 ? solve_t<double>(p, x, y, options) : solve_t<float>(p, x, y, options); });
}

SolveRun solve_device(const SolveProblem& p, const void* x, void* y, const SolveOptions& options,
                      void* stream) {
  const auto st = static_cast<cudaStream_t>(stream);
  return guarded(p, [&] {
    return p.fp64 ? solve_device_t<double>(p, x, y, options, st)
                  : solve_device_t<float>(p, x, y, options, st);
  });
}

SolveRun solve_seeded_x(const SolveProblem& p, std::uint64_t x_seed, void* y, const SolveOptions& options) {
  return guarded(p, [&] {
    return p.fp64 ? solve_seeded_x_t<double>(p, x_seed, y, options)
                  : solve_seeded_x_t<float>(p, x_seed, y, options);
  });
}

std::string release_workspace() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return "";
  int cur = 0;
  cudaGetDevice(&cur);
  std::string note;
  for (int dev = 0; dev < count; ++dev) {
    Workspace& w = workspace_of(dev);
    const std::lock_guard<std::mutex> lk(w.mu);
    if (w.slots.empty()) continue;
    const cudaError_t e = cudaSetDevice(dev);
    if (e != cudaSuccess) {
      note = err_text(e, "cudaSetDevice");
      continue;
    }
    w.release();
  }
  cudaSetDevice(cur);
  return note;
}

std::string fill_seeded_x(void* x, std::uint32_t n, std::uint32_t d, bool fp64, std::uint64_t seed) {
  std::string note = no_device_note();
  if (!note.empty()) return note;
  try {
    if (fp64)
      seeded_x<double>(static_cast<double*>(x), n, d, seed, nullptr);
    else
      seeded_x<float>(static_cast<float*>(x), n, d, seed, nullptr);
    MG_CUDA(cudaDeviceSynchronize(), "fill X");
  } catch (const std::string& e) {
    return e;
  }
  return "";
}

std::string device_alloc(void** p, std::size_t bytes) {
  *p = nullptr;
  const cudaError_t e = cudaMalloc(p, bytes);
  if (e == cudaSuccess) return "";
  *p = nullptr;
  return err_text(e, "cudaMalloc");
}

void device_free(void* p) {
  if (p) cudaFree(p);
}

std::string copy_to_device(void* dev, const void* host, std::size_t bytes) {
  const cudaError_t e = cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
  return e == cudaSuccess ? "" : err_text(e, "copy to the device");
}

std::string copy_to_host(void* host, const void* dev, std::size_t bytes) {
  const cudaError_t e = cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
  return e == cudaSuccess ? "" : err_text(e, "copy to the host");
}

std::string set_device(int device) {
  const cudaError_t e = cudaSetDevice(device);
  return e == cudaSuccess ? "" : err_text(e, "cudaSetDevice");
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

}  // namespace mixgraph::gpu
