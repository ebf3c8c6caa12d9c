// Benchmarks of the solve engine (docs/benchmarks.md).
//   bench_solve cpu [log2n=20] [d=64] [reps=3]   CPU OpenMP solve vs Eigen's sparse triangular solve, fp64
//   bench_solve gpu [quick]                      the GPU suite (JSON lines), peers run beside it
//   bench_solve gpu calls [log2n] [d] [reps]     the public calls against the kernel, per family
//   bench_solve gpu host-copy [MiB] [reps]       host <-> device copies: pinned, pageable, staged (sweep)
// Both sides are timed from X to Y: ours takes X row-major n x d and writes Y; Eigen computes A X (sparse
// times column-major dense) and then solves with triangularView<Lower> of a row-major SparseMatrix (I - B).
#include <omp.h>

#include <Eigen/Sparse>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_bench.hpp"
#include "mixgraph/analysis/gpu_options_env.hpp"  // the MIXGRAPH_GPU_* variables
#include "mixgraph/commgraph.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_plan.hpp"
#include "mixgraph/gpu_solve.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/solve_backend.hpp"
#include "mixgraph/weights.hpp"

using namespace mixgraph;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu_now() {
  return double(std::clock()) / CLOCKS_PER_SEC;
}  // process CPU time, all threads

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int bench_cpu(int log2n, std::size_t d, int reps, const std::string& spec) {
  const pos_t n = pos_t(1) << log2n;
  const Pattern p = make_pattern(spec, n);
  double t0 = now();
  const WeightedPattern wp = random_weights(p, 1);
  const MixerWeights<double> w = mixer_weights_from<double>(p, {wp});
  std::fprintf(stderr, "weights: %.2f s\n", now() - t0);
  std::vector<double> x(std::size_t(n) * d), y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = 2 * hash_uniform(7, 0, k / d, k % d) - 1;
  // Eigen: row-major sparse A and L = I - B, column-major dense X
  using SpRow = Eigen::SparseMatrix<double, Eigen::RowMajor, std::int64_t>;
  SpRow A(n, n), L(n, n);
  {
    std::vector<Eigen::Triplet<double, std::int64_t>> ta, tl;
    ta.reserve(wp.a.nnz());
    tl.reserve(wp.b.nnz() + n);
    for (pos_t i = 0; i < n; ++i) {
      for (nnz_t e = wp.a.ptr[i]; e < wp.a.ptr[i + 1]; ++e) ta.emplace_back(i, wp.a.idx[e], wp.a.val[e]);
      for (nnz_t e = wp.b.ptr[i]; e < wp.b.ptr[i + 1]; ++e) tl.emplace_back(i, wp.b.idx[e], -wp.b.val[e]);
      tl.emplace_back(i, i, 1.0);
    }
    A.setFromTriplets(ta.begin(), ta.end());
    L.setFromTriplets(tl.begin(), tl.end());
  }
  Eigen::MatrixXd X(n, d), Y(n, d);
  for (pos_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c) X(i, c) = x[std::size_t(i) * d + c];
  std::vector<double> t_ours, t_ours1, t_eigen, t_eigen1, c_ours1, c_eigen1;
  SolveInfo info;
  for (int r = 0; r < reps; ++r) {
    t0 = now();
    info = solve_mixer(w, x.data(), y.data(), d, 0);
    t_ours.push_back(now() - t0);
    t0 = now();
    double c0 = cpu_now();
    solve_mixer(w, x.data(), y.data(), d, 1);
    t_ours1.push_back(now() - t0);
    c_ours1.push_back(cpu_now() - c0);
    Eigen::setNbThreads(0);
    t0 = now();
    Y = A * X;
    L.triangularView<Eigen::Lower>().solveInPlace(Y);
    t_eigen.push_back(now() - t0);
    Eigen::setNbThreads(1);
    t0 = now();
    c0 = cpu_now();
    Y = A * X;
    L.triangularView<Eigen::Lower>().solveInPlace(Y);
    t_eigen1.push_back(now() - t0);
    c_eigen1.push_back(cpu_now() - c0);
  }
  double num = 0, den = 0;
  for (pos_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c) {
      const double a = y[std::size_t(i) * d + c], b = Y(i, c);
      num += (a - b) * (a - b);
      den += b * b;
    }
  // the peer: the faster of Eigen with its OpenMP product and Eigen on one thread
  const double ours = std::min(median(t_ours), median(t_ours1)),
               eig = std::min(median(t_eigen), median(t_eigen1));
  std::printf(
      "{\"bench\": \"cpu_solve\", \"pattern\": \"%s\", \"n\": %u, \"d\": %zu, \"precision\": \"fp64\", "
      "\"kernel\": "
      "\"%s\", \"threads\": %d, \"ours_s\": %.4f, \"ours_1thread_s\": %.4f, \"eigen_s\": %.4f, "
      "\"eigen_1thread_s\": %.4f, \"speedup\": %.2f, \"ours_1thread_cpu_s\": %.4f, \"eigen_1thread_cpu_s\": "
      "%.4f, "
      "\"speedup_cpu_time_1thread\": %.2f, \"relerr_vs_eigen\": %.3e}\n",
      spec.c_str(), n, d, info.kernel.c_str(), info.threads, median(t_ours), median(t_ours1), median(t_eigen),
      median(t_eigen1), eig / ours, median(c_ours1), median(c_eigen1), median(c_eigen1) / median(c_ours1),
      std::sqrt(num / den));
  return 0;
}

