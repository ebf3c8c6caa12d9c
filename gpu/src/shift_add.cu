// gpu-shift-add (gpu_shift_add.hpp): out[i] = sum_k table[h, k] z[src(i + o_k)] per column. A block is 32
// columns x 8 row groups of R rows; a thread keeps its R sums in registers and walks the offsets, reading
// its head's coefficient from the table in device memory and skipping the offset (no read of z) where it
// is zero. shift_add_reference.cpp computes the same sums on the host.
#include <cuda_runtime.h>

#include <cstdint>

#include "mixgraph/gpu_shift_add.hpp"
#include "shift_add_args.hpp"

namespace mixgraph::gpu {
namespace {

constexpr std::uint32_t kGroups = 8;  // row groups per block
constexpr std::uint32_t kRows = 16;   // rows per thread

struct Offs {
  std::uint32_t o[kShiftAddMaxOffsets];
};

template <class T>
__global__ void __launch_bounds__(32 * kGroups)
    shift_add_k(std::uint32_t n, std::uint32_t d, std::uint32_t dh, std::uint32_t nk, Offs offs, bool rev,
                const T* __restrict__ table, const T* __restrict__ z, T* __restrict__ out) {
  const std::uint32_t col = blockIdx.y * 32 + threadIdx.x;
  const std::uint64_t i0 = (std::uint64_t(blockIdx.x) * kGroups + threadIdx.y) * kRows;
  if (col >= d || i0 >= n) return;
  const T* tab = table + std::uint64_t(col / dh) * nk;
  T acc[kRows];
#pragma unroll
  for (std::uint32_t r = 0; r < kRows; ++r) acc[r] = T(0);
  for (std::uint32_t k = 0; k < nk; ++k) {
    const T a = __ldg(tab + k);
    if (a == T(0)) continue;
    const std::uint64_t o = offs.o[k];
#pragma unroll
    for (std::uint32_t r = 0; r < kRows; ++r) {
      const std::uint64_t j = i0 + r + o;
      if (j < n) acc[r] = fma(a, __ldg(z + (rev ? n - 1 - j : j) * d + col), acc[r]);
    }
  }
#pragma unroll
  for (std::uint32_t r = 0; r < kRows; ++r)
    if (i0 + r < n) out[(i0 + r) * d + col] = acc[r];
}

}  // namespace

std::string shift_add(const ShiftAdd& s, const void* table, const void* z, void* out, void* stream) {
  const std::string err = shift_add_check(s, table, z, out);
  if (!err.empty()) return err;
  Offs offs{};
  for (std::size_t k = 0; k < s.offsets.size(); ++k) offs.o[k] = s.offsets[k];
  const std::uint64_t tiles = (std::uint64_t(s.n) + kRows * kGroups - 1) / (kRows * kGroups);
  const std::uint64_t cblocks = (std::uint64_t(s.d) + 31) / 32;
  if (tiles > 0x7fffffffULL || cblocks > 65535) return "shift add: n or d too large for the grid";
  const dim3 grid{unsigned(tiles), unsigned(cblocks)}, block{32, kGroups};
  const auto st = static_cast<cudaStream_t>(stream);
  const auto nk = std::uint32_t(s.offsets.size());
  const std::uint32_t dh = s.d / s.heads;
  if (s.fp64)
    shift_add_k<double><<<grid, block, 0, st>>>(s.n, s.d, dh, nk, offs, s.z_reversed,
                                                static_cast<const double*>(table),
                                                static_cast<const double*>(z), static_cast<double*>(out));
  else
    shift_add_k<float><<<grid, block, 0, st>>>(s.n, s.d, dh, nk, offs, s.z_reversed,
                                               static_cast<const float*>(table), static_cast<const float*>(z),
                                               static_cast<float*>(out));
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? "" : std::string("shift add: ") + cudaGetErrorString(e);
}

}  // namespace mixgraph::gpu
