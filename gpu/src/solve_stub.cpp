// CPU-only builds: the GPU solve entry points report that CUDA is not built in.
#include "mixgraph/blockinv_reference.hpp"
#include "mixgraph/gpu_solve.hpp"

namespace mixgraph::gpu {

namespace {
const char* kNote =
    "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
}

SolveRun solve(const SolveProblem&, const void*, void*, const SolveOptions&) {
  SolveRun r;
  r.note = kNote;
  return r;
}

BlockInvPackages blockinv_packages(const SolveProblem&, const SolveOptions&) {
  BlockInvPackages r;
  r.note = kNote;
  return r;
}

BenchResult bench_solve(const BenchSpec&) {
  BenchResult r;
  r.note = kNote;
  return r;
}

}  // namespace mixgraph::gpu
