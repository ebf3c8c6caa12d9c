#pragma once
// The device-resident benchmark behind bench_solve (gpu_bench.hpp): seeded random X and
// coefficients generated on the device, CUDA-event timing, the copy floor, the clock probe and
// the naive fp64 check. Serves bench/ only; plan.cuh and the kernels are the solver's (gpu/src).

#include <algorithm>
#include <cmath>
#include <vector>

#include "gpu_bench_kernels.cuh"
#include "plan.cuh"

namespace mixgraph::gpu {
namespace {

template <class T>
BenchResult bench_t(const BenchSpec& s) {
  BenchResult res;
  const std::uint64_t nd = std::uint64_t(s.n) * s.d;
  const bool implicit = s.ptr.empty();
  DevBuf dx(nd * sizeof(T)), dy(nd * sizeof(T));
  DevStruct sa, sb;
  std::vector<std::uint32_t> a_off;
  std::vector<std::uint64_t> a_ptr;
  std::vector<std::uint32_t> a_idx;
  SolveMatrix A, B;
  B.implicit = implicit;
  std::uint32_t kmax = 1;
  if (implicit) {
    B.offsets = s.offsets.data();
    B.k = std::uint32_t(s.offsets.size());
    kmax = std::max<std::uint32_t>(1, B.k);
    // [k][i][h]
    B.hs = 1;
    B.is = s.heads;
    B.ks = std::uint64_t(s.n) * s.heads;
    a_off.push_back(0);
    if (!s.a_diagonal) a_off.insert(a_off.end(), s.offsets.begin(), s.offsets.end());
    A.implicit = true;
    A.offsets = a_off.data();
    A.k = std::uint32_t(a_off.size());
    A.hs = 1;
    A.is = s.heads;
    A.ks = std::uint64_t(s.n) * s.heads;
  } else {
    B.ptr = s.ptr.data();
    B.idx = s.idx.data();
    B.hs = 1;
    B.is = s.heads;
    for (std::uint32_t i = 0; i < s.n; ++i)
      kmax = std::max<std::uint32_t>(kmax, std::uint32_t(s.ptr[i + 1] - s.ptr[i]));
    A.implicit = false;
    a_ptr.assign(std::size_t(s.n) + 1, 0);
    for (std::uint32_t i = 0; i < s.n; ++i) {
      if (!s.a_diagonal)
        for (std::uint64_t e = s.ptr[i]; e < s.ptr[i + 1]; ++e) a_idx.push_back(s.idx[e]);
      a_idx.push_back(i);
      a_ptr[i + 1] = a_idx.size();
    }
    A.ptr = a_ptr.data();
    A.idx = a_idx.data();
    A.hs = 1;
    A.is = s.heads;
  }
  const std::uint64_t na = value_count(A, s.n, s.heads), nb = value_count(B, s.n, s.heads);
  DevBuf va(na * sizeof(T)), vb(nb * sizeof(T));
  fill_random<T><<<1024, 256>>>(dx.as<T>(), nd, s.seed, 11, 0, 1.0);
  fill_random<T><<<1024, 256>>>(va.as<T>(), na, s.seed, 12, 2, s.a_diagonal ? 1.0 : 1.0 / (kmax + 1));
  if (nb) fill_random<T><<<1024, 256>>>(vb.as<T>(), nb, s.seed, 13, 1, 0.9 / kmax);
  MG_CUDA(cudaGetLastError(), "fill_random");
  DevProblem<T> P{};
  P.n = s.n;
  P.d = s.d;
  P.dh = s.d / s.heads;
  P.a = dev_matrix<T>(A, s.n, sa, va.as<T>());
  P.b = dev_matrix<T>(B, s.n, sb, vb.as<T>());
  P.x = dx.as<T>();
  P.y = dy.as<T>();
  Plan<T> plan;
  make_plan(plan, P, A, B, s.heads, s.options);
  res.plan = plan.explain;
  if (s.options.verbose) std::fprintf(stderr, "%s\n", plan.explain.c_str());
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> ts, cs;
  res.kernel = plan.name;
  run_plan(plan, P, nullptr);  // warm-up
  MG_CUDA(cudaDeviceSynchronize(), "warm-up");
  for (int k = 0; k < std::max(1, s.reps); ++k) {
    cudaEventRecord(e0);
    run_plan(plan, P, nullptr);
    cudaEventRecord(e1);
    MG_CUDA(cudaEventSynchronize(e1), "solve");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    ts.push_back(ms);
  }
  for (int k = 0; k < std::max(3, s.reps); ++k) {
    cudaEventRecord(e0);
    cudaMemcpyAsync(dy.p, dx.p, nd * sizeof(T), cudaMemcpyDeviceToDevice);
    cudaEventRecord(e1);
    MG_CUDA(cudaEventSynchronize(e1), "copy");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cs.push_back(ms);
  }
  // the solve once more (the copy overwrote Y), with the clock probe beside it on a second stream
  {
    cudaStream_t s1, s2;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    DevBuf probe(2 * sizeof(double));
    clock_probe<<<1, 1, 0, s2>>>(probe.as<double>());  // idle-ish clock
    MG_CUDA(cudaStreamSynchronize(s2), "probe");
    run_plan(plan, P, s1);
    clock_probe<<<1, 1, 0, s2>>>(probe.as<double>() + 1);
    MG_CUDA(cudaDeviceSynchronize(), "solve");
    double mhz[2] = {0, 0};
    MG_CUDA(cudaMemcpy(mhz, probe.p, sizeof mhz, cudaMemcpyDeviceToHost), "probe");
    res.sm_mhz_idle = mhz[0];
    res.sm_mhz_during = mhz[1];
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
  }
  check_plan(plan);
  std::sort(ts.begin(), ts.end());
  std::sort(cs.begin(), cs.end());
  res.ms = ts[ts.size() / 2];
  res.ms_min = ts[0];
  res.copy_ms = cs[cs.size() / 2];
  if (s.check_cols > 0) {
    const std::uint32_t cols = std::min(s.check_cols, s.d);
    DevBuf ref(std::uint64_t(s.n) * cols * sizeof(double));
    cudaEventRecord(e0);
    naive_solve<T><<<(cols + 31) / 32, 32>>>(P, cols, ref.as<double>());
    cudaEventRecord(e1);
    MG_CUDA(cudaEventSynchronize(e1), "naive");
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    res.naive_ms = ms;
    std::vector<double> hr(std::uint64_t(s.n) * cols);
    std::vector<T> hy(nd);
    MG_CUDA(cudaMemcpy(hr.data(), ref.p, hr.size() * sizeof(double), cudaMemcpyDeviceToHost), "download");
    MG_CUDA(cudaMemcpy(hy.data(), dy.p, nd * sizeof(T), cudaMemcpyDeviceToHost), "download");
    double num = 0, den = 0;
    for (std::uint64_t i = 0; i < s.n; ++i)
      for (std::uint32_t c = 0; c < cols; ++c) {
        const double a = double(hy[i * s.d + c]), b = hr[i * cols + c];
        num += (a - b) * (a - b);
        den += b * b;
      }
    res.check_relerr = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  res.ran = true;
  return res;
}

}  // namespace
}  // namespace mixgraph::gpu
