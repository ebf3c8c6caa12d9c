// bench_solve (gpu_bench.hpp) in a build without CUDA: nothing runs, the note says why.
#include "gpu_bench.hpp"

namespace mixgraph::gpu {

BenchResult bench_solve(const BenchSpec&) {
  BenchResult r;
  r.note = "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
  return r;
}

HostCopyBench bench_host_copy(std::size_t, std::size_t, int, int, int) {
  HostCopyBench r;
  r.note = "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
  return r;
}

}  // namespace mixgraph::gpu
