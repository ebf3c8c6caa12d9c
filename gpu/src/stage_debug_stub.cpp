// CPU-only builds: gpu-scan1's stages and gpu-pipeline's gather cannot run (scan_stages_gpu and
// pipeline_gather_gpu say so).
#include "mixgraph/pipeline_gather_reference.hpp"
#include "mixgraph/scan_reference.hpp"

namespace mixgraph::gpu {

namespace {
const char* kNote =
    "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
}

template <class T>
ScanStagesRun<T> scan_stages_gpu(const SolveProblem&, const T*) {
  ScanStagesRun<T> r;
  r.note = kNote;
  return r;
}

template ScanStagesRun<float> scan_stages_gpu<float>(const SolveProblem&, const float*);
template ScanStagesRun<double> scan_stages_gpu<double>(const SolveProblem&, const double*);

template <class T>
GatherRun<T> pipeline_gather_gpu(const SolveProblem&, const T*, const T*) {
  GatherRun<T> r;
  r.note = kNote;
  return r;
}

template GatherRun<float> pipeline_gather_gpu<float>(const SolveProblem&, const float*, const float*);
template GatherRun<double> pipeline_gather_gpu<double>(const SolveProblem&, const double*, const double*);

}  // namespace mixgraph::gpu
