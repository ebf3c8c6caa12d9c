#include <cuda_runtime.h>

#include "mixgraph/gpu.hpp"

namespace mixgraph::gpu {

DeviceInfo device_info() {
  static const DeviceInfo cached = [] {
    DeviceInfo d;
    d.built_in = true;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      d.note = std::string("no usable GPU: ") + cudaGetErrorString(err);
      (void)cudaGetLastError();
      return d;
    }
    d.device_count = count;
    if (count == 0) {
      d.note = "no CUDA device visible";
      return d;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
      d.name = prop.name;
      d.cc_major = prop.major;
      d.cc_minor = prop.minor;
      d.memory_bytes = prop.totalGlobalMem;
    }
    return d;
  }();
  return cached;
}

}  // namespace mixgraph::gpu
