#pragma once
// gpu-blockinv: y = L^{-1} w by 3xTF32 tensor-core products (fp32), and the Y tensor-store throttle.

#include <cstdint>

#include "blockinv_common.cuh"

namespace mixgraph::gpu {
namespace {
namespace bi {

// 3xTF32 (fp32-accurate) tensor-core products: x = big + small, both tf32; big * big + big * small + small *
// big (the small * small term is below fp32 rounding). big is x with its low 13 bits cleared (x - big is then
// exact), small is passed as is (the tensor core ignores its low 13 bits). Rounding both by cvt.rna instead
// made the bandwidth case 21% slower (benchmarks.md, GPU v10)
__device__ __forceinline__ void tf32_split(float x, std::uint32_t& big, std::uint32_t& small) {
  big = __float_as_uint(x) & 0xffffe000u;
  small = __float_as_uint(x - __uint_as_float(big));
}
__device__ __forceinline__ void mma_tf32(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                         std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// y = L^{-1} w for the 16 rows of m-tile mi by one warp (lane l): L^{-1} in fragment order (Params::mma), w
// as [W][LD] (column-major). Returns rows 16 mi + l / 4 (+ 8), columns 2 (l % 4) (+ 1) in y[0..3] (the
// accumulator layout). NK k-tiles (2 mi + 2), every load issued before the first product, and the products
// spread over NA accumulators per kind, so that no chain of dependent mma is longer than NK / NA.
template <int LD, int NK>
__device__ __forceinline__ void mma_rows(const float* lf, const float* wt, std::uint32_t mi,
                                         std::uint32_t lane, float (&y)[4]) {
  constexpr int NA = NK < 4 ? NK : 4;
  const float4* a4 = reinterpret_cast<const float4*>(lf) + mi * (mi + 1) * 32 + lane;
  const float* wb = wt + (lane >> 2) * LD + (lane & 3);  // B fragment: k = l % 4 (+ 4), n = l / 4
  float4 a[NK];
  float b0[NK], b1[NK];
#pragma unroll
  for (int k = 0; k < NK; ++k) {
    a[k] = a4[k * 32];
    b0[k] = wb[k * 8];
    b1[k] = wb[k * 8 + 4];
  }
  float acc[NA][4] = {}, acx[NA][4] = {};  // big * big; the cross terms
#pragma unroll
  for (int k = 0; k < NK; ++k) {
    const float av[4] = {a[k].x, a[k].y, a[k].z, a[k].w};
    std::uint32_t ab[4], as[4], bb0, bs0, bb1, bs1;
#pragma unroll
    for (int u = 0; u < 4; ++u) tf32_split(av[u], ab[u], as[u]);
    tf32_split(b0[k], bb0, bs0);
    tf32_split(b1[k], bb1, bs1);
    mma_tf32(acc[k % NA], ab, bb0, bb1);
    mma_tf32(acx[k % NA], ab, bs0, bs1);
    mma_tf32(acx[k % NA], as, bb0, bb1);
  }
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    float big = 0.f, cross = 0.f;
#pragma unroll
    for (int m = 0; m < NA; ++m) {
      big += acc[m][u];
      cross += acx[m][u];
    }
    y[u] = big + cross;
  }
}
// m-tile mi of y = L^{-1} w by warp mi (mma_rows with its k-tile count: 2 mi + 2)
template <int C, int LD>
__device__ __forceinline__ void mma_mtile(const float* lf, const float* wt, std::uint32_t mi,
                                          std::uint32_t lane, float (&y)[4]) {
  if (mi == 0)
    mma_rows<LD, 2>(lf, wt, mi, lane, y);
  else if (mi == 1)
    mma_rows<LD, 4>(lf, wt, mi, lane, y);
  else if (C > 32 && mi == 2)
    mma_rows<LD, 6>(lf, wt, mi, lane, y);
  else
    mma_rows<LD, (C > 32 ? 8 : 4)>(lf, wt, mi, lane, y);
}

// The Y tensor stores' issuing thread, after each store: at most 16 stores pending (2 for rings under 24
// chunks), so that the rows staged from Y a few chunks later are complete and no ring slot is rewritten while
// a store still reads it
template <int C>
__device__ __forceinline__ void y_stores_throttle(std::uint32_t R) {
  if (R >= 24u * C)
    asm volatile("cp.async.bulk.wait_group 16;" ::: "memory");
  else
    asm volatile("cp.async.bulk.wait_group 2;" ::: "memory");
}

}  // namespace bi
}  // namespace
}  // namespace mixgraph::gpu
