#pragma once
// The semiring solves of solve.hpp on the GPU (docs/design.md, docs/math.md
// on semirings): (min, +) distances from impulse inputs, (or, and) reachability, (min, +) with shortest-path
// counts. Plain C++17 types and pointers only, so this header builds with or without CUDA (without it every
// entry point returns ran = false with a note). semiring_backend.hpp wraps these for lib/'s SolveStructure.
//
//   mixgraph::gpu::SemiringStructure st;      // host pointers, as solve.hpp's SolveStructure
//   st.n = n; st.implicit = true; st.b_offsets = offs.data(); st.kb = offs.size(); st.a_offsets = ...;
//   std::vector<std::uint32_t> dist(std::size_t(n) * sources.size());
//   auto r = mixgraph::gpu::semiring_distances(st, sources.data(), sources.size(), dist.data());
//   // r.ran, r.kernel ("gpu-semiring-minplus-implicit"), dist[i * S + c] = d(i, sources[c])
//
// Kernel: one thread per source column, marching over the rows in order; row i of a column reads its
// earlier rows from a row-major n x S_chunk buffer in global memory (a warp's 32 columns are one coalesced
// load), and every thread of a warp starts at the warp's smallest source (rows before a column's source
// stay the semiring's zero). Sources are processed in chunks of columns so the device buffer stays bounded.
// The semantics are exactly those of solve_distances / solve_reachability / solve_path_counts.
#include <cstdint>
#include <string>

#include "mixgraph/semiring_ops.hpp"  // the rings and kUnreachable, shared with the CPU engine (C++17)

namespace mixgraph::gpu {

/// unreachable in (min, +) results: mixgraph::kUnreachable (the older name, kept)
inline constexpr std::uint32_t kSemiringUnreachable = kUnreachable;

/// The pattern in solver form, host pointers (mirrors solve.hpp's SolveStructure, no values).
struct SemiringStructure {
  std::uint32_t n = 0;
  bool implicit = true;  ///< translation-invariant: row i reads i - o for each offset o <= i
  const std::uint32_t* b_offsets = nullptr;  ///< implicit B offsets, ascending (>= 1), kb of them
  std::uint32_t kb = 0;
  const std::uint32_t* a_offsets = nullptr;  ///< implicit A offsets, ascending (0 = the diagonal), ka
  std::uint32_t ka = 0;
  const std::uint64_t* b_ptr = nullptr;  ///< CSR B (rows = readers): n + 1 row pointers
  const std::uint32_t* b_idx = nullptr;  ///< b_ptr[n] column indices j < i
  const std::uint64_t* a_ptr = nullptr;  ///< CSR A: n + 1 row pointers
  const std::uint32_t* a_idx = nullptr;  ///< a_ptr[n] column indices j <= i (the diagonal where A has it)
};

struct SemiringRun {
  bool ran = false;
  std::string kernel;        ///< e.g. "gpu-semiring-minplus-implicit", "gpu-semiring-count-csr"
  std::uint32_t chunks = 0;  ///< source chunks (kernel launches) used
  double kernel_ms = 0;      ///< the kernels alone
  double total_ms = 0;       ///< uploads + kernels + downloads
  std::string note;          ///< why it did not run
};

// max_chunk_columns (every entry point): at most that many source columns per kernel launch (0: as many as
// fit in min(free GPU memory / 4, 4 GiB)); the tests use it to exercise the chunked path.

/// (min, +), A's diagonal weight 0 and every other A / B entry weight 1, impulse x_s = 0 in column s:
/// dist[i * S + c] = d(i, sources[c]) (hops), kSemiringUnreachable where no path exists (also i < s).
/// dist is a host array of n * S entries. O(S (nnz_A + nnz_B)) work. Never throws; errors in note.
SemiringRun semiring_distances(const SemiringStructure& s, const std::uint32_t* sources, std::uint32_t S,
                               std::uint32_t* dist, std::uint32_t max_chunk_columns = 0);

/// (or, and): reach[i * S + c] = 1 when y_i depends on x_{sources[c]}, else 0. n * S bytes on the host.
SemiringRun semiring_reachability(const SemiringStructure& s, const std::uint32_t* sources, std::uint32_t S,
                                  std::uint8_t* reach, std::uint32_t max_chunk_columns = 0);

/// (min, +) with counts; A enters through its diagonal only (weight (0, 1)): dist as above (the BFS
/// distance s -> i in G), count[i * S + c] the number of shortest paths (0 where unreachable), saturating at
/// UINT64_MAX with *overflow set when some count saturated. dist and count: n * S entries on the host.
SemiringRun semiring_path_counts(const SemiringStructure& s, const std::uint32_t* sources, std::uint32_t S,
                                 std::uint32_t* dist, std::uint64_t* count, bool* overflow,
                                 std::uint32_t max_chunk_columns = 0);

}  // namespace mixgraph::gpu
