#pragma once
// The semiring solves on either backend: lib/'s CPU engine (solve.hpp) or the GPU kernel
// (gpu_semiring.hpp). C++20 (includes lib/ headers): for the CLI, tests and benchmarks, never for .cu files.
//
//   auto choice = mixgraph::choose_backend(mixgraph::parse_backend("auto"));
//   auto s = mixgraph::solve_structure(mixgraph::make_pattern("pow2", 4096));
//   auto r = mixgraph::distances_on(choice, s, {0, 17});   // r.dist as solve_distances, r.kernel says which
//   ran
//
// Results are identical on both backends (the semirings are exact); sources outside 1..n throw UsageError
// on both, and a GPU run that fails throws RuntimeFailure with the GPU's note.
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/error.hpp"
#include "mixgraph/gpu_semiring.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/solve_backend.hpp"

namespace mixgraph {

struct DistancesRun {
  std::vector<std::uint32_t> dist;  ///< dist[i * S + c] = d(i, sources[c]), kUnreachable where no path
  std::string kernel;               ///< "cpu-semiring-minplus-implicit" | "gpu-semiring-minplus-csr" | ...
};
struct ReachabilityRun {
  std::vector<std::uint8_t> reach;  ///< reach[i * S + c] = 1 when y_i depends on x_{sources[c]}
  std::string kernel;
};
struct PathCountsRun {
  PathCounts counts;  ///< dist, count (saturating), overflow, as solve_path_counts
  std::string kernel;
};

/// The GPU view of a SolveStructure (pointers into s; valid while s lives). Throws UsageError when an
/// explicit structure lacks its n + 1 row pointers.
inline gpu::SemiringStructure gpu_semiring_structure(const SolveStructure& s) {
  gpu::SemiringStructure g;
  g.n = s.n;
  g.implicit = s.implicit;
  if (s.implicit) {
    g.b_offsets = s.b_offsets.data();
    g.kb = static_cast<std::uint32_t>(s.b_offsets.size());
    g.a_offsets = s.a_offsets.data();
    g.ka = static_cast<std::uint32_t>(s.a_offsets.size());
  } else if (s.n > 0) {
    if (s.b.ptr.size() != std::size_t(s.n) + 1 || s.a.ptr.size() != std::size_t(s.n) + 1)
      throw UsageError("semiring solve: the CSR structure needs n + 1 row pointers for A and B");
    g.b_ptr = s.b.ptr.data();
    g.b_idx = s.b.idx.data();
    g.a_ptr = s.a.ptr.data();
    g.a_idx = s.a.idx.data();
  }
  return g;
}

namespace detail {

inline std::string cpu_semiring_kernel(const char* ring, const SolveStructure& s) {
  return std::string("cpu-semiring-") + ring + (s.implicit ? "-implicit" : "-csr") + "-tiled";
}

/// Same message and exception as the CPU engine, so both backends refuse a bad source alike.
inline void check_sources(const SolveStructure& s, const std::vector<pos_t>& sources) {
  if (sources.size() > 0xFFFFFFFFull) throw UsageError("semiring solve: at most 2^32 - 1 sources at once");
  for (pos_t src : sources)
    if (src >= s.n)
      throw UsageError("source position " + std::to_string(src + 1) + " is outside 1.." +
                       std::to_string(s.n));
}

inline void require_ran(const gpu::SemiringRun& r) {
  if (!r.ran) throw RuntimeFailure("GPU semiring solve (" + r.kernel + ") failed: " + r.note);
}

}  // namespace detail

namespace detail {
/// The shared shape of distances_on / reachability_on: the CPU engine, or the GPU kernel into out.
template <class V, class Cpu, class Gpu>
std::string semiring_on(const BackendChoice& c, const SolveStructure& s, const std::vector<pos_t>& sources,
                        const char* ring, std::vector<V>& out, Cpu cpu, Gpu gpu_fn) {
  if (!c.gpu) {
    out = cpu();
    return cpu_semiring_kernel(ring, s);
  }
  check_sources(s, sources);
  out.resize(std::size_t(s.n) * sources.size());
  const auto g = gpu_fn(gpu_semiring_structure(s), sources.data(), static_cast<std::uint32_t>(sources.size()),
                        out.data());
  require_ran(g);
  return g.kernel;
}
}  // namespace detail

/// (min, +) distances from impulse inputs (solve_distances) on the chosen backend. O(S (nnz_A + nnz_B)).
inline DistancesRun distances_on(const BackendChoice& c, const SolveStructure& s,
                                 const std::vector<pos_t>& sources, int threads = 0) {
  DistancesRun r;
  r.kernel = detail::semiring_on(
      c, s, sources, "minplus", r.dist, [&] { return solve_distances(s, sources, threads); },
      [](const auto& gs, const pos_t* src, std::uint32_t ns, std::uint32_t* out) {
        return gpu::semiring_distances(gs, src, ns, out);
      });
  return r;
}

/// (or, and) reachability (solve_reachability) on the chosen backend. O(S (nnz_A + nnz_B)).
inline ReachabilityRun reachability_on(const BackendChoice& c, const SolveStructure& s,
                                       const std::vector<pos_t>& sources, int threads = 0) {
  ReachabilityRun r;
  r.kernel = detail::semiring_on(
      c, s, sources, "orand", r.reach, [&] { return solve_reachability(s, sources, threads); },
      [](const auto& gs, const pos_t* src, std::uint32_t ns, std::uint8_t* out) {
        return gpu::semiring_reachability(gs, src, ns, out);
      });
  return r;
}

/// (min, +) with shortest-path counts (solve_path_counts) on the chosen backend. O(S (nnz_A + nnz_B)).
inline PathCountsRun path_counts_on(const BackendChoice& c, const SolveStructure& s,
                                    const std::vector<pos_t>& sources, int threads = 0) {
  PathCountsRun r;
  if (!c.gpu) {
    r.counts = solve_path_counts(s, sources, threads);
    r.kernel = detail::cpu_semiring_kernel("count", s);
    return r;
  }
  detail::check_sources(s, sources);
  const std::size_t m = std::size_t(s.n) * sources.size();
  r.counts.dist.resize(m);
  r.counts.count.resize(m);
  bool overflow = false;
  const auto g = gpu::semiring_path_counts(gpu_semiring_structure(s), sources.data(),
                                           static_cast<std::uint32_t>(sources.size()), r.counts.dist.data(),
                                           r.counts.count.data(), &overflow);
  detail::require_ran(g);
  r.counts.overflow = overflow;
  r.kernel = g.kernel;
  return r;
}

}  // namespace mixgraph