// ---- GPU suite ----

struct GpuCase {
  std::string label, spec;
  int log2n;
  std::uint32_t d, heads;
  bool fp64 = false, csr = false, a_diag = true;
  std::uint32_t check = 32;
};

void run_gpu_case(const GpuCase& g) {
  const pos_t n = pos_t(1) << g.log2n;
  gpu::BenchSpec s;
  s.n = n;
  s.d = g.d;
  s.heads = g.heads;
  s.fp64 = g.fp64;
  s.a_diagonal = g.a_diag;
  s.check_cols = g.check;
  s.reps = 5;
  s.options = gpu_options_from_env();
  const Pattern p = make_pattern(g.spec, n);
  std::uint64_t nnz_b = 0;
  std::vector<std::uint32_t> offs;
  if (g.csr || !p.translation_invariant()) {
    const Csr b = b_csr(p);
    s.ptr = b.ptr;
    s.idx = b.idx;
    nnz_b = b.nnz();
  } else {
    s.offsets.assign(p.b_offsets.begin(), p.b_offsets.end());
    offs = s.offsets;
    for (auto o : offs) nnz_b += n - o;
  }
  const auto r = gpu::bench_solve(s);
  // bytes: X read, Y written, coefficients read once, Y re-read once per offset o with o * d * 4 > 50 MB
  const double es = g.fp64 ? 8 : 4;
  const double nd = double(n) * g.d;
  const double coef_vals = (double(nnz_b) + (g.a_diag ? n : n + double(nnz_b))) * g.heads;
  double rereads = 0;
  for (auto o : offs)
    if (double(o) * g.d * es > 50e6) rereads += 1;
  const double bytes = nd * es * (2 + rereads) + coef_vals * es + (g.csr ? double(nnz_b) * 4 : 0);
  const double copy_bw = 2 * nd * es / (r.copy_ms * 1e-3);  // bytes/s of the device copy
  const double floor_ms = bytes / copy_bw * 1e3;
  std::printf(
      "{\"bench\": \"gpu_solve\", \"case\": \"%s\", \"pattern\": \"%s\", \"n\": %u, \"d\": %u, \"heads\": "
      "%u, "
      "\"precision\": \"%s\", \"structure\": \"%s\", \"A\": \"%s\", \"nnz_B\": %llu, \"ran\": %s, "
      "\"kernel\": "
      "\"%s\", \"ms\": %.4f, \"ms_min\": %.4f, \"copy_ms\": %.4f, \"bytes\": %.4g, \"floor_ms\": %.4f, "
      "\"fraction_of_copy_bw\": %.3f, \"naive_ms\": %.3f, \"check_relerr\": %.3e, \"sm_mhz_idle\": %.0f, "
      "\"sm_mhz_during\": %.0f, \"note\": \"%s\"}\n",
      g.label.c_str(), g.spec.c_str(), n, g.d, g.heads, g.fp64 ? "fp64" : "fp32",
      s.ptr.empty() ? "implicit" : "csr", g.a_diag ? "diagonal" : "shared", (unsigned long long)nnz_b,
      r.ran ? "true" : "false", r.kernel.c_str(), r.ms, r.ms_min, r.copy_ms, bytes, floor_ms,
      r.ms > 0 ? floor_ms / r.ms : 0.0, r.naive_ms, r.check_relerr, r.sm_mhz_idle, r.sm_mhz_during,
      r.note.c_str());
  std::fflush(stdout);
  // The public entry point, as `mixgraph solve` and the Python package call it: the pattern's own A and
  // structure, seeded weights made on the device, X from host memory to Y in host memory.
  if (g.csr || g.fp64 || !r.ran) return;
  const double t0 = now();
  const MixerWeights<float> w = seeded_mixer_weights<float>(p, int(g.heads), 1);
  std::vector<float> x(std::size_t(n) * g.d), y(x.size());
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = float(2 * hash_uniform(7, 0, k / g.d, k % g.d) - 1);
  const double t1 = now();
  std::vector<double> kern, call;
  SolveInfo info;
  try {
    for (int rep = 0; rep < 3; ++rep) {
      info = solve_on(choose_backend(Backend::Gpu), w, x.data(), y.data(), g.d, 0, s.options);
      kern.push_back(info.seconds * 1e3);
      call.push_back(info.total_seconds * 1e3);
    }
  } catch (const std::exception& e) {
    std::printf("{\"bench\": \"gpu_solve_public\", \"case\": \"%s\", \"note\": \"%s\"}\n", g.label.c_str(),
                e.what());
    return;
  }
  // the bus in the same run: X up and Y down from pinned memory is the floor of a host call
  const gpu::HostCopyBench hc = gpu::bench_host_copy(x.size() * sizeof(float), 0, 0, 0, 3);
  const double bus_ms = hc.pinned_up_ms + hc.pinned_down_ms;
  std::printf(
      "{\"bench\": \"gpu_solve_public\", \"case\": \"%s\", \"pattern\": \"%s\", \"n\": %u, \"d\": %u, "
      "\"heads\": %u, \"kernel\": \"%s\", \"kernel_ms\": %.4f, \"call_ms\": %.4f, \"prepare_ms\": %.4f, "
      "\"end_to_end_ms\": %.4f, \"pinned_copy_ms\": %.4f, \"fraction_of_copy_bw\": %.3f}\n",
      g.label.c_str(), g.spec.c_str(), n, g.d, g.heads, info.kernel.c_str(), median(kern), median(call),
      (t1 - t0) * 1e3, (t1 - t0) * 1e3 + call[0], bus_ms, hc.ran ? bus_ms / median(call) : 0.0);
  std::fflush(stdout);  // The same entry point with X already on the device (gpu::solve_device, as the Python
                        // package calls it
  // for a CUDA tensor): call = device weights + kernel, nothing of X or Y over the bus.
  void *dx = nullptr, *dy = nullptr;
  const std::size_t xbytes = x.size() * sizeof(float);
  std::string err = gpu::device_alloc(&dx, xbytes);
  if (err.empty()) err = gpu::device_alloc(&dy, xbytes);
  if (err.empty()) err = gpu::copy_to_device(dx, x.data(), xbytes);
  std::vector<double> dkern, dcall;
  gpu::SolveRun dr;
  for (int rep = 0; rep < 3 && err.empty(); ++rep) {
    dr = gpu::solve_device(gpu_problem(w, g.d), dx, dy, s.options);
    if (!dr.ran) err = dr.note;
    dkern.push_back(dr.kernel_ms);
    dcall.push_back(dr.total_ms);
  }
  // the same through a device plan made once (what mixgraph.solve on a CUDA tensor pays per call)
  std::vector<double> pcall;
  gpu::DevicePlan plan;
  if (err.empty()) err = gpu::make_device_plan(plan, gpu_problem(w, g.d), s.options);
  for (int rep = 0; rep <= 3 && err.empty(); ++rep) {
    const gpu::SolveRun pr = gpu::solve_planned(plan, gpu_problem(w, g.d), dx, dy);
    if (!pr.ran) err = pr.note;
    if (rep) pcall.push_back(pr.total_ms);
  }
  plan.release();
  gpu::device_free(dx);
  gpu::device_free(dy);
  if (!err.empty()) {
    std::printf("{\"bench\": \"gpu_solve_public_device\", \"case\": \"%s\", \"note\": \"%s\"}\n",
                g.label.c_str(), err.c_str());
  } else {
    std::printf(
        "{\"bench\": \"gpu_solve_public_device\", \"case\": \"%s\", \"pattern\": \"%s\", \"n\": %u, "
        "\"d\": %u, \"heads\": %u, \"kernel\": \"%s\", \"kernel_ms\": %.4f, \"call_ms\": %.4f, "
        "\"planned_call_ms\": %.4f, \"planned_ratio\": %.3f}\n",
        g.label.c_str(), g.spec.c_str(), n, g.d, g.heads, dr.kernel.c_str(), median(dkern), median(dcall),
        median(pcall), median(pcall) / median(dkern));
  }
  std::fflush(stdout);
}

