// bench_solve (gpu_bench.hpp): the device-resident benchmark of the GPU solver, compiled into bench_solve
// only. It includes the solver's private headers (gpu/src: the planner and every kernel family), so it
// times the production kernels through the production planner.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_bench.hpp"
#include "gpu_bench_harness.cuh"
#include "host_copy.hpp"

namespace mixgraph::gpu {

namespace {

std::string bench_no_device_note() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
  if (count == 0) return "no CUDA device is visible";
  return "";
}

}  // namespace

BenchResult bench_solve(const BenchSpec& s) {
  BenchResult r;
  r.note = bench_no_device_note();
  if (!r.note.empty()) return r;
  try {
    return s.fp64 ? bench_t<double>(s) : bench_t<float>(s);
  } catch (const std::string& e) {
    r.note = e;
    return r;
  }
}

namespace {

template <class F>
double median_ms(int reps, F&& f) {
  std::vector<double> t;
  for (int k = 0; k < std::max(1, reps); ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

HostCopyBench bench_host_copy(std::size_t bytes, std::size_t chunk, int slots, int threads, int reps) {
  HostCopyBench r;
  r.note = bench_no_device_note();
  if (!r.note.empty()) return r;
  void *dev = nullptr, *pin = nullptr;
  try {
    MG_CUDA(cudaMalloc(&dev, bytes), "cudaMalloc");
    MG_CUDA(cudaHostAlloc(&pin, bytes, cudaHostAllocDefault), "cudaHostAlloc");
    std::vector<unsigned char> a(bytes), b(bytes);  // pageable, touched
    for (std::size_t k = 0; k < bytes; ++k) a[k] = static_cast<unsigned char>(k * 2654435761u >> 13);
    std::memcpy(pin, a.data(), bytes);
    auto sync = [] { MG_CUDA(cudaDeviceSynchronize(), "synchronize"); };
    r.pinned_up_ms =
        median_ms(reps, [&] { MG_CUDA(cudaMemcpy(dev, pin, bytes, cudaMemcpyHostToDevice), "pinned up"); });
    r.pinned_down_ms =
        median_ms(reps, [&] { MG_CUDA(cudaMemcpy(pin, dev, bytes, cudaMemcpyDeviceToHost), "pinned down"); });
    r.pageable_up_ms = median_ms(
        reps, [&] { MG_CUDA(cudaMemcpy(dev, a.data(), bytes, cudaMemcpyHostToDevice), "pageable up"); });
    r.pageable_down_ms = median_ms(
        reps, [&] { MG_CUDA(cudaMemcpy(b.data(), dev, bytes, cudaMemcpyDeviceToHost), "pageable down"); });
    HostCopyOptions o;
    if (chunk) o.chunk = chunk;
    if (slots) o.slots = slots;
    o.threads = threads;
    r.staged_up_ms = median_ms(reps, [&] {
      upload_staged(dev, a.data(), bytes, nullptr, o);
      sync();
    });
    std::memset(b.data(), 0, bytes);
    r.staged_down_ms = median_ms(reps, [&] { download_staged(b.data(), dev, bytes, nullptr, o); });
    r.bytes_equal = std::memcmp(a.data(), b.data(), bytes) == 0;
    r.register_ms = median_ms(
        1, [&] { MG_CUDA(cudaHostRegister(a.data(), bytes, cudaHostRegisterDefault), "cudaHostRegister"); });
    r.unregister_ms = median_ms(1, [&] { MG_CUDA(cudaHostUnregister(a.data()), "cudaHostUnregister"); });
    r.ran = true;
  } catch (const std::string& e) {
    r.note = e;
  }
  if (dev) cudaFree(dev);
  if (pin) cudaFreeHost(pin);
  return r;
}

}  // namespace mixgraph::gpu
