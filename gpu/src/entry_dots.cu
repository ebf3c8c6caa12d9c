// gpu-entry-dots (gpu_entry_dots.hpp): one block per (entry, head); its threads stride over the head's
// batch x dh columns of the entry's two rows, products summed in double, then a warp-shuffle and shared
// reduction in a fixed order. entry_dots_reference.cpp computes the same sums on the host.
#include <cuda_runtime.h>

#include <cstdint>

#include "mixgraph/gpu_entry_dots.hpp"

namespace mixgraph::gpu {
namespace {

constexpr unsigned kThreads = 128;

template <class T>
__global__ void __launch_bounds__(kThreads)
    entry_dots_k(std::uint32_t batch, std::uint32_t heads, std::uint32_t dh, std::uint64_t nnz,
                 const T* __restrict__ z, const T* __restrict__ v, const std::int64_t* __restrict__ rows,
                 const std::int64_t* __restrict__ cols, double* __restrict__ out) {
  __shared__ double warp_sums[kThreads / 32];
  const std::uint64_t e = blockIdx.x;
  const std::uint32_t h = blockIdx.y;
  const std::uint64_t D = std::uint64_t(batch) * heads * dh;
  const T* zr = z + std::uint64_t(__ldg(rows + e)) * D;
  const T* vr = v + std::uint64_t(__ldg(cols + e)) * D;
  const std::uint32_t per = batch * dh;  // the head's columns
  double acc = 0;
  for (std::uint32_t q = threadIdx.x; q < per; q += kThreads) {
    const std::uint32_t b = q / dh, c = q % dh;
    const std::uint64_t col = (std::uint64_t(b) * heads + h) * dh + c;
    acc += double(__ldg(zr + col)) * double(__ldg(vr + col));
  }
  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    double s = 0;
    for (unsigned w = 0; w < kThreads / 32; ++w) s += warp_sums[w];
    out[std::uint64_t(h) * nnz + e] = s;
  }
}

}  // namespace

std::string entry_dots(const EntryDots& s, const void* z, const void* v, const std::int64_t* rows,
                       const std::int64_t* cols, double* out, void* stream) {
  const std::string err = entry_dots_check(s, z, v, rows, cols, out);
  if (!err.empty()) return err;
  if (s.nnz == 0) return "";
  const dim3 grid(unsigned(s.nnz), s.heads), block(kThreads);
  const auto st = static_cast<cudaStream_t>(stream);
  if (s.fp64)
    entry_dots_k<double><<<grid, block, 0, st>>>(s.batch, s.heads, s.dh, s.nnz, static_cast<const double*>(z),
                                                 static_cast<const double*>(v), rows, cols, out);
  else
    entry_dots_k<float><<<grid, block, 0, st>>>(s.batch, s.heads, s.dh, s.nnz, static_cast<const float*>(z),
                                                static_cast<const float*>(v), rows, cols, out);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? "" : std::string("entry dots: ") + cudaGetErrorString(e);
}

}  // namespace mixgraph::gpu
