#pragma once
// The semirings of the solve engine (docs/math.md, "One recurrence, many semirings"), one definition for the
// CPU engine (lib/src/solve/solve.cpp) and the GPU kernels (gpu/src/semiring.cu): C++17, no other mixgraph
// header, __host__ __device__ under nvcc (as weight_gen.hpp). Each ring R gives the value type R::V,
// R::zero() (no path / no dependence), R::a_weight(diag) (an impulse read through A: weight 0 on the
// diagonal, 1 elsewhere, for (min, +)), R::add(acc, v) (⊕ into acc) and R::mul_b(y) (y ⊗ a B weight of 1).
//
//   mixgraph::semiring::MinPlus::V acc = mixgraph::semiring::MinPlus::zero();   // kUnreachable
//   mixgraph::semiring::MinPlus::add(acc, mixgraph::semiring::MinPlus::mul_b(y_j));
#include <cstdint>

#if defined(__CUDACC__)
#define MIXGRAPH_SR_HD __host__ __device__ __forceinline__
#else
#define MIXGRAPH_SR_HD inline
#endif

namespace mixgraph {

/// "No path": the one name for unreachable in every distance result, CPU and GPU (null in JSON, inf in CSV).
inline constexpr std::uint32_t kUnreachable = 0xFFFFFFFFu;
/// Path counts saturate here (with an overflow flag beside them).
inline constexpr std::uint64_t kCountMax = 0xFFFFFFFFFFFFFFFFull;

namespace semiring {

/// (min, +) on hop counts: distances.
struct MinPlus {
  using V = std::uint32_t;
  MIXGRAPH_SR_HD static V zero() { return kUnreachable; }
  MIXGRAPH_SR_HD static V a_weight(bool diag) { return diag ? 0u : 1u; }
  MIXGRAPH_SR_HD static void add(V& acc, V v) { acc = v < acc ? v : acc; }
  MIXGRAPH_SR_HD static V mul_b(V y) { return y == kUnreachable ? kUnreachable : y + 1u; }
};

/// (or, and): reachability.
struct OrAnd {
  using V = std::uint8_t;
  MIXGRAPH_SR_HD static V zero() { return 0; }
  MIXGRAPH_SR_HD static V a_weight(bool) { return 1; }
  MIXGRAPH_SR_HD static void add(V& acc, V v) { acc = static_cast<V>(acc | v); }
  MIXGRAPH_SR_HD static V mul_b(V y) { return y; }
};

/// A distance and the number of shortest paths of that length.
struct DistCount {
  std::uint32_t d = kUnreachable;
  std::uint64_t c = 0;
};

/// (min, +) paired with counts: (d1, c1) ⊕ (d2, c2) keeps the smaller d and adds counts on ties
/// (saturating at kCountMax). Counts paths in the communication graph G: x_s enters through A's
/// diagonal only.
struct Count {
  using V = DistCount;
  MIXGRAPH_SR_HD static V zero() { return V{kUnreachable, 0}; }
  MIXGRAPH_SR_HD static V a_weight(bool diag) { return diag ? V{0u, 1} : V{kUnreachable, 0}; }
  MIXGRAPH_SR_HD static void add(V& acc, V v) {
    if (v.d < acc.d) {
      acc = v;
    } else if (v.d == acc.d && v.d != kUnreachable) {
      const std::uint64_t sum = acc.c + v.c;
      acc.c = sum < acc.c ? kCountMax : sum;  // saturate
    }
  }
  MIXGRAPH_SR_HD static V mul_b(V y) { return y.d == kUnreachable ? V{kUnreachable, 0} : V{y.d + 1u, y.c}; }
};

}  // namespace semiring
}  // namespace mixgraph
