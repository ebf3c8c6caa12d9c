#pragma once
// gpu-blockinv: 32-byte row segments (Seg) with their swizzled shared-memory order, and the view of
// a read list in shared memory (EView), used by bi_solve, bi_solve_ws and the far workers.

#include <cstring>

#include "blockinv_common.cuh"

namespace mixgraph::gpu {
namespace {
namespace bi {

// ---- bi_solve: one CTA per tile of W columns, C * W threads ----
// A row segment of a tile (W columns, 32 bytes) as two 16-byte vectors.
template <class T>
struct Seg {
  using V = typename std::conditional<sizeof(T) == 4, float4, double2>::type;
  V a, b;
};
__device__ __forceinline__ void vfma(float4& acc, float c, const float4& x) {
  acc.x = fma(c, x.x, acc.x);
  acc.y = fma(c, x.y, acc.y);
  acc.z = fma(c, x.z, acc.z);
  acc.w = fma(c, x.w, acc.w);
}
__device__ __forceinline__ void vfma(double2& acc, double c, const double2& x) {
  acc.x = fma(c, x.x, acc.x);
  acc.y = fma(c, x.y, acc.y);
}
__device__ __forceinline__ void vadd(float4& acc, const float4& x) {
  acc.x += x.x;
  acc.y += x.y;
  acc.z += x.z;
  acc.w += x.w;
}
__device__ __forceinline__ void vadd(double2& acc, const double2& x) {
  acc.x += x.x;
  acc.y += x.y;
}
template <class T>
__device__ __forceinline__ Seg<T> seg_zero() {
  Seg<T> z;
  memset(&z, 0, sizeof z);
  return z;
}
// Rows of W columns are 32 bytes apart in the ring and the staging buffers, so the 16-byte loads of 8
// consecutive threads reading 8 consecutive rows (a quarter warp's wavefront) fall in only 4 of the 8 16-byte
// bank groups: 2 wavefronts where 1 would do. A thread whose row has bit 2 set takes its two halves in the
// other order (sw = kEP elements): the 8 rows then cover all 8 groups, for any common read offset. The
// segment keeps that order (a = half sw / kEP) through the sums, and seg_st_sw puts it back.
template <class T>
__device__ __forceinline__ std::uint32_t seg_sw(std::uint32_t r, bool on) {
  return on ? ((r >> 2) & 1u) * std::uint32_t(16 / sizeof(T)) : 0u;
}
// the halves at pa (= row + sw) and pa + dsw (dsw = kEP - 2 sw: the other half); with sw added to the base
// pointers once, a read costs one address add more than an unswizzled one
template <class T>
__device__ __forceinline__ Seg<T> seg_ld2(const T* pa, int dsw) {
  Seg<T> v;
  v.a = *reinterpret_cast<const typename Seg<T>::V*>(pa);
  v.b = *reinterpret_cast<const typename Seg<T>::V*>(pa + dsw);
  return v;
}
// a 16-byte shared-memory store, stated in PTX: where the row offset r W + sw was formed with an OR, nvcc
// no longer knew the alignment and wrote float4 stores as 4 scalar ones (4-way bank conflicts)
__device__ __forceinline__ void sts16(float* p, const float4& v) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(smem_u32(p)), "f"(v.x), "f"(v.y), "f"(v.z),
               "f"(v.w)
               : "memory");
}
__device__ __forceinline__ void sts16(double* p, const double2& v) {
  asm volatile("st.shared.v2.f64 [%0], {%1, %2};" ::"r"(smem_u32(p)), "d"(v.x), "d"(v.y) : "memory");
}
template <class T>
__device__ __forceinline__ void seg_st2(T* pa, int dsw, const Seg<T>& v) {
  sts16(pa, v.a);
  sts16(pa + dsw, v.b);
}
template <class T>
__device__ __forceinline__ int seg_dsw(std::uint32_t sw) {
  return int(16 / sizeof(T)) - 2 * int(sw);
}
template <class T>
__device__ __forceinline__ Seg<T> seg_ld_sw(const T* p, std::uint32_t sw) {
  return seg_ld2(p + sw, seg_dsw<T>(sw));
}
template <class T>
__device__ __forceinline__ void seg_st_sw(T* p, const Seg<T>& v, std::uint32_t sw) {
  seg_st2(p + sw, seg_dsw<T>(sw), v);
}
template <class T>
__device__ __forceinline__ Seg<T> seg_unsw(const Seg<T>& v, std::uint32_t sw) {  // back to column order
  Seg<T> u;
  u.a = sw ? v.b : v.a;
  u.b = sw ? v.a : v.b;
  return u;
}
template <class T>
__device__ __forceinline__ Seg<T> seg_ldcg(const T* p) {
  Seg<T> v;
  v.a = __ldcg(reinterpret_cast<const typename Seg<T>::V*>(p));
  v.b = __ldcg(reinterpret_cast<const typename Seg<T>::V*>(p + 16 / sizeof(T)));
  return v;
}
template <class T>
__device__ __forceinline__ void seg_fma(Seg<T>& acc, T c, const Seg<T>& x) {
  vfma(acc.a, c, x.a);
  vfma(acc.b, c, x.b);
}
template <class T>
__device__ __forceinline__ void seg_add(Seg<T>& acc, const Seg<T>& x) {
  vadd(acc.a, x.a);
  vadd(acc.b, x.b);
}
template <class T>
__device__ __forceinline__ void seg_st(T* p, const Seg<T>& v) {
  *reinterpret_cast<typename Seg<T>::V*>(p) = v.a;
  *reinterpret_cast<typename Seg<T>::V*>(p + 16 / sizeof(T)) = v.b;
}

__device__ __forceinline__ void prof_mark(unsigned long long* acc, int k, long long& t) {
  const long long now = clock64();
  acc[k] += static_cast<unsigned long long>(now - t);
  t = now;
}

__device__ __forceinline__ float dot_acc(float4 a, float4 b, float acc) {
  return fma(a.w, b.w, fma(a.z, b.z, fma(a.y, b.y, fma(a.x, b.x, acc))));
}
__device__ __forceinline__ double dot_acc(double2 a, double2 b, double acc) {
  return fma(a.y, b.y, fma(a.x, b.x, acc));
}

template <class T, int C>
struct EView {  // a read list (package part E) in shared memory
  const T* coef;
  const std::uint32_t* off;
  const std::uint32_t* cnt;
};
template <class T, int C>
__device__ __forceinline__ EView<T, C> eview(const unsigned char* b, std::uint32_t kx, bool nooff = false) {
  EView<T, C> v;
  v.coef = reinterpret_cast<const T*>(b);
  v.off = nooff ? nullptr : reinterpret_cast<const std::uint32_t*>(v.coef + std::size_t(kx) * C);
  v.cnt = nooff ? reinterpret_cast<const std::uint32_t*>(v.coef + std::size_t(kx) * C)
                : v.off + std::size_t(kx) * C;
  return v;
}

}  // namespace bi
}  // namespace
}  // namespace mixgraph::gpu
