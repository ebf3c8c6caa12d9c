// A CUDA translation unit linking mixgraph::gpu of an installed CUDA build: it includes the GPU header
// (plain C++17), asks mixgraph for the device, and launches a kernel of its own when one is usable.
// Without a GPU it prints devices=0 and still exits 0: building and linking is what it checks there.
#include <cstdio>
#include <mixgraph/gpu.hpp>

__global__ void add_one(int* v) {
  *v += 1;
}

int main() {
  const auto info = mixgraph::gpu::device_info();
  int kernel = -1;  // -1: not run (no usable device)
  if (info.usable()) {
    int* d = nullptr;
    int h = 41;
    if (cudaMalloc(&d, sizeof h) == cudaSuccess) {
      cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice);
      add_one<<<1, 1>>>(d);
      cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
      cudaFree(d);
      kernel = h;
    }
  }
  std::printf("gpu_built_in=%d devices=%d kernel=%d\n", info.built_in ? 1 : 0, info.device_count, kernel);
  if (!info.built_in) return 1;
  return info.usable() && kernel != 42 ? 1 : 0;
}