// ---- GPU per-call cost: the public paths beside the kernel ----

// An mtx file of n rows with 16 reads per row (i - 1 and 15 hashed earlier columns, values in [-0.5, 0.5] /
// 16): an unstructured explicit pattern for the calls suite.
std::string write_mtx(pos_t n, const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  std::vector<std::pair<pos_t, pos_t>> e;
  for (pos_t i = 1; i < n; ++i) {
    std::vector<pos_t> cols = {i - 1};
    for (int k = 0; k < 15 && i > 1; ++k) cols.push_back(pos_t(hash_uniform(5, 0, i, k) * double(i - 1)));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (pos_t c : cols) e.push_back({i, c});
  }
  std::fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n%u %u %zu\n", unsigned(n), unsigned(n),
               e.size());
  for (std::size_t k = 0; k < e.size(); ++k)
    std::fprintf(f, "%u %u %.6f\n", unsigned(e[k].first + 1), unsigned(e[k].second + 1),
                 (hash_uniform(6, 0, k, 0) - 0.5) / 16);
  std::fclose(f);
  return path;
}

// One case of `bench_solve gpu calls`: the kernel and the whole public calls on the same problem (seeded
// weights, fp32, one head; mtx: the files' values): make_device_plan once, then solve_planned (X on the
// device: what mixgraph.solve on a CUDA tensor and Mixer(device='cuda') pay per call), solve_device (X on
// the device, everything planned per call: the path before device plans) and solve (X and Y on the host).
// Ratios are call / kernel (median of reps calls after one warm-up each); bits_equal: solve_planned's Y is
// solve_device's.
void run_calls_case(const std::string& label, const std::string& spec, pos_t n, std::uint32_t d, bool csr,
                    int reps) {
  const Pattern p = make_pattern(spec, spec.rfind("mtx:", 0) == 0 ? 0 : n);
  MixerWeights<float> w = seeded_mixer_weights<float>(p, 1, 1);
  if (csr && w.s.implicit) {  // the same reads as an explicit structure (csr-equal-nnz)
    w.s.implicit = false;
    w.s.b = b_csr(p);
    w.s.a = a_csr(p);
    w.s.family = "csr";
  }
  gpu::SolveProblem prob = gpu_problem(w, d);
  for (gpu::SolveMatrix* m : {&prob.a, &prob.b})
    if (m->gen == gpu::CoefGen::Values) m->vals_constant = true;  // (mtx: the files' values)
  const std::size_t count = std::size_t(p.n) * d, bytes = count * sizeof(float);
  std::vector<float> x(count), y(count);
  for (std::size_t k = 0; k < count; ++k) x[k] = float(2 * hash_uniform(7, 0, k / d, k % d) - 1);
  void *dx = nullptr, *dy = nullptr, *dy2 = nullptr;
  std::string err = gpu::device_alloc(&dx, bytes);
  if (err.empty()) err = gpu::device_alloc(&dy, bytes);
  if (err.empty()) err = gpu::device_alloc(&dy2, bytes);
  if (err.empty()) err = gpu::copy_to_device(dx, x.data(), bytes);
  gpu::DevicePlan plan;
  const double t0 = now();
  if (err.empty()) err = gpu::make_device_plan(plan, prob);
  const double plan_ms = (now() - t0) * 1e3;
  std::vector<double> kern, planned, device, host;
  gpu::SolveRun r;
  for (int rep = 0; rep <= reps && err.empty(); ++rep) {
    r = gpu::solve_planned(plan, prob, dx, dy);
    if (!r.ran) break;
    if (rep) kern.push_back(r.kernel_ms), planned.push_back(r.total_ms);
  }
  if (err.empty() && !r.ran) err = "solve_planned: " + r.note;
  for (int rep = 0; rep <= reps && err.empty(); ++rep) {
    const gpu::SolveRun rd = gpu::solve_device(prob, dx, dy2);
    if (!rd.ran) err = "solve_device: " + rd.note;
    if (rep) device.push_back(rd.total_ms);
  }
  for (int rep = 0; rep <= reps && err.empty(); ++rep) {
    const gpu::SolveRun rh = gpu::solve(prob, x.data(), y.data());
    if (!rh.ran) err = "solve: " + rh.note;
    if (rep) host.push_back(rh.total_ms);
  }
  bool same = false;
  if (err.empty()) {
    std::vector<float> a(count), b(count);
    err = gpu::copy_to_host(a.data(), dy, bytes);
    if (err.empty()) err = gpu::copy_to_host(b.data(), dy2, bytes);
    same = err.empty() && std::memcmp(a.data(), b.data(), bytes) == 0;
  }
  const std::uint64_t plan_bytes = plan.device_bytes();
  plan.release();
  for (void* q : {dx, dy, dy2}) gpu::device_free(q);
  if (!err.empty()) {
    std::printf("{\"bench\": \"gpu_solve_calls\", \"case\": \"%s\", \"pattern\": \"%s\", \"note\": \"%s\"}\n",
                label.c_str(), spec.c_str(), err.c_str());
    std::fflush(stdout);
    return;
  }
  const double k = median(kern);
  std::printf(
      "{\"bench\": \"gpu_solve_calls\", \"case\": \"%s\", \"pattern\": \"%s\", \"n\": %u, \"d\": %u, "
      "\"structure\": \"%s\", \"kernel\": \"%s\", \"plan_ms\": %.3f, \"plan_device_bytes\": %llu, "
      "\"kernel_ms\": %.4f, \"planned_call_ms\": %.4f, \"device_call_ms\": %.4f, \"host_call_ms\": %.4f, "
      "\"planned_ratio\": %.3f, \"device_ratio\": %.3f, \"host_ratio\": %.3f, \"target_ratio\": 1.25, "
      "\"bits_equal\": %s}\n",
      label.c_str(), spec.c_str(), unsigned(p.n), d, w.s.implicit ? "implicit" : "csr", r.kernel.c_str(),
      plan_ms, (unsigned long long)plan_bytes, k, median(planned), median(device), median(host),
      median(planned) / k, median(device) / k, median(host) / k, same ? "true" : "false");
  std::fflush(stdout);
}

