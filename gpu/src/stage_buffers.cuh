#pragma once
// Device buffers of the stage entry points (stage_debug.cu, stage_debug_gather.cu), freed on every exit
// path: each upload is a cudaMalloc (16 bytes of slack) and, with a source, a copy from the host.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace mixgraph::gpu {
namespace {

struct StageBuffers {
  std::vector<void*> held;
  StageBuffers() = default;
  StageBuffers(const StageBuffers&) = delete;
  StageBuffers& operator=(const StageBuffers&) = delete;
  ~StageBuffers() {
    for (void* p : held) cudaFree(p);
  }
  /// count values of U on the device (src copied there when given); null when CUDA fails.
  template <class U>
  U* upload(const U* src, std::size_t count) {
    void* p = nullptr;
    if (cudaMalloc(&p, count * sizeof(U) + 16) != cudaSuccess) return nullptr;
    held.push_back(p);
    if (src && cudaMemcpy(p, src, count * sizeof(U), cudaMemcpyHostToDevice) != cudaSuccess) return nullptr;
    return static_cast<U*>(p);
  }
};

}  // namespace
}  // namespace mixgraph::gpu
