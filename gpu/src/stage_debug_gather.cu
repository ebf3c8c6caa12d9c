// For tests: gpu-pipeline's gather run alone on one CTA with every Y row final (pipeline_gather_gpu,
// pipeline_gather_reference.hpp), the packages the ring keeps copied back.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "common.cuh"
#include "mixgraph/pipeline_gather_reference.hpp"
#include "pipeline_gather.cuh"
#include "stage_buffers.cuh"

namespace mixgraph::gpu {
namespace {

template <class T, bool IMP>
__global__ void __launch_bounds__(kThreads, 1) gather_alone(DevProblem<T> P) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  gather_items<T, IMP, 1>(P, smem_raw, 0, 1);
}

}  // namespace

template <class T>
GatherRun<T> pipeline_gather_gpu(const SolveProblem& p, const T* x, const T* y) {
  GatherRun<T> r;
  for (const SolveMatrix* m : {&p.a, &p.b})
    if (m->gen != CoefGen::Values || m->vals_on_device) {
      r.note = "the gather is run on Values coefficients from the host";
      return r;
    }
  if (p.heads == 0 || p.d % p.heads != 0 || p.fp64 != (sizeof(T) == 8) || p.n == 0) {
    r.note = "bad problem (heads, precision or n)";
    return r;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    r.note = "no CUDA device";
    return r;
  }
  constexpr std::uint32_t F = ring_rows<T>(), L = F / TC;
  StageBuffers buf;
  DevProblem<T> P{};
  P.n = p.n;
  P.d = p.d;
  P.dh = p.d / p.heads;
  P.nchunks = (p.n + TC - 1) / TC;
  P.ntiles = (p.d + TW - 1) / TW;
  P.tile0 = 0;
  auto matrix = [&](const SolveMatrix& m, DevMatrix<T>& dm) {
    dm.implicit = m.implicit ? 1 : 0;
    dm.hs = m.hs;
    dm.is = m.is;
    dm.ks = m.ks;
    std::uint64_t span = 1;
    if (m.implicit) {
      dm.k = m.k;
      dm.off = buf.upload(m.offsets, m.k ? m.k : 1);
      if (m.k)
        span = (p.heads - 1) * m.hs + std::uint64_t(p.n - 1) * m.is + std::uint64_t(m.k - 1) * m.ks + 1;
      if (!dm.off) return false;
    } else {
      const std::uint64_t nnz = m.ptr[p.n];
      dm.ptr = buf.upload(m.ptr, std::size_t(p.n) + 1);
      dm.idx = buf.upload(m.idx, nnz ? nnz : 1);
      if (nnz) span = (p.heads - 1) * m.hs + (nnz - 1) * m.is + 1;
      if (!dm.ptr || !dm.idx) return false;
    }
    dm.val = buf.upload(static_cast<const T*>(m.vals), span);
    return dm.val != nullptr;
  };
  if (p.b.implicit) {  // implicit B: the first offset >= F (planner's k_mid)
    std::uint32_t k = 0;
    while (k < p.b.k && p.b.offsets[k] < F) ++k;
    P.k_band = P.k_near = P.k_mid = k;
  }
  for (int k = 0; k < KB; ++k) P.band_idx[k] = -1;
  P.staged = 0;
  P.nm = P.mm = 0;
  P.pkg_bytes = pkg_layout(sizeof(T), 0, 0, false).bytes;
  P.vw = 1;
  P.ng = TC * TW / kThreads;  // threads per output 1: the 512 threads cover TC / ng rows of 32 columns
  P.tpo = 1;
  const std::uint64_t ny = std::uint64_t(p.n) * p.d, ring = std::uint64_t(P.ntiles) * L * P.pkg_bytes;
  P.x = buf.upload(x, ny);
  P.y = buf.upload(y, ny);  // every row final
  std::vector<std::uint32_t> progress(P.ntiles, P.nchunks);
  P.progress = buf.upload(progress.data(), progress.size());
  const std::uint32_t zero = 0;
  P.err = buf.upload(&zero, 1);
  P.vring = buf.upload<unsigned char>(nullptr, ring);
  if (!matrix(p.a, P.a) || !matrix(p.b, P.b) || !P.x || !P.y || !P.progress || !P.err || !P.vring) {
    r.note = "device allocation failed";
    return r;
  }
  cudaMemset(P.vring, 0xff, ring);  // the sentinel, as the solve starts
  const std::uint32_t RG = TC / P.ng;
  const std::size_t smem = kThreads * sizeof(Vec<T, 1>) + RG * sizeof(RowBounds);
  if (p.b.implicit)
    gather_alone<T, true><<<1, kThreads, smem>>>(P);
  else
    gather_alone<T, false><<<1, kThreads, smem>>>(P);
  std::uint32_t err = 0;
  if (cudaDeviceSynchronize() != cudaSuccess ||
      cudaMemcpy(&err, P.err, sizeof err, cudaMemcpyDeviceToHost) != cudaSuccess || err != 0) {
    r.note = std::string("the gather failed: ") + cudaGetErrorString(cudaGetLastError());
    return r;
  }
  std::vector<unsigned char> bytes(ring);
  if (cudaMemcpy(bytes.data(), P.vring, ring, cudaMemcpyDeviceToHost) != cudaSuccess) {
    r.note = "copying the ring back failed";
    return r;
  }
  r.first_chunk = P.nchunks > L ? P.nchunks - L : 0;
  r.v.assign(std::uint64_t(P.nchunks - r.first_chunk) * P.ntiles * TC * TW, T(0));
  for (std::uint32_t c = r.first_chunk; c < P.nchunks; ++c)
    for (std::uint32_t t = 0; t < P.ntiles; ++t) {
      const T* pkg = reinterpret_cast<const T*>(bytes.data() + (std::uint64_t(t) * L + c % L) * P.pkg_bytes);
      T* dst = r.v.data() + (std::uint64_t(c - r.first_chunk) * P.ntiles + t) * TC * TW;
      for (std::uint32_t e = 0; e < std::uint32_t(TC * TW); ++e) dst[e] = pkg[e];
    }
  r.ran = true;
  return r;
}

template GatherRun<float> pipeline_gather_gpu<float>(const SolveProblem&, const float*, const float*);
template GatherRun<double> pipeline_gather_gpu<double>(const SolveProblem&, const double*, const double*);

}  // namespace mixgraph::gpu