// bench_solve gpu calls [log2n] [d] [reps]: per-call cost of the public paths against the kernel for
// explicit structures (and pow2 as the implicit baseline).
int bench_gpu_calls(int log2n, std::uint32_t d, int reps) {
  const auto info = gpu::device_info();
  if (!info.usable()) {
    std::printf("{\"bench\": \"gpu_solve_calls\", \"skipped\": \"%s\"}\n", info.note.c_str());
    return 0;
  }
  const pos_t n = pos_t(1) << log2n;
  const std::string mtx = write_mtx(n, "/tmp/mixgraph_bench_calls_" + std::to_string(n) + ".mtx");
  run_calls_case("implicit", "pow2", n, d, false, reps);
  run_calls_case("cache-efficient", "pow2+cache", n, d, false, reps);
  run_calls_case("cache-efficient", "sq1+cache", n, d, false, reps);
  run_calls_case("csr-equal-nnz", "pow2", n, d, true, reps);
  run_calls_case("union", "window:32|sink:4", n, d, false, reps);
  run_calls_case("mtx", "mtx:" + mtx, n, d, false, reps);
  std::remove(mtx.c_str());
  return 0;
}

// bench_solve gpu host-copy [MiB = 1024] [reps = 3]: host <-> device copies of one array each way: pinned
// (the bus), plain cudaMemcpy from pageable memory, and the solver's staged copies over a sweep of chunk
// size and host threads (GB/s = bytes / median time).
int bench_gpu_host_copy(std::size_t mib, int reps) {
  const std::size_t bytes = mib << 20;
  auto gbs = [&](double ms) { return ms > 0 ? double(bytes) / (ms * 1e-3) / 1e9 : 0.0; };
  for (std::size_t chunk_mib : {4, 16, 64})
    for (int threads : {1, 4, 8, 16}) {
      const gpu::HostCopyBench r = gpu::bench_host_copy(bytes, chunk_mib << 20, 4, threads, reps);
      if (!r.ran) {
        std::printf("{\"bench\": \"gpu_host_copy\", \"note\": \"%s\"}\n", r.note.c_str());
        return 0;
      }
      std::printf(
          "{\"bench\": \"gpu_host_copy\", \"MiB\": %zu, \"chunk_MiB\": %zu, \"slots\": 4, \"threads\": %d, "
          "\"pinned_up_GBs\": %.2f, \"pinned_down_GBs\": %.2f, \"pageable_up_GBs\": %.2f, "
          "\"pageable_down_GBs\": %.2f, \"staged_up_GBs\": %.2f, \"staged_down_GBs\": %.2f, "
          "\"register_ms\": %.2f, \"unregister_ms\": %.2f, \"bytes_equal\": %s}\n",
          mib, chunk_mib, threads, gbs(r.pinned_up_ms), gbs(r.pinned_down_ms), gbs(r.pageable_up_ms),
          gbs(r.pageable_down_ms), gbs(r.staged_up_ms), gbs(r.staged_down_ms), r.register_ms, r.unregister_ms,
          r.bytes_equal ? "true" : "false");
      std::fflush(stdout);
    }
  return 0;
}

