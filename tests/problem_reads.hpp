#pragma once
// Shared by the CPU-reference tests of the GPU stages (blockinv packages, the scan, the pipeline gather):
// row i's B reads of a gpu::SolveProblem, taken from the problem's definition.
#include <cstdint>
#include <vector>

#include "mixgraph/gpu_solve.hpp"

namespace mixgraph::test {

struct Read {
  std::uint32_t o;  ///< offset: the read is of row i - o
  double v;         ///< the coefficient of head h
};

/// Row i's reads (offset, coefficient of head h) from the problem's definition: implicit B reads i - o for
/// every offset 1 <= o <= i, CSR B reads its entries' columns before i.
inline std::vector<Read> b_reads(const gpu::SolveProblem& p, std::uint32_t i, std::uint32_t h) {
  std::vector<Read> r;
  const gpu::SolveMatrix& b = p.b;
  auto val = [&](std::uint64_t k) {
    return p.fp64 ? static_cast<const double*>(b.vals)[k] : double(static_cast<const float*>(b.vals)[k]);
  };
  if (b.implicit) {
    for (std::uint32_t k = 0; k < b.k; ++k)
      if (b.offsets[k] >= 1 && b.offsets[k] <= i)
        r.push_back({b.offsets[k], val(h * b.hs + i * b.is + k * b.ks)});
  } else {
    for (std::uint64_t e = b.ptr[i]; e < b.ptr[i + 1]; ++e)
      if (b.idx[e] < i) r.push_back({i - b.idx[e], val(h * b.hs + e * b.is)});
  }
  return r;
}

}  // namespace mixgraph::test
