#pragma once
// The GPU solver's device-resident benchmark (`bench_solve gpu`), part of bench/ and not installed: the
// production solver (gpu_solve.hpp) keeps only its options; bench/gpu_bench.cu builds this harness from the
// solver's own private headers (gpu/src), so the kernels timed are the production ones. C++17.
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/gpu_solve.hpp"

namespace mixgraph::gpu {

/// Seeded device-resident benchmark: random X, coefficients generated on the device in the layout
/// [k][i][h] (implicit) / [e][h] (CSR), timed from X to Y with CUDA events (median of reps).
struct BenchSpec {
  std::uint32_t n = 0, d = 0, heads = 1;
  bool fp64 = false;
  std::vector<std::uint32_t> offsets;  ///< implicit B offsets (ascending) when ptr is empty
  std::vector<std::uint64_t> ptr;      ///< CSR B (rows = readers) otherwise
  std::vector<std::uint32_t> idx;
  bool a_diagonal = true;  ///< A = diagonal (the peers' problem) or B's reads + diagonal
  int reps = 5;
  std::uint64_t seed = 1;
  std::uint32_t check_cols = 0;  ///< > 0: compare that many columns with a naive fp64 kernel
  SolveOptions options;
};
struct BenchResult {
  bool ran = false;
  std::string kernel;
  std::string plan;           ///< as SolveRun::plan
  double ms = 0, ms_min = 0;  ///< solve, median and min over reps
  double copy_ms = 0;         ///< device copy of X into Y (read n d, write n d): the bandwidth floor
  double naive_ms = -1;       ///< the naive one-thread-per-column kernel on check_cols columns
  double check_relerr = -1;   ///< relative Frobenius error of the checked columns vs the naive fp64 kernel
  double sm_mhz_idle = 0;     ///< SM clock read by a one-thread probe before the last solve (diagnostics)
  double sm_mhz_during = 0;   ///< ... and on a free multiprocessor while that solve runs
  std::string note;
};
BenchResult bench_solve(const BenchSpec& spec);

/// Host <-> device copies of `bytes` each way (median of reps, ms): the bus with pinned host memory (the
/// machine's copy bandwidth), plain cudaMemcpy from pageable memory, the solver's staged copies from
/// pageable memory (host_copy.hpp, with chunk / slots / threads; 0 = the defaults), and the cost of
/// registering (pinning) the pageable buffer in place.
struct HostCopyBench {
  bool ran = false;
  double pinned_up_ms = 0, pinned_down_ms = 0;
  double pageable_up_ms = 0, pageable_down_ms = 0;
  double staged_up_ms = 0, staged_down_ms = 0;
  double register_ms = 0, unregister_ms = 0;
  bool bytes_equal = false;  ///< the staged round trip gave the bytes back
  std::string note;
};
HostCopyBench bench_host_copy(std::size_t bytes, std::size_t chunk, int slots, int threads, int reps);

}  // namespace mixgraph::gpu
