// CPU-only builds: gpu-scan1's stages cannot run (scan_reference.hpp's scan_stages_gpu says so).
#include "mixgraph/scan_reference.hpp"

namespace mixgraph::gpu {

template <class T>
ScanStagesRun<T> scan_stages_gpu(const SolveProblem&, const T*) {
  ScanStagesRun<T> r;
  r.note = "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
  return r;
}

template ScanStagesRun<float> scan_stages_gpu<float>(const SolveProblem&, const float*);
template ScanStagesRun<double> scan_stages_gpu<double>(const SolveProblem&, const double*);

}  // namespace mixgraph::gpu
