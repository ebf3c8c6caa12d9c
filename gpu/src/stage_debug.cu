// For tests: gpu-scan1's three passes run alone on a problem (scan_stages_gpu, scan_reference.hpp), their
// intermediate arrays copied back; and the constants the CPU references mirror, checked against the
// kernels' (common.cuh).
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "common.cuh"
#include "mixgraph/pipeline_gather_reference.hpp"
#include "mixgraph/scan_reference.hpp"
#include "scan.cuh"
#include "stage_buffers.cuh"

namespace mixgraph::gpu {

static_assert(kScanSegment == kSeg, "scan_reference.hpp's segment is scan.cuh's kSeg");
static_assert(kPipelineChunk == TC && kPipelineTile == TW, "pipeline_gather_reference.hpp's TC, TW");
static_assert(pipeline_far_offset<float>() == ring_rows<float>() &&
                  pipeline_far_offset<double>() == ring_rows<double>(),
              "pipeline_gather_reference.hpp's F is ring_rows");

namespace {

// Entries a strided implicit coefficient array spans: the largest index + 1.
std::uint64_t span(const SolveProblem& p, const SolveMatrix& m) {
  if (m.k == 0) return 1;
  return (p.heads - 1) * m.hs + std::uint64_t(p.n - 1) * m.is + std::uint64_t(m.k - 1) * m.ks + 1;
}

}  // namespace

template <class T>
ScanStagesRun<T> scan_stages_gpu(const SolveProblem& p, const T* x) {
  ScanStagesRun<T> r;
  std::string why;
  if (!scan_reference_applies(p, &why)) {
    r.note = why;
    return r;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    r.note = "no CUDA device";
    return r;
  }
  StageBuffers buf;
  DevProblem<T> P{};
  P.n = p.n;
  P.d = p.d;
  P.dh = p.d / p.heads;
  auto matrix = [&](const SolveMatrix& m, DevMatrix<T>& dm) {
    dm.implicit = 1;
    dm.k = m.k;
    dm.off = buf.upload(m.offsets, m.k ? m.k : 1);
    dm.val = buf.upload(static_cast<const T*>(m.vals), m.k ? span(p, m) : 1);
    dm.hs = m.hs;
    dm.is = m.is;
    dm.ks = m.ks;
    return dm.off && dm.val;
  };
  const std::uint32_t nseg = (p.n + kSeg - 1) / kSeg;
  const std::uint64_t cells = std::uint64_t(nseg) * p.d, ny = std::uint64_t(p.n) * p.d;
  P.x = buf.upload(x, ny);
  P.y = buf.upload<T>(nullptr, ny);
  T* pm = buf.upload<T>(nullptr, cells);
  T* qm = buf.upload<T>(nullptr, cells);
  T* carry = buf.upload<T>(nullptr, cells);
  if (!matrix(p.a, P.a) || !matrix(p.b, P.b) || !P.x || !P.y || !pm || !qm || !carry) {
    r.note = "device allocation failed";
    return r;
  }
  const ScanGen g{};  // coefficients read from the arrays (FUSED = false)
  const unsigned threads = 256;
  const unsigned blocks = unsigned((cells + threads - 1) / threads);
  scan_maps<T, false><<<blocks, threads>>>(P, g, pm, qm);
  scan_carry<T><<<(p.d + threads - 1) / threads, threads>>>(P, pm, qm, carry);
  scan_apply<T, false><<<blocks, threads>>>(P, g, carry);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    r.note = std::string("kernel failed: ") + cudaGetErrorString(cudaGetLastError());
    return r;
  }
  ScanStages<T>& s = r.stages;
  s.seg = kSeg;
  s.nseg = nseg;
  s.pm.resize(cells);
  s.qm.resize(cells);
  s.carry.resize(cells);
  s.y.resize(ny);
  bool ok = cudaMemcpy(s.pm.data(), pm, cells * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess;
  ok = ok && cudaMemcpy(s.qm.data(), qm, cells * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess;
  ok = ok && cudaMemcpy(s.carry.data(), carry, cells * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess;
  ok = ok && cudaMemcpy(s.y.data(), P.y, ny * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess;
  if (!ok) {
    r.note = "copying the stages back failed";
    return r;
  }
  r.ran = true;
  return r;
}

template ScanStagesRun<float> scan_stages_gpu<float>(const SolveProblem&, const float*);
template ScanStagesRun<double> scan_stages_gpu<double>(const SolveProblem&, const double*);

}  // namespace mixgraph::gpu
