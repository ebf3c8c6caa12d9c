// gpu-shift-dots (gpu_shift_dots.hpp): per column, the sums of z[i] v[i - o_k] for every offset in one
// pass. A block is 32 columns x 8 (fp64: 4) row groups of `rows` rows; each thread keeps one partial per
// offset over its rows, the block adds its row groups in shared memory, then one double atomic add per offset
// and column. shift_dots_reference.cpp computes the same sums on the host.
#include <cuda_runtime.h>

#include <cstdint>

#include "mixgraph/gpu_shift_dots.hpp"
#include "shift_dots_args.hpp"

namespace mixgraph::gpu {
namespace {

constexpr std::uint32_t K = kShiftDotsMaxOffsets;
template <class T>
constexpr std::uint32_t kGroups = 32 / sizeof(T);  // row groups per block: 32 KB of shared partials

struct Offs {
  std::uint32_t o[K];
};

template <class T, std::uint32_t G = kGroups<T>>
__global__ void __launch_bounds__(32 * G)
    shift_dots_k(std::uint32_t batch, std::uint32_t n, std::uint32_t d, std::uint32_t rows, std::uint32_t nk,
                 Offs offs, bool rev, const T* __restrict__ z, const T* __restrict__ v,
                 double* __restrict__ part) {
  __shared__ T sh[G][K][32];
  const std::uint32_t col = blockIdx.x * 32 + threadIdx.x;
  const std::uint32_t tiles = (n + rows * G - 1) / (rows * G);
  const std::uint32_t b = blockIdx.y / tiles, tile = blockIdx.y % tiles;
  const std::uint32_t i0 = (tile * G + threadIdx.y) * rows, i1 = min(n, i0 + rows);
  T acc[K];
#pragma unroll
  for (std::uint32_t k = 0; k < K; ++k) acc[k] = T(0);
  if (col < d) {
    const std::uint64_t base = std::uint64_t(b) * n * d + col;
    for (std::uint32_t i = i0; i < i1; ++i) {
      const T zi = __ldg(z + base + std::uint64_t(rev ? n - 1 - i : i) * d);
#pragma unroll
      for (std::uint32_t k = 0; k < K; ++k)
        if (k < nk && offs.o[k] <= i)
          acc[k] = fma(zi, __ldg(v + base + std::uint64_t(i - offs.o[k]) * d), acc[k]);
    }
  }
#pragma unroll
  for (std::uint32_t k = 0; k < K; ++k) sh[threadIdx.y][k][threadIdx.x] = acc[k];
  __syncthreads();
  for (std::uint32_t e = threadIdx.y * 32 + threadIdx.x; e < nk * 32; e += 32 * G) {
    const std::uint32_t k = e / 32, c = e % 32;
    if (blockIdx.x * 32 + c >= d) continue;
    double s = 0;
#pragma unroll
    for (std::uint32_t g = 0; g < G; ++g) s += double(sh[g][k][c]);
    atomicAdd(part + std::uint64_t(k) * d + blockIdx.x * 32 + c, s);
  }
}

}  // namespace

std::string shift_dots(const ShiftDots& s, const void* z, const void* v, double* part, void* stream) {
  const std::string err = shift_dots_check(s, z, v, part);
  if (!err.empty()) return err;
  if (s.offsets.empty()) return "";
  Offs offs{};
  for (std::size_t k = 0; k < s.offsets.size(); ++k) offs.o[k] = s.offsets[k];
  std::uint32_t rows = s.rows;
  if (!rows) {  // about 2^18 threads: rows = n batch d / 2^18, a power of two in [8, 1024]
    const std::uint64_t cells = std::uint64_t(s.batch) * s.n * s.d;
    rows = 8;
    while (rows < 1024 && cells / rows > (std::uint64_t(1) << 18)) rows *= 2;
  }
  const std::uint32_t G = s.fp64 ? kGroups<double> : kGroups<float>;
  const std::uint32_t tiles = (s.n + rows * G - 1) / (rows * G);
  const std::uint64_t gy = std::uint64_t(s.batch) * tiles;
  if (gy > 65535) return "shift dots: too many row tiles (batch x n too large for the grid)";
  const dim3 grid((s.d + 31) / 32, unsigned(gy)), block(32, G);
  const auto st = static_cast<cudaStream_t>(stream);
  const auto nk = std::uint32_t(s.offsets.size());
  if (s.fp64)
    shift_dots_k<double><<<grid, block, 0, st>>>(s.batch, s.n, s.d, rows, nk, offs, s.z_reversed,
                                                 static_cast<const double*>(z), static_cast<const double*>(v),
                                                 part);
  else
    shift_dots_k<float><<<grid, block, 0, st>>>(s.batch, s.n, s.d, rows, nk, offs, s.z_reversed,
                                                static_cast<const float*>(z), static_cast<const float*>(v),
                                                part);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? "" : std::string("shift dots: ") + cudaGetErrorString(e);
}

}  // namespace mixgraph::gpu
