#pragma once
// The solve engine: Eq. 1, y_i = a_i(x) ⊕ ⨁_{j reads} (beta_ij ⊗ y_j), written once and run over several
// semirings (docs/math.md §1 and §3).
//
//   auto p = mixgraph::make_pattern("pow2", 1 << 16);
//   auto w = mixgraph::seeded_mixer_weights<double>(p, /*heads=*/4, /*seed=*/1); // head h: seed + h
//   std::vector<double> x(p.n * 64), y(p.n * 64);                                 // row-major n x d
//   auto info = mixgraph::solve_mixer(w, x.data(), y.data(), 64);                 // d = heads * d_h
//   // info.kernel names the kernel that ran
//   auto dist = mixgraph::solve_distances(p, {0, 5});   // (min, +) from impulses at positions 1 and 6
//
// Layout: X and Y are row-major n x d (a row of d columns is contiguous); column c belongs to head
// c / (d / heads). Coefficients live on the shared pattern: for translation-invariant patterns as
// per-offset arrays without index arrays (implicit offsets), for the other families parallel to CSR; or
// they are not stored at all (seeded weights, made where used) or stored once per offset (CoefSource).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "mixgraph/distances.hpp"  // UNREACHABLE / kUnreachable
#include "mixgraph/pattern.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph {

/// The pattern in solver form: implicit offsets (translation-invariant) or CSR rows.
struct SolveStructure {
  pos_t n = 0;
  bool implicit = false;         ///< translation-invariant: reads are i - o for o in the offset lists
  std::vector<pos_t> b_offsets;  ///< implicit B offsets, ascending (>= 1)
  std::vector<pos_t> a_offsets;  ///< implicit A offsets, ascending (0 = the diagonal)
  Csr b;                         ///< explicit B reads (no values), rows = readers
  Csr a;                         ///< explicit A reads (no values), diagonal included where A has it
  nnz_t nnz_b = 0, nnz_a = 0;    ///< true nonzero counts (implicit: rows i >= o only)
  std::string family;            ///< "translation-invariant" | "cache-efficient" | "matrix"
};

/// Builds the solver form of a pattern. O(n + nnz) for explicit families, O(#offsets) for implicit ones.
SolveStructure solve_structure(const Pattern& p);

/// Where one matrix's coefficients come from.
enum class CoefSource {
  Stored,     ///< every coefficient in the array: implicit [h][i][k], CSR [h][e] (see MixerWeights)
  Seeded,     ///< made where used by weight_gen.hpp from (seed + h, matrix, i, j); the array is empty
  PerOffset,  ///< implicit structures only: the array holds [h][k], one coefficient per offset and head,
              ///< the same on every row (weight sharing)
};

/// Real coefficients of H heads on one structure. Stored: implicit b[(h * n + i) * Kb + k] =
/// beta_{i, i - o_k} (0 where o_k > i), a likewise with Ka; explicit b[h * nnz_b + e], parallel to
/// structure.b.idx. Seeded: a, b empty. PerOffset: b[h * Kb + k].
template <class T>
struct MixerWeights {
  SolveStructure s;
  int heads = 1;
  std::vector<T> a, b;
  CoefSource a_source = CoefSource::Stored, b_source = CoefSource::Stored;
  std::uint64_t seed = 0;  ///< Seeded: head h draws with seed + h
  std::size_t a_stride() const { return s.implicit ? std::size_t(s.n) * s.a_offsets.size() : s.a.nnz(); }
  std::size_t b_stride() const { return s.implicit ? std::size_t(s.n) * s.b_offsets.size() : s.b.nnz(); }
};

/// The coefficients of H heads without their structure, not owned: a view of arrays laid out as MixerWeights'
/// (Stored: a_size = heads * stride; PerOffset: heads * K; Seeded: none). The structure is given beside it
/// (a Mixer's, mixer.hpp), so a solve on a structure built once copies nothing per call.
template <class T>
struct MixerCoefs {
  int heads = 1;
  const T* a = nullptr;
  const T* b = nullptr;
  std::size_t a_size = 0, b_size = 0;  ///< values at a and b
  CoefSource a_source = CoefSource::Seeded, b_source = CoefSource::Seeded;
  std::uint64_t seed = 0;  ///< Seeded: head h draws with seed + h
  /// A view of w's arrays (w must outlive the view).
  static MixerCoefs of(const MixerWeights<T>& w) {
    return {w.heads, w.a.data(), w.b.data(), w.a.size(), w.b.size(), w.a_source, w.b_source, w.seed};
  }
};

/// Bytes make_mixer_weights allocates (refuse with check_memory before calling it). With
/// CoefSource::Seeded: what seeded_mixer_weights allocates (the structure only).
std::uint64_t mixer_weights_bytes(const Pattern& p, int heads, std::size_t value_bytes,
                                  CoefSource source = CoefSource::Stored);

/// Seeded weights that cost nothing to store: head h is random_weights(p, seed + h) (weights.hpp), made
/// by the solvers where they use them (the files' values of mtx: patterns are kept as stored arrays).
template <class T>
MixerWeights<T> seeded_mixer_weights(const Pattern& p, int heads, std::uint64_t seed);

