#pragma once
// Device-side input and output of the public solve: seeded X made on the device (the host's bits,
// weight_gen.hpp input_value) and the sum of Y, so solve_seeded_x moves neither X nor Y over the bus.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "host.cuh"
#include "mixgraph/weight_gen.hpp"

namespace mixgraph::gpu {
namespace {

constexpr unsigned kIoBlock = 256;

inline unsigned io_grid(std::uint64_t count) {
  return unsigned(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>((count + kIoBlock - 1) / kIoBlock, std::uint64_t(num_sms()) * 16)));
}

// x[i * d + c] = input_value(seed, i, c), rounded to T
template <class T>
__global__ void fill_x(T* x, std::uint32_t n, std::uint32_t d, std::uint64_t seed) {
  const std::uint64_t count = std::uint64_t(n) * d;
  for (std::uint64_t q = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; q < count;
       q += std::uint64_t(gridDim.x) * blockDim.x)
    x[q] = T(wgen::input_value(seed, q / d, q % d));
}

// *out += the sum of v[0, count) in double (one atomic per block; the order of the blocks varies)
template <class T>
__global__ void sum_values(const T* v, std::uint64_t count, double* out) {
  __shared__ double part[kIoBlock / 32];
  double s = 0;
  for (std::uint64_t q = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; q < count;
       q += std::uint64_t(gridDim.x) * blockDim.x)
    s += double(v[q]);
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    double t = 0;
    for (unsigned w = 0; w < kIoBlock / 32; ++w) t += part[w];
    atomicAdd(out, t);
  }
}

template <class T>
void seeded_x(T* x, std::uint32_t n, std::uint32_t d, std::uint64_t seed, cudaStream_t st) {
  const std::uint64_t count = std::uint64_t(n) * d;
  fill_x<T><<<io_grid(count), kIoBlock, 0, st>>>(x, n, d, seed);
  MG_CUDA(cudaGetLastError(), "fill X");
}

template <class T>
double device_sum(const T* v, std::uint64_t count, cudaStream_t st) {
  DevBuf acc(sizeof(double));
  MG_CUDA(cudaMemsetAsync(acc.p, 0, sizeof(double), st), "memset");
  sum_values<T><<<io_grid(count), kIoBlock, 0, st>>>(v, count, acc.as<double>());
  MG_CUDA(cudaGetLastError(), "sum Y");
  double s = 0;
  MG_CUDA(cudaMemcpyAsync(&s, acc.p, sizeof s, cudaMemcpyDeviceToHost, st), "read the sum");
  MG_CUDA(cudaStreamSynchronize(st), "sum Y");
  return s;
}

}  // namespace
}  // namespace mixgraph::gpu
