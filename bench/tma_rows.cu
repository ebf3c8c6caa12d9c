// Staging microbenchmark (docs/benchmarks.md, GPU v11): does a tensor copy (TMA) cost per box, per row or
// per byte? Each CTA owns a tile of TW columns of a 2^20 x 1024 fp32 matrix and, per step, stages NB = 10
// boxes of TW columns x BR rows at rows s and s - 2048 * 2^j (the pow2 offsets beyond bi_solve_ws's ring),
// 4 (or 2) buffers deep; one thread issues and waits for the buffer it reuses. The same rows by plain loads
// (256 threads, 16-byte pieces) for comparison. Not part of the CMake build (it needs a GPU, sm_90):
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a bench/tma_rows.cu -o tma_rows && ./tma_rows
// (sm_90a: the multicast copies of the last case)
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../gpu/src/tma.cuh"

using namespace mixgraph::gpu::tma;  // smem_u32, mbar_init, mbar_expect, mbar_wait, tma_box

template <int GB>
__global__ void __launch_bounds__(256)
    tma_stage(const __grid_constant__ CUtensorMap tm, int TW, int BR, int NB, int steps, int rows_per_step,
              unsigned box_bytes, float* sink) {
  extern __shared__ __align__(128) unsigned char sm[];
  __shared__ std::uint64_t bar[GB];
  unsigned char* buf = sm + ((128u - (smem_u32(sm) & 127u)) & 127u);
  const unsigned per = unsigned(NB) * box_bytes;
  if (threadIdx.x == 0) {
    for (int b = 0; b < GB; ++b) mbar_init(bar + b, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  float acc = 0.f;
  if (threadIdx.x == 0) {
    const int col0 = blockIdx.x * TW;
    for (int s = 0; s < steps; ++s) {
      const int b = s % GB;
      if (s >= GB) {
        mbar_wait(bar + b, ((s - GB) / GB) & 1u);
        acc += reinterpret_cast<float*>(buf + b * per)[0];
      }
      mbar_expect(bar + b, per);
      const int row = s * rows_per_step;
      for (int j = 0; j < NB; ++j) {
        const int r = j == 0 ? row : row - (2048 << (j - 1));
        tma_box(buf + b * per + j * box_bytes, &tm, col0, r, bar + b);
      }
    }
    for (int s = steps; s < steps + GB; ++s) {
      const int b = s % GB;
      if (s - GB >= 0) mbar_wait(bar + b, ((s - GB) / GB) & 1u);
    }
    sink[blockIdx.x] = acc;
  }
}

// 2-CTA clusters (adjacent tiles of 8 columns): each step's 10 boxes are 16 columns wide, each CTA issues
// half of them with multicast to both, so each CTA still receives its 8 columns of every box (and its
// neighbour's). full[b]: this CTA's buffer b has arrived; empty[b]: both CTAs have read buffer b (count 2,
// one arrive from each, the peer's remotely), which the issuers wait for before reusing it.
template <int GB>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(256)
    tma_mcast(const __grid_constant__ CUtensorMap tm, int NB, int steps, float* sink) {
  constexpr int TW = 16, BR = 64;
  constexpr unsigned box_bytes = TW * BR * 4;
  extern __shared__ __align__(128) unsigned char sm[];
  __shared__ std::uint64_t full[GB], empty[GB];
  unsigned char* buf = sm + ((128u - (smem_u32(sm) & 127u)) & 127u);
  const unsigned per = unsigned(NB) * box_bytes;
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    for (int b = 0; b < GB; ++b) {
      mbar_init(full + b, 1);
      mbar_init(empty + b, 2);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
  float acc = 0.f;
  if (threadIdx.x == 0) {
    const int col0 = int(blockIdx.x / 2) * TW;
    auto wait_cl = [](std::uint64_t* bar, unsigned parity) {
      unsigned done = 0;
      while (!done)
        asm volatile(
            "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 "
            "%0, 1, 0, p; }"
            : "=r"(done)
            : "r"(smem_u32(bar)), "r"(parity)
            : "memory");
    };
    auto release = [&](int b) {  // buffer b read here: arrive on empty[b] of both CTAs
      for (unsigned c = 0; c < 2; ++c) {
        unsigned ra;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(ra) : "r"(smem_u32(empty + b)), "r"(c));
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(ra) : "memory");
      }
    };
    for (int s = 0; s < steps; ++s) {
      const int b = s % GB;
      if (s >= GB) {
        wait_cl(full + b, ((s - GB) / GB) & 1u);
        acc += reinterpret_cast<float*>(buf + b * per)[0];
        release(b);
        wait_cl(empty + b, ((s - GB) / GB) & 1u);
      }
      mbar_expect(full + b, per);
      const int row = s * BR;
      for (int j = int(rank); j < NB; j += 2) {
        const int r = j == 0 ? row : row - (2048 << (j - 1));
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::"
            "cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_u32(buf + b * per + j * box_bytes)),
            "l"(reinterpret_cast<std::uint64_t>(&tm)), "r"(col0), "r"(r), "r"(smem_u32(full + b)),
            "h"((unsigned short)3)
            : "memory");
      }
    }
    for (int s = steps; s < steps + GB; ++s) {
      const int b = s % GB;
      wait_cl(full + b, ((s - GB) / GB) & 1u);
    }
    sink[blockIdx.x] = acc;
  }
  __syncthreads();
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// the same rows by plain loads: 256 threads, each row of TW columns read as 16-byte pieces
__global__ void __launch_bounds__(256)
    ld_stage(const float* x, int d, int TW, int BR, int NB, int steps, int rows_per_step, float* sink) {
  const int col0 = blockIdx.x * TW, pieces = TW / 4, per_row = pieces;
  float4 acc = make_float4(0, 0, 0, 0);
  for (int s = 0; s < steps; ++s) {
    const int row = s * rows_per_step;
    for (int e = threadIdx.x; e < NB * BR * per_row; e += blockDim.x) {
      const int j = e / (BR * per_row), rr = (e / per_row) % BR, pc = e % per_row;
      const long r = long(j == 0 ? row : row - (2048 << (j - 1))) + rr;
      if (r < 0) continue;
      const float4 v = __ldg(reinterpret_cast<const float4*>(x + r * d + col0) + pc);
      acc.x += v.x;
      acc.y += v.y;
    }
  }
  if (acc.x == 12345.f) sink[blockIdx.x] = acc.y;
}

int main(int argc, char** argv) {
  const long n = 1 << 20;
  const int d = 1024;
  float* x;
  float* sink;
  cudaMalloc(&x, n * d * 4);
  cudaMemset(x, 0, n * d * 4);
  cudaMalloc(&sink, 4096 * 4);
  void* f = nullptr;
  cudaDriverEntryPointQueryResult q{};
  cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q);
  auto enc = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  struct Cfg {
    int TW, BR, NB;
    const char* what;
  };
  // NB = 10 boxes of 64 rows per chunk of 64 rows is bi_solve_ws's bandwidth case
  const Cfg cfgs[] = {{8, 64, 10, "8 cols x 64 rows (now)"},
                      {8, 128, 10, "8 x 128 (2 chunks per box)"},
                      {8, 32, 10, "8 x 32"},
                      {16, 64, 10, "16 x 64 (64 CTAs)"},
                      {32, 64, 10, "32 x 64 (32 CTAs)"},
                      {8, 256, 10, "8 x 256"}};
  for (const Cfg& c : cfgs) {
    CUtensorMap tm{};
    const cuuint64_t dims[2] = {cuuint64_t(d), cuuint64_t(n)}, strides[1] = {cuuint64_t(d) * 4};
    const cuuint32_t box[2] = {cuuint32_t(c.TW), cuuint32_t(c.BR)}, estr[2] = {1, 1};
    if (enc(&tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, x, dims, strides, box, estr,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
      std::printf("%s: encode failed\n", c.what);
      continue;
    }
    const int ctas = d / c.TW;
    const unsigned box_bytes = unsigned(c.TW * c.BR * 4);
    const int steps = int(n / c.BR);
    const int gb = 4 * size_t(c.NB) * box_bytes <= 200000 ? 4 : 2;
    const size_t smem = gb * size_t(c.NB) * box_bytes + 128;
    cudaFuncSetAttribute(tma_stage<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    cudaFuncSetAttribute(tma_stage<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    for (int rep = 0; rep < 3; ++rep) {
      cudaEventRecord(e0);
      if (gb == 4)
        tma_stage<4><<<ctas, 256, smem>>>(tm, c.TW, c.BR, c.NB, steps, c.BR, box_bytes, sink);
      else
        tma_stage<2><<<ctas, 256, smem>>>(tm, c.TW, c.BR, c.NB, steps, c.BR, box_bytes, sink);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      const double bytes = double(ctas) * steps * c.NB * box_bytes;
      std::printf("tma %-28s gb %d ctas %4d boxes %8.2f M  %8.3f ms  %7.1f GB/s  %6.1f ns/box/CTA  err %s\n",
                  c.what, gb, ctas, double(ctas) * steps * c.NB / 1e6, ms, bytes / ms / 1e6,
                  ms * 1e6 / (double(steps) * c.NB), cudaGetErrorString(cudaGetLastError()));
    }
    for (int rep = 0; rep < 2; ++rep) {
      cudaEventRecord(e0);
      ld_stage<<<ctas, 256>>>(x, d, c.TW, c.BR, c.NB, steps, c.BR, sink);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      const double bytes = double(ctas) * steps * c.NB * box_bytes;
      std::printf("ldg %-28s ctas %4d               %8.3f ms  %7.1f GB/s  err %s\n", c.what, ctas, ms,
                  bytes / ms / 1e6, cudaGetErrorString(cudaGetLastError()));
    }
  }
  {  // 2-CTA clusters, 16-column boxes multicast to both (each CTA issues half)
    CUtensorMap tm{};
    const cuuint64_t dims[2] = {cuuint64_t(d), cuuint64_t(n)}, strides[1] = {cuuint64_t(d) * 4};
    const cuuint32_t box[2] = {16, 64}, estr[2] = {1, 1};
    if (enc(&tm, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, x, dims, strides, box, estr,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS) {
      const int NB = 10, steps = int(n / 64), ctas = d / 8;
      const size_t smem = 4 * size_t(NB) * 16 * 64 * 4 + 128;
      cudaFuncSetAttribute(tma_mcast<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
      for (int rep = 0; rep < 3; ++rep) {
        cudaEventRecord(e0);
        tma_mcast<4><<<ctas, 256, smem>>>(tm, NB, steps, sink);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        std::printf(
            "tma 16 x 64 multicast to 2-CTA clusters ctas %4d  %8.3f ms  %7.1f GB/s received  %6.1f ns per "
            "step per CTA (8 x 64 unicast: 10 boxes per step)  err %s\n",
            ctas, ms, double(ctas) * steps * NB * 8 * 64 * 4 / ms / 1e6, ms * 1e6 / steps,
            cudaGetErrorString(cudaGetLastError()));
      }
    }
  }
  return 0;
}
