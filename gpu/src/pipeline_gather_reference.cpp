// The CPU reference of gpu-pipeline's gather (pipeline_gather_reference.hpp): each package's V part from
// the definition, A X plus the far reads of B.
#include "mixgraph/pipeline_gather_reference.hpp"

#include <stdexcept>
#include <string>

namespace mixgraph::gpu {

template <class T>
std::vector<T> pipeline_gather_reference(const SolveProblem& p, const T* x, const T* y, std::uint32_t far) {
  for (const SolveMatrix* m : {&p.a, &p.b})
    if (m->gen != CoefGen::Values || m->vals_on_device)
      throw std::invalid_argument(
          "pipeline_gather_reference: the reference reads Values coefficients (host)");
  if (p.fp64 != (sizeof(T) == 8))
    throw std::invalid_argument("pipeline_gather_reference: T is not p's precision");
  if (p.heads == 0 || p.d % p.heads != 0)
    throw std::invalid_argument("pipeline_gather_reference: d is not a multiple of the heads");
  const std::uint32_t TC = kPipelineChunk, TW = kPipelineTile;
  const std::uint32_t nchunks = (p.n + TC - 1) / TC, ntiles = (p.d + TW - 1) / TW, dh = p.d / p.heads;
  std::vector<T> v(std::uint64_t(nchunks) * ntiles * TC * TW, T(0));
  // row i's reads of matrix m at offsets >= lo: f(j, coefficient of head h)
  const auto each_read = [&](const SolveMatrix& m, std::uint32_t i, std::uint32_t h, std::uint32_t lo,
                             auto&& f) {
    const T* val = static_cast<const T*>(m.vals);
    if (m.implicit) {
      for (std::uint32_t k = 0; k < m.k; ++k) {
        const std::uint32_t o = m.offsets[k];
        if (o >= lo && o <= i) f(i - o, double(val[h * m.hs + std::uint64_t(i) * m.is + k * m.ks]));
      }
    } else {
      for (std::uint64_t e = m.ptr[i]; e < m.ptr[i + 1]; ++e)
        if (m.idx[e] <= i && i - m.idx[e] >= lo) f(m.idx[e], double(val[h * m.hs + e * m.is]));
    }
  };
  for (std::uint32_t i = 0; i < p.n; ++i)
    for (std::uint32_t col = 0; col < p.d; ++col) {
      const std::uint32_t h = col / dh;
      double s = 0;
      each_read(p.a, i, h, 0,
                [&](std::uint32_t j, double c) { s += c * double(x[std::uint64_t(j) * p.d + col]); });
      each_read(p.b, i, h, far,
                [&](std::uint32_t j, double c) { s += c * double(y[std::uint64_t(j) * p.d + col]); });
      const std::uint32_t c = i / TC, r = i % TC, t = col / TW, u = col % TW;
      v[((std::uint64_t(c) * ntiles + t) * TC + r) * TW + u] = T(s);
    }
  return v;
}

template std::vector<float> pipeline_gather_reference<float>(const SolveProblem&, const float*, const float*,
                                                             std::uint32_t);
template std::vector<double> pipeline_gather_reference<double>(const SolveProblem&, const double*,
                                                               const double*, std::uint32_t);

}  // namespace mixgraph::gpu
