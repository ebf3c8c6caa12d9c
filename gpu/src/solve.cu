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
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "device_io.cuh"
#include "host.cuh"
#include "host_copy.hpp"
#include "mixgraph/blockinv_reference.hpp"
#include "mixgraph/gpu_plan.hpp"
#include "mixgraph/gpu_solve.hpp"
#include "plan.cuh"
#include "plan_state.hpp"
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

// The device plan of one problem: the structure on the device (and, for a DevicePlan, a host copy of it),
// the planner's Plan and the DevProblem fields that depend on the structure alone. A DevicePlan's state
// (gpu_plan.hpp) owns its buffers; a temporary one (solve_core: solve, solve_device, solve_seeded_x) takes
// them from the active WsScope (solve_device's cache) or owns them for the call.
template <class T>
struct PlanState final : DevicePlan::State {
  struct Dev {
    DevStruct sa, sb;
    Plan<T> plan;
    DevProblem<T> P{};
  };
  // DevicePlan: host copies of the structure (a temporary plan points at the caller's arrays)
  std::vector<std::uint32_t> a_off, b_off, a_idx, b_idx;
  std::vector<std::uint64_t> a_ptr, b_ptr;
  SolveMatrix a, b;  // the structure (host pointers); the coefficient fields are the call's
  SolveOptions o;
  bool cm = false, fuse = false;  // channel-major coefficients, seeded coefficients made in gpu-scan1
  std::unique_ptr<Dev> dev;
  Workspace ws;  // DevicePlan: the per-call coefficient arrays (keyed slots, this structure only)
  bool persistent = false;
  void free_device() override {
    int cur = 0;
    cudaGetDevice(&cur);
    cudaSetDevice(key.device);
    {
      const std::lock_guard<std::mutex> lk(ws.mu);
      ws.release_all();
    }
    dev.reset();
    a_off = {};
    b_off = {};
    a_idx = {};
    b_idx = {};
    a_ptr = {};
    b_ptr = {};
    cudaSetDevice(cur);
  }
  std::uint64_t bytes() const override {
    if (!dev) return 0;
    std::uint64_t b = 0;
    for (const DevStruct* d : {&dev->sa, &dev->sb})
      for (const DevBuf* x : {&d->off, &d->ptr, &d->idx}) b += x->size;
    const Plan<T>& pl = dev->plan;
    for (const DevBuf* x :
         {&pl.vring, &pl.flags, &pl.prof, &pl.pm, &pl.qm, &pl.carry, &pl.bi_pkg, &pl.bi_err, &pl.bi_flags})
      b += x->size;
    for (const auto& sl : ws.slots) b += sl.second;
    return b;
  }
};