/// The same weights as seeded_mixer_weights, stored (every coefficient in a and b): generic,
/// ||(I-B)^{-1}||_inf <= 10. O(heads * (n + nnz)) time and memory.
template <class T>
MixerWeights<T> make_mixer_weights(const Pattern& p, int heads, std::uint64_t seed);
/// The same from weights already drawn (one WeightedPattern per head, all on p).
template <class T>
MixerWeights<T> mixer_weights_from(const Pattern& p, const std::vector<WeightedPattern>& heads);
/// Any weights with every coefficient stored (a and b CoefSource::Stored), the same numbers.
template <class T>
MixerWeights<T> stored_weights(const MixerWeights<T>& w);

/// One matrix's coefficients (A when is_a, else B) in the Stored layout, whatever c's source: a copy of
/// Stored ones, the values of Seeded and PerOffset ones made (0 where an implicit offset exceeds the row).
/// O(heads (n K + nnz)) time and memory; a cancel (cancel.hpp) is looked at every 4096 rows.
template <class T>
std::vector<T> stored_coefs(const SolveStructure& s, const MixerCoefs<T>& c, bool is_a);

struct SolveInfo {
  std::string kernel;  ///< which kernel ran, e.g. "cpu-implicit-tiled" / "cpu-csr-tiled"
  int threads = 1;
  double seconds = 0;        ///< the solve kernel: wall time on the CPU, kernel time on the GPU
  double total_seconds = 0;  ///< the whole call, X in host memory to Y in host memory (GPU: with the
                             ///< uploads, the device weights and the download; CPU: = seconds)
};

/// Errors: the contract of solve_mixer, solve_backend.hpp's solve_on and the weight builders above (the
/// exceptions of error.hpp, each with the CLI's exit code); X and Y are not touched before the checks:
///  - UsageError (exit 2): d not a positive multiple of the heads, heads < 1, head weights not on the
///    pattern, source positions outside 1..n;
///  - InputError (3): weight files of the wrong shape or with values that are not finite (weight_files.hpp);
///  - MemoryRefused (1, a RuntimeFailure): work refused before allocating by check_memory (memory.hpp);
///    callers check mixer_weights_bytes plus X and Y against their limit first, as the CLI does for
///    --mem-limit;
///  - GpuRequired (4): the GPU backend asked for (choose_backend, solve_on) where no GPU is usable;
///  - RuntimeFailure (1): a CUDA error in a GPU solve, a failed device allocation included, with CUDA's
///    text (the GPU entry points of gpu_solve.hpp never throw: they return ran = false and a note, which
///    solve_on turns into this exception);
///  - std::bad_alloc: host memory ran out in an allocation no limit refused first (the CLI: exit 1).
/// Nothing else escapes.
/// Y = (I - B)^{-1} A X, fast path: columns split into tiles inside a head, one tile per OpenMP task,
/// each tile a forward substitution over rows with the row's reads applied to the whole tile.
/// O(d (nnz_A + nnz_B)) work, O(1) extra memory. d must be a multiple of w.heads. threads = 0: all.
/// Results do not depend on the thread count (each column's sums run in a fixed order).
template <class T>
SolveInfo solve_mixer(const MixerWeights<T>& w, const T* x, T* y, std::size_t d, int threads = 0);

/// solve_mixer on a structure and coefficients given apart (the same kernels, the same bits): what a Mixer
/// (mixer.hpp) calls, nothing of the structure copied or rebuilt. c's arrays must fit s (not checked here:
/// Mixer::solve checks them).
template <class T>
SolveInfo solve_mixer(const SolveStructure& s, const MixerCoefs<T>& c, const T* x, T* y, std::size_t d,
                      int threads = 0);

/// The plain sequential recurrence of Eq. 1 (the reference): for i = 1..n, for each column,
/// y_i = sum_j alpha_ij x_j + sum_j beta_ij y_j straight from one WeightedPattern per head (CSR with
/// values), accumulated in T. O(d (nnz_A + nnz_B)).
template <class T>
void solve_recurrence(const std::vector<WeightedPattern>& heads, pos_t n, const T* x, T* y, std::size_t d);

// ---- semirings on the structure (weights fixed by the semiring, docs/math.md §3) ----

/// (min, +) with weight 0 on A's diagonal and 1 on every other entry of A and B, impulse inputs
/// (x_s = 0 in column s, +inf elsewhere): dist[i * S + c] = d(i, sources[c]) of docs/math.md §3 (hops from
/// x_s to y_i), kUnreachable where no path exists (also for i < s). O(S (nnz_A + nnz_B)).
std::vector<std::uint32_t> solve_distances(const Pattern& p, const std::vector<pos_t>& sources,
                                           int threads = 0);
std::vector<std::uint32_t> solve_distances(const SolveStructure& s, const std::vector<pos_t>& sources,
                                           int threads = 0);

/// (or, and): reach[i * S + c] = 1 when y_i depends on x_{sources[c]} (the support of (I-B)^{-1}A).
std::vector<std::uint8_t> solve_reachability(const SolveStructure& s, const std::vector<pos_t>& sources,
                                             int threads = 0);

/// (min, +) paired with counts: (d1, c1) ⊕ (d2, c2) keeps the smaller d and adds counts on ties
/// (saturating at UINT64_MAX, flagged). A enters through its diagonal only (weight (0, 1)), so dist is the
/// BFS distance s -> i in G and count the number of shortest paths s -> i in G (0 and kUnreachable when none;
/// pow2 has popcount(i - s)! of them).
/// Returns distances.hpp's PathCounts: `dist` laid out as solve_distances, `count` beside it (saturating),
/// `overflow` when some count saturated.
PathCounts solve_path_counts(const SolveStructure& s, const std::vector<pos_t>& sources, int threads = 0);

}  // namespace mixgraph
