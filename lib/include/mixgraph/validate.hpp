#pragma once
// Validation of the solve engine against independent references (docs/math.md §1, §3): the fast CPU solve vs
// the plain recurrence of Eq. 1 vs dense fp64 Eigen (small n) [vs another backend, e.g. the GPU], and the
// semiring solves vs the graph code (Boost.Graph BFS distances, transitive closure, BFS path counts).
//
//   mixgraph::ValidateOptions o;                 // o.other_f32 / o.other_f64 / o.other_distances ...: GPU
//   hooks auto r = mixgraph::validate_solve(mixgraph::make_pattern("pow2", 1024), o); for (auto& c :
//   r.checks) std::cout << c.name << (c.passed ? " ok" : " FAILED") << "\n";
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"

namespace mixgraph {

struct ValidateCheck {
  std::string name;
  bool passed = false;
  std::string detail;  ///< the measured error / the first mismatch, in words
};

/// A second backend: solves Y for the weights and returns the name of the kernel it used.
template <class T>
using SolveHook = std::function<std::string(const MixerWeights<T>&, const T*, T*, std::size_t)>;

/// A second backend for the semiring checks: fills the result exactly as solve_distances /
/// solve_reachability / solve_path_counts would (layout [i * S + c]) and returns the kernel it used.
using DistancesHook =
    std::function<std::string(const SolveStructure&, const std::vector<pos_t>&, std::vector<std::uint32_t>&)>;
using ReachabilityHook =
    std::function<std::string(const SolveStructure&, const std::vector<pos_t>&, std::vector<std::uint8_t>&)>;
using PathCountsHook =
    std::function<std::string(const SolveStructure&, const std::vector<pos_t>&, PathCounts&)>;

struct ValidateOptions {
  int threads = 0;
  std::uint64_t seed = 1;
  int heads = 2;  ///< multi-head check: heads x d_h columns
  std::size_t d_h = 4;
  int channel_heads = 8;           ///< per-channel check: heads of one column each
  pos_t dense_max_n = 2048;        ///< dense Eigen reference only up to this n
  pos_t all_sources_max_n = 4096;  ///< all sources as d = n impulse columns up to this n, else sampled
  std::size_t sampled_sources = 64;
  double tol_f32 = 1e-5, tol_f64 = 1e-12;
  // cut ranks and copy routings (validate_extra.hpp): on the first positions of the pattern only
  pos_t rank_max_n = 512;        ///< cut ranks of the solved M on the first min(n, rank_max_n) positions
  std::uint64_t rank_cuts = 64;  ///< that many evenly spaced cuts (every cut when n - 1 <= rank_cuts)
  pos_t routing_max_n = 512;     ///< copy task of length N = min(n, routing_max_n) / 2 (pattern on 2N)
  /// The user's weights (weight files, one WeightedPattern per head on the pattern): when set, the real
  /// (+, x) checks solve these heads, user_dh columns each, named by user_label, instead of the seeded
  /// multi-head and per-channel cases; every reference (Eq. 1, dense Eigen) uses the same weights.
  std::vector<WeightedPattern> user_heads;
  std::size_t user_dh = 1;
  std::string user_label = "weights from files";
  std::string other_name;  ///< e.g. "gpu"; empty: no second backend
  SolveHook<float> other_f32;
  SolveHook<double> other_f64;
  /// semiring hooks (with other_name): each one set adds a check named like the CPU's with " (<other_name>)"
  /// after the semiring, e.g. "(min,+) distances (gpu) == BFS distances (Boost.Graph)", against the same
  /// independent reference (BFS distances, transitive closure / BFS reachability, BFS path counts)
  DistancesHook other_distances;
  ReachabilityHook other_reachability;
  PathCountsHook other_path_counts;
};

struct ValidateResult {
  std::vector<ValidateCheck> checks;
  bool all_passed = true;
  std::vector<std::string> kernels;  ///< kernels that ran, e.g. "cpu-implicit-tiled", "gpu-pipeline-..."
  std::size_t sources = 0;           ///< sources used by the semiring checks
  bool all_sources = false;
};

/// Runs every check that applies to p. O(d (nnz_A + nnz_B)) for the real solves, O(n^2 d) for the dense
/// reference (n <= dense_max_n), O(S (n + nnz)) for the semiring checks with S sources.
ValidateResult validate_solve(const Pattern& p, const ValidateOptions& o);

/// Relative Frobenius error ||a - b|| / ||b|| (||a - b|| when b = 0).
template <class A, class B>
double relative_frobenius(const A* a, const B* b, std::size_t count);

}  // namespace mixgraph