// Plans p's structure into s (the coefficient values of p are not read): uploads on st, make_plan.
template <class T>
void make_state(PlanState<T>& s, const SolveProblem& p, const SolveOptions& o, cudaStream_t st, int device) {
  s.o = o;
  s.cm = channel_major(p, o);
  s.fuse = fused_seeded(p, o);
  auto take = [&](const SolveMatrix& m, SolveMatrix& out, std::vector<std::uint32_t>& off,
                  std::vector<std::uint64_t>& ptr, std::vector<std::uint32_t>& idx) {
    out = SolveMatrix{};
    out.implicit = m.implicit;
    out.k = m.implicit ? m.k : 0;
    if (!s.persistent) {
      out.offsets = m.offsets;
      out.ptr = m.ptr;
      out.idx = m.idx;
    } else if (m.implicit) {
      if (m.k) off.assign(m.offsets, m.offsets + m.k);
      out.offsets = off.data();
    } else {
      ptr.assign(m.ptr, m.ptr + std::size_t(p.n) + 1);
      idx.assign(m.idx, m.idx + m.ptr[p.n]);
      out.ptr = ptr.data();
      out.idx = idx.data();
    }
  };
  take(p.a, s.a, s.a_off, s.a_ptr, s.a_idx);
  take(p.b, s.b, s.b_off, s.b_ptr, s.b_idx);
  s.dev = std::make_unique<typename PlanState<T>::Dev>();
  auto& D = *s.dev;
  DevProblem<T>& P = D.P;
  P.n = p.n;
  P.d = p.d;
  P.dh = p.d / p.heads;
  P.a = dev_matrix<T>(s.a, p.n, D.sa, nullptr, st);  // (queued on st: the kernels follow the copies)
  P.b = dev_matrix<T>(s.b, p.n, D.sb, nullptr, st);
  Plan<T>& plan = D.plan;
  make_plan(plan, P, s.a, s.b, p.heads, o);
  if (s.fuse && !plan.scan)  // fused_seeded() holds only where the planner takes gpu-scan1
    throw std::string("internal error: seeded coefficients without an array outside gpu-scan1");
  if (s.cm) {
    plan.name.insert(plan.name.size() - 1, ",channel-major");
    plan.explain += "; coefficients channel-major ([k][i][h]: a warp's columns span several heads)";
  }
  if (s.fuse) {
    plan.name.insert(plan.name.size() - 1, ",fused-seeded");
    plan.explain += "; seeded coefficients made in the scan kernels (no coefficient array)";
  }
  s.key = plan_key(p, device);
  s.kernel = plan.name;
  s.explain = plan.explain;
}

