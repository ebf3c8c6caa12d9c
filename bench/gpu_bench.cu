// bench_solve (gpu_bench.hpp): the device-resident benchmark of the GPU solver, compiled into bench_solve
// only. It includes the solver's private headers (gpu/src: the planner and every kernel family), so it
// times the production kernels through the production planner.
#include <cuda_runtime.h>

#include <string>

#include "gpu_bench.hpp"
#include "gpu_bench_harness.cuh"

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

}  // namespace mixgraph::gpu