int bench_gpu(bool quick) {
  const auto info = gpu::device_info();
  if (!info.usable()) {
    std::printf("{\"bench\": \"gpu_solve\", \"skipped\": \"%s\"}\n", info.note.c_str());
    return 0;
  }
  std::vector<GpuCase> cases;
  for (int l : {12, 14, 16}) {
    cases.push_back({"peers", "pow2", l, 256, 1});
    cases.push_back({"peers", "sq1", l, 256, 1});
  }
  cases.push_back({"shared-A", "pow2", 16, 256, 1, false, false, false});
  cases.push_back({"shared-A", "sq1", 16, 256, 1, false, false, false});
  cases.push_back({"csr-equal-nnz", "pow2", 16, 256, 1, false, true});
  cases.push_back({"csr-equal-nnz", "sq1", 16, 256, 1, false, true});
  cases.push_back({"cache-efficient", "pow2+cache", 16, 256, 1});
  cases.push_back({"cache-efficient", "sq1+cache", 16, 256, 1});
  cases.push_back({"fp64", "pow2", 16, 256, 1, true});
  cases.push_back({"ssm-per-channel", "ssm", 16, 256, 256});
  cases.push_back({"ssm-per-channel", "ssm", 16, 4096, 4096});
  cases.push_back({"ssm-per-channel", "ssm", 20, 1024, 1024});
  cases.push_back({"bandwidth-16x64", "pow2", 20, 1024, 16});
  if (!quick) {
    GpuCase big{"n=2^24", "pow2", 24, 64, 1};
    big.check = 0;
    cases.push_back(big);
  }
  for (const auto& c : cases) run_gpu_case(c);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "cpu";
    if (mode == "cpu") {
      const int log2n = argc > 2 ? std::atoi(argv[2]) : 20;
      const std::size_t d = argc > 3 ? std::size_t(std::atoi(argv[3])) : 64;
      const int reps = argc > 4 ? std::atoi(argv[4]) : 3;
      const std::string spec = argc > 5 ? argv[5] : "pow2";
      return bench_cpu(log2n, d, reps, spec);
    }
    if (mode == "gpu" && argc > 2 && std::string(argv[2]) == "case") {
      // bench_solve gpu case <label> <pattern> <log2n> <d> <heads> [csr] [fp64] [shared] [nocheck]
      // (nocheck: no comparison with the naive fp64 kernel, whose row-serial chain takes minutes at 2^24)
      if (argc < 8) throw std::runtime_error("gpu case needs <label> <pattern> <log2n> <d> <heads>");
      GpuCase c{argv[3], argv[4], std::atoi(argv[5]), std::uint32_t(std::atoi(argv[6])),
                std::uint32_t(std::atoi(argv[7]))};
      for (int k = 8; k < argc; ++k) {
        const std::string f = argv[k];
        if (f == "csr")
          c.csr = true;
        else if (f == "fp64")
          c.fp64 = true;
        else if (f == "shared")
          c.a_diag = false;
        else if (f == "nocheck")
          c.check = 0;
        else
          throw std::runtime_error("gpu case: unknown option '" + f + "' (csr, fp64, shared, nocheck)");
      }
      run_gpu_case(c);
      return 0;
    }
    if (mode == "gpu" && argc > 2 && std::string(argv[2]) == "host-copy")
      return bench_gpu_host_copy(argc > 3 ? std::size_t(std::atol(argv[3])) : 1024,
                                 argc > 4 ? std::atoi(argv[4]) : 3);
    if (mode == "gpu" && argc > 2 && std::string(argv[2]) == "calls") {
      // bench_solve gpu calls [log2n = 16] [d = 256] [reps = 5]
      return bench_gpu_calls(argc > 3 ? std::atoi(argv[3]) : 16,
                             argc > 4 ? std::uint32_t(std::atoi(argv[4])) : 256,
                             argc > 5 ? std::atoi(argv[5]) : 5);
    }
    if (mode == "gpu") return bench_gpu(argc > 2 && std::string(argv[2]) == "quick");
    std::fprintf(stderr,
                 "usage: bench_solve cpu [log2n] [d] [reps] [pattern] | bench_solve gpu [quick] | "
                 "bench_solve gpu calls [log2n] [d] [reps] | bench_solve gpu host-copy [MiB] [reps] | "
                 "bench_solve gpu case "
                 "<label> <pattern> <log2n> <d> <heads> [csr] [fp64] [shared] [nocheck]\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_solve: %s\n", e.what());
    return 1;
  }
}