// The kernel from P's X to P's Y on st, then the end of the call: waits for Y, checks the kernel's status,
// sets r.kernel and r.kernel_ms. With nowait (a call with SolveOptions::wait = false) it returns once the
// kernel and the copy of its status words into nowait->status are queued (r.kernel_ms 0: not measured).
template <class T>
void launch_and_wait(Plan<T>& plan, const DevProblem<T>& P, cudaStream_t st, SolveRun& r,
                     Workspace* nowait = nullptr) {
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

// One solve from dx to dy with s's plan and c's coefficients (c.a / c.b: gen, vals, strides, seed; the
// structure is s's), ordered on st; returns once Y is written (nowait: once queued, launch_and_wait). Sets
// r.kernel, r.plan, r.kernel_ms and r.coefs_reused. The coefficient buffers come from the active WsScope
// (or are owned for the call).
template <class T>
void run_state(PlanState<T>& s, const SolveProblem& c, cudaStream_t st, const T* dx, T* dy, SolveRun& r,
               Workspace* nowait = nullptr) {
  auto& D = *s.dev;
  const std::uint32_t n = s.key.n, heads = s.key.heads;
  DevBuf va, vb;
  ScanGen sg;
  int arrays = 0;  // coefficient arrays of this call, and whether each came from the device cache
  bool reused_all = true;
  // the device coefficients of one matrix: the caller's device array, none (made in the scan kernels),
  // or device_coefs's array
  auto coefs = [&](const SolveMatrix& cm, const SolveMatrix& sm, const PlanKey::Matrix& km,
                   const DevStruct& ds, DevBuf& v, ScanSeed& seed) -> SolveMatrix {
    SolveMatrix m = sm;  // the plan's structure, the call's coefficients
    m.vals = cm.vals;
    m.hs = cm.hs;
    m.is = cm.is;
    m.ks = cm.ks;
    m.gen = cm.gen;
    m.gen_seed = cm.gen_seed;
    m.gen_matrix = cm.gen_matrix;
    m.gen_total = cm.gen_total;
    m.vals_on_device = cm.vals_on_device;
    m.vals_constant = cm.vals_constant;
    if (m.vals_on_device) {
      const bool empty = m.implicit ? m.k == 0 : km.nnz == 0;  // nothing to read: null is fine
      if ((!m.vals && !empty) || (m.gen != CoefGen::Values && m.gen != CoefGen::PerOffset))
        throw std::string("device coefficients need gen = Values or PerOffset and a device pointer");
      if (m.gen == CoefGen::Values) return m;  // read in place (PerOffset: expanded by device_coefs below)
    }
    if (s.fuse && m.gen == CoefGen::Seeded) {
      seed.on = 1;
      seed.seed = m.gen_seed;
      seed.matrix = m.gen_matrix;
      seed.total = m.gen_total;
      SolveMatrix r = m;
      r.vals = nullptr;
      return r;
    }
    bool reused = false;
    const SolveMatrix dm = device_coefs<T>(m, n, heads, v, s.cm, &reused, st, &ds, s.persistent);
    ++arrays;
    reused_all = reused_all && reused;
    return dm;
  };
  const SolveMatrix ma = coefs(c.a, s.a, s.key.a, D.sa, va, sg.a),
                    mb = coefs(c.b, s.b, s.key.b, D.sb, vb, sg.b);
  r.coefs_reused = arrays > 0 && reused_all;
  auto vals_of = [](const SolveMatrix& m, const DevBuf& v) {
    return m.vals_on_device && m.gen == CoefGen::Values ? static_cast<const T*>(m.vals) : v.as<T>();
  };
  DevProblem<T> P = D.P;
  auto set_vals = [&](DevMatrix<T>& dm, const SolveMatrix& m, const DevBuf& v) {
    dm.val = vals_of(m, v);
    dm.hs = m.hs;
    dm.is = m.is;
    dm.ks = m.ks;
  };
  set_vals(P.a, ma, va);
  set_vals(P.b, mb, vb);
  P.x = dx;
  P.y = dy;
  Plan<T>& plan = D.plan;
  // The caller's device values are read in place with their strides. gpu-scan1 takes any strides; the
  // other plans read them as they read device_coefs's arrays, so they take the canonical layouts alone
  // (implicit head-major [h][i][k], CSR [h][e]).
  auto canonical = [&](const SolveMatrix& m, const PlanKey::Matrix& km) {
    if (!(m.vals_on_device && m.gen == CoefGen::Values)) return true;
    if (m.implicit) return m.hs == std::uint64_t(n) * m.k && m.is == m.k && m.ks == 1;
    return m.hs == km.nnz && m.is == 1;
  };
  if (!plan.scan && !(canonical(ma, s.key.a) && canonical(mb, s.key.b)))
    throw std::string(
        "coefficients on the device outside gpu-scan1 need the canonical layout (implicit hs = n k, is = k, "
        "ks = 1; CSR hs = nnz, is = 1); " +
        plan.explain);
  if (plan.scan) plan.sg = sg;
  r.plan = plan.explain;
  if (s.o.verbose) std::fprintf(stderr, "%s\n", plan.explain.c_str());
  launch_and_wait(plan, P, st, r, nowait);
}

// A temporary plan of p, then one solve from dx to dy, ordered on st; returns once Y is written (nowait:
// once queued). Sets r.kernel, r.plan, r.kernel_ms and r.coefs_reused.
template <class T>
void solve_core(const SolveProblem& p, const SolveOptions& o, cudaStream_t st, const T* dx, T* dy,
                SolveRun& r, Workspace* nowait = nullptr) {
  int dev = 0;
  MG_CUDA(cudaGetDevice(&dev), "cudaGetDevice");
  PlanState<T> s;
  make_state<T>(s, p, o, st, dev);
  run_state<T>(s, p, st, dx, dy, r, nowait);
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
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t bytes = std::uint64_t(p.n) * p.d * sizeof(T);
  int dev = 0;
  MG_CUDA(cudaGetDevice(&dev), "cudaGetDevice");
  const WsScope ws(workspace_of(dev));  // X, Y and the call's buffers from the device's cache, as solve_device
  begin_call(ws.w, nullptr, false);
  const EndCall end(ws.w, nullptr);
  DevBuf dx(bytes), dy(bytes);
  upload_staged(dx.p, x, bytes, nullptr);  // pinned staging, host copies overlapping the bus (host_copy.hpp)
  solve_core<T>(p, o, nullptr, dx.as<T>(), dy.as<T>(), r);
  download_staged(y, dy.p, bytes, nullptr);
  r.total_ms = ms_since(t0);
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
  if (y) download_staged(y, dy.p, nd * sizeof(T), nullptr);
  r.total_ms = ms_since(t0);
  r.ran = true;
  return r;
}

// DevicePlan (gpu_plan.hpp): a persistent PlanState, its buffers owned (made outside any WsScope).
template <class T>
std::shared_ptr<DevicePlan::State> make_plan_t(const SolveProblem& p, const SolveOptions& o, int device) {
  auto s = std::make_shared<PlanState<T>>();
  s->persistent = true;
  make_state<T>(*s, p, o, nullptr, device);
  s->ready = true;
  return s;
}

template <class T>
void solve_planned_t(PlanState<T>& s, const SolveProblem& c, const void* x, void* y, cudaStream_t st,
                     SolveRun& r, bool wait) {
  const WsScope ws(s.ws);  // the coefficient arrays of this call from the plan's own slots
  const bool nowait = !wait && !s.o.profile;
  begin_call(s.ws, st, nowait);  // the plan's buffers: after the previous call's end, on the device
  const EndCall end(s.ws, st);
  run_state<T>(s, c, st, static_cast<const T*>(x), static_cast<T*>(y), r, nowait ? &s.ws : nullptr);
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

std::string make_device_plan(DevicePlan& plan, const SolveProblem& p, const SolveOptions& options) {
  plan.reset(nullptr);
  std::string note = precheck(p);
  if (!note.empty()) return note;
  try {
    int dev = 0;
    MG_CUDA(cudaGetDevice(&dev), "cudaGetDevice");
    plan.reset(p.fp64 ? make_plan_t<double>(p, options, dev) : make_plan_t<float>(p, options, dev));
    return "";
  } catch (const std::string& e) {
    note = e;
  } catch (const std::bad_alloc&) {
    note = "out of host memory";
  }
  plan.reset(nullptr);
  return note;
}

SolveRun solve_planned(DevicePlan& plan, const SolveProblem& c, const void* x, void* y, void* stream,
                       bool wait) {
  SolveRun r;
  const std::shared_ptr<DevicePlan::State> sp = plan.state();
  if (!sp) {
    r.note = "the device plan is empty (make_device_plan makes it)";
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::lock_guard<std::mutex> lk(sp->mu);  // one call at a time (the plan's buffers)
  if (!sp->ready) {
    r.note = "the device plan was released (make_device_plan makes it again)";
    return r;
  }
  int dev = 0;
  const cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) {
    r.note = err_text(e, "cudaGetDevice");
    return r;
  }
  r.note = plan_mismatch(sp->key, c, dev);
  if (!r.note.empty()) return r;
  try {
    const auto st = static_cast<cudaStream_t>(stream);
    if (sp->key.fp64)
      solve_planned_t<double>(static_cast<PlanState<double>&>(*sp), c, x, y, st, r, wait);
    else
      solve_planned_t<float>(static_cast<PlanState<float>&>(*sp), c, x, y, st, r, wait);
  } catch (const std::string& err) {
    r.note = err;
    return r;
  } catch (const std::bad_alloc&) {
    r.note = "out of host memory";
    return r;
  }
  r.total_ms = ms_since(t0);
  r.ran = true;
  return r;
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
  release_host_staging();
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
  try {
    upload_staged(dev, host, bytes, nullptr);
  } catch (const std::string& e) {
    return "copy to the device: " + e;
  }
  return "";
}

std::string copy_to_host(void* host, const void* dev, std::size_t bytes) {
  try {
    download_staged(host, dev, bytes, nullptr);
  } catch (const std::string& e) {
    return "copy to the host: " + e;
  }
  return "";
}

int current_device() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 0;
  return dev;
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
