#pragma once
// Shortest paths in the layered DAG of docs/math.md §3: d(i, j) = the fewest hops from input x_j to output
// y_i (an A edge only as the first hop, the diagonal edge x_j -> y_j free, every other edge one hop). For the
// shared-pattern case this is BFS on the communication graph G (edge j -> i when token i reads j through B);
// for A-only patterns (local:w, attention) d is 1 where A reads and unreachable elsewhere.
//
//   auto p = mixgraph::make_pattern("pow2", 1 << 20);
//   auto prof = mixgraph::distance_profile(p);            // delta(m), m = 0..n-1 (Prop. 4.4)
//   std::uint32_t d = prof[1000];                          // == popcount(1000)
//   auto from = mixgraph::single_source_distances(p, 99);  // d(i, 100) for every i (0-indexed vector)
//   auto q = mixgraph::make_pattern("pow2+cache", 4096);
//   auto s = mixgraph::all_pairs_summary(q);               // diameter, mean, histogram, eccentricities
//
// Every distance is a std::uint32_t; UNREACHABLE marks "no path". Positions are 0-indexed here.
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mixgraph/growth.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/semiring_ops.hpp"

namespace mixgraph {

/// The distance of a pair with no path (also every i < j: paths only go forward): kUnreachable of
/// semiring_ops.hpp, the one definition CPU and GPU share; UNREACHABLE is its older spelling.
inline constexpr std::uint32_t UNREACHABLE = kUnreachable;

// ---------------------------------------------------------------------------------------------------------
// Distance profiles (translation-invariant patterns)

/// delta(m) for m = 0..n-1, stored in the narrowest of uint8 / uint16 / uint32 that holds every finite
/// value (O(n) memory: n bytes for every named pattern but ssm-like deep ones).
class DistanceProfile {
 public:
  DistanceProfile() = default;
  explicit DistanceProfile(pos_t n);
  pos_t size() const { return n_; }
  /// delta(m), UNREACHABLE when no sum of offsets equals m.
  std::uint32_t operator[](pos_t m) const {
    switch (width_) {
      case 1:
        return d8_[m] == 0xFF ? UNREACHABLE : d8_[m];
      case 2:
        return d16_[m] == 0xFFFF ? UNREACHABLE : d16_[m];
      default:
        return d32_[m];
    }
  }
  void set(pos_t m, std::uint32_t v);  ///< widens the storage when v does not fit (rare: deep patterns)
  /// Bytes per entry now (1, 2 or 4).
  int width() const { return width_; }
  /// Widen so that values up to v fit (call before many set()s from threads: set() itself is not
  /// thread-safe when it widens).
  void reserve_value(std::uint32_t v);
  std::vector<std::uint32_t> to_vector() const;
  std::uint64_t bytes() const { return static_cast<std::uint64_t>(n_) * static_cast<std::uint64_t>(width_); }
  /// The one-byte storage while width() == 1 (0xFF = unreachable), else nullptr: for fast bulk fills.
  std::uint8_t* data8() { return width_ == 1 ? d8_.data() : nullptr; }

 private:
  pos_t n_ = 0;
  int width_ = 1;
  std::vector<std::uint8_t> d8_;
  std::vector<std::uint16_t> d16_;
  std::vector<std::uint32_t> d32_;
};

enum class ProfileMethod {
  Auto,       ///< bitset BFS; falls back to the DP when the BFS turns out deep (many levels, e.g. ssm)
  BitsetBfs,  ///< level-synchronous BFS on bitsets: frontier shifted by each offset, OR-ed, masked
  Dp,         ///< the coin-change recurrence delta(m) = 1 + min_{o <= m} delta(m - o), vectorised over m
};
const char* to_string(ProfileMethod m);
/// The method named "auto", "bitset-bfs" or "dp" (to_string's names); nullopt for any other text.
std::optional<ProfileMethod> profile_method_from(const std::string& name);

/// delta(m) = the fewest offsets (repetition allowed) summing to m, m = 0..n-1 (Prop. 4.4); delta(0) = 0,
/// UNREACHABLE where no sum gives m. `offsets` sorted ascending, distinct, each >= 1.
/// Cost: BitsetBfs O(levels * |F| * n / 64) word operations restricted to the active parts of the frontier
/// (parallel over tiles with OpenMP); Dp O(n * |F|) (sequential, SIMD over m). Memory O(n).
DistanceProfile offset_distance_profile(const std::vector<pos_t>& offsets, pos_t n,
                                        ProfileMethod method = ProfileMethod::Auto);

/// The distance profile of a translation-invariant pattern (docs/math.md §3): B patterns through
/// offset_distance_profile (ssm: delta(m) = m); A-only patterns (local:w, attention): 0 at m = 0, 1 at
/// A's offsets, UNREACHABLE elsewhere (never multi-hop). Throws UsageError for other families.
DistanceProfile distance_profile(const Pattern& p, ProfileMethod method = ProfileMethod::Auto);

// ---------------------------------------------------------------------------------------------------------
// Single source / single target (any pattern)

/// d(i, source) for i = 0..n-1 (index i = position i + 1): distances from x_source to every y_i.
/// UNREACHABLE for i < source and wherever no path exists. Translation-invariant: bitset BFS over the
/// implicit offsets (no edge list), O(levels * |F| * (n - source) / 64); cache-efficient and mtx: one
/// pass over B's rows in position order (a BFS on a DAG whose topological order is the position order),
/// O(n + nnz(B) + nnz(A)). Explicit A (mtx:A,B, local:w, attention): the first hop may be an A edge
/// x_source -> y_k (cost 1, or 0 for the diagonal), then only B edges; d(source, source) = 0 iff A has
/// the diagonal entry there (always for shared and diagonal A).
std::vector<std::uint32_t> single_source_distances(const Pattern& p, pos_t source);

/// d(target, j) for j = 0..n-1: distances from every x_j to y_target. UNREACHABLE for j > target and
/// where no path exists. Same costs as single_source_distances (backward pass over B's rows).
std::vector<std::uint32_t> single_target_distances(const Pattern& p, pos_t target);

/// The number of shortest paths from x_source to every y_i. Paths are counted in G (B edges) for shared
/// and diagonal A (so pow2 gives popcount(m)! paths at offset m), and in the layered DAG (an A edge as
/// the first hop) for explicit A. count[i] = 0 where dist[i] == UNREACHABLE; count[source] = 1 when
/// reachable. Counts saturate at UINT64_MAX; `overflow` says whether any did. O(n + nnz) (or O(n |F|)).
struct PathCounts {
  std::vector<std::uint32_t> dist;
  std::vector<std::uint64_t> count;
  bool overflow = false;
};
PathCounts shortest_path_counts(const Pattern& p, pos_t source);

// ---------------------------------------------------------------------------------------------------------
// Summaries: diameter, mean, histogram, eccentricities over the ordered pairs j < i

struct DistanceSummary {
  pos_t n = 0;
  std::uint32_t diameter = 0;            ///< max finite d(i, j) over j < i (0 when no pair is reachable)
  double mean_distance = 0;              ///< mean over reachable pairs j < i (0 when none)
  std::vector<std::uint64_t> histogram;  ///< histogram[d] = number of pairs j < i at distance d (d >= 1)
  std::uint64_t reachable_pairs = 0;
  std::uint64_t unreachable_pairs = 0;  ///< pairs j < i with no path
  /// eccentricity[j] = max_{i > j reachable} d(i, j) (0 when position j reaches nothing later); the
  /// farthest later position in hops. Empty unless asked for.
  std::vector<std::uint32_t> eccentricity;
  bool from_profile = false;  ///< computed from delta(m) (translation-invariant) rather than all-pairs
};

/// The summary of a translation-invariant pattern on n positions from its profile (size >= n): the pairs
/// at offset m are the n - m pairs (j, j + m), weighted by delta(m). O(n).
DistanceSummary summary_from_profile(const DistanceProfile& prof, pos_t n, bool eccentricities = true);

struct AllPairsOptions {
  int threads = 0;  ///< 0: OpenMP default
  bool eccentricities = true;
  unsigned sources_per_block = 256;  ///< 64, 128, 256 or 512 (64 sources per word, 1..8 words per node)
  /// Receives (blocks done, blocks total) from one thread now and then (progress on stderr in the CLI).
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  /// When set, filled with the n x n matrix, row-major by target: (*matrix)[i * n + j] = d(i, j).
  std::vector<std::uint32_t>* matrix = nullptr;
  std::uint64_t mem_limit = 0;  ///< refuse (RuntimeFailure) beyond this estimate; 0: physical memory
  /// path_length_table only: called with the row's n after each row, on the calling thread outside any
  /// parallel region (progress; it may throw to stop the table).
  std::function<void(std::uint64_t)> row_done;
};

/// All-pairs distances of any pattern by bit-parallel multi-source BFS: 64 sources per word (up to 512 per
/// block), each level pushed along B's out-edges or pulled along B's rows (direction-optimising: whichever
/// touches fewer edges), OpenMP across blocks of sources. O(n/64 * levels * (n + nnz(B))) word
/// operations in the worst case (pulls skip nodes every source already reached). Same results for every
/// thread count. Explicit A: A edges seed level 1 (the diagonal seeds level 0). Unreachable pairs are
/// counted in `unreachable_pairs` and UNREACHABLE in the matrix.
DistanceSummary all_pairs_summary(const Pattern& p, const AllPairsOptions& opt = {});

/// The all-pairs figures of the sources [begin, end) only: what a shard of a sharded run computes. Merged
/// over ranges that cover [0, n) exactly once they give all_pairs_summary's result, bit for bit.
struct AllPairsPartial {
  pos_t begin = 0, end = 0;
  std::vector<std::uint64_t> histogram;     ///< pairs (i, j), j in [begin, end), at distance d >= 1
  std::vector<std::uint32_t> eccentricity;  ///< end - begin entries (sources begin..end-1), if asked for
  double seconds = 0;  ///< CPU time of this range on its thread (a measurement, not merged)
};

/// Runs the source ranges `ranges` (each within [0, n), begin < end) with the graph built once, OpenMP
/// across ranges (one range per thread at a time, taken in the given order), and calls
/// `done(k, partial)` for range k as it finishes (one call at a time). `opt.matrix` and `opt.progress`
/// are ignored. Same work per source as all_pairs_summary.
void all_pairs_partials(const Pattern& p, const AllPairsOptions& opt,
                        const std::vector<std::pair<pos_t, pos_t>>& ranges,
                        const std::function<void(std::size_t, AllPairsPartial&&)>& done);

/// Merges partials that cover [0, n) exactly once, in any order, into the summary all_pairs_summary gives
/// (integer histogram sums, eccentricities placed by range). RuntimeFailure on a gap or an overlap.
DistanceSummary merge_all_pairs(pos_t n, bool eccentricities, std::vector<AllPairsPartial> parts);

/// Whether delta(m) gives every distance of p (d(i, j) = delta(i - j)): translation-invariant, and not an
/// explicit A beside B reads (a first A hop then B hops is no sum of one offset set). O(1).
bool profile_describes(const Pattern& p);

/// The summary by whichever route fits: from the profile where profile_describes(p) and no matrix is asked
/// for (O(n) time and memory, opt.threads, opt.mem_limit unused), else all_pairs_summary.
DistanceSummary distance_summary(const Pattern& p, const AllPairsOptions& opt = {});

// ---------------------------------------------------------------------------------------------------------
// The route of a distances query: how a front end (CLI, Python) gets a pattern's summary figures

/// A pattern the profile does not describe gets its summary figures from all-pairs by itself only up to this
/// n (2^14 positions); beyond it the caller must ask for all-pairs (or ask for single rows only).
inline constexpr std::uint64_t kAutoAllPairsMax = std::uint64_t{1} << 14;

enum class DistanceRoute {
  Profile,    ///< summary_from_profile(distance_profile(p)): O(n) time and memory (profile_summary_bytes)
  AllPairs,   ///< all_pairs_summary (or its sharded form, which the caller picks): O(n^2/64 * levels) work,
              ///< the n x n matrix only on this route
  ListsOnly,  ///< no summary figures: only the single-source / single-target lists that were asked for
};

struct DistanceRouteRequest {
  bool all_pairs = false;  ///< all-pairs asked for, even where the profile would do or n > kAutoAllPairsMax
  bool matrix = false;     ///< the n x n matrix asked for (all-pairs only)
  bool lists = false;      ///< a single-source or single-target list asked for
  /// For the refusal's message, in the caller's own words: the pattern as given (empty: p.spec), how to
  /// ask for all-pairs ("add --all-pairs") and for one row ("--source j / --target i").
  std::string pattern_text, all_pairs_words, one_row_words;
};

struct DistanceRouteChoice {
  DistanceRoute route = DistanceRoute::Profile;
  bool translation_invariant = false;  ///< profile_describes(p): the profile is there to report besides
};

/// Picks the route of a distances query on p. O(1): nothing is computed.
/// - Profile: profile_describes(p) and neither all-pairs nor the matrix asked for;
/// - AllPairs: all-pairs or the matrix asked for, or n <= kAutoAllPairsMax;
/// - ListsOnly: n > kAutoAllPairsMax, not described by the profile, and only lists asked for.
/// Throws UsageError when none fits (n > kAutoAllPairsMax, no profile, nothing but the figures asked for),
/// saying how to ask for all-pairs or for one row.
DistanceRouteChoice choose_distance_route(const Pattern& p, const DistanceRouteRequest& q);

/// The memory of the Profile route, in bytes: the profile (1 byte per m for every named pattern), three
/// bitsets, the DP fallback's copy, and the per-position eccentricities when asked for, plus 1 MiB.
std::uint64_t profile_summary_bytes(pos_t n, bool eccentricities);

/// Copy distance for the copy task of length N (docs/math.md §4) on a pattern built on >= 2N positions:
/// max_{j < N} d(j + N, j), UNREACHABLE if some copy pair has no path. Translation-invariant: delta(N)
/// from a profile of length N + 1. Otherwise the multi-source BFS of all_pairs_summary over the sources
/// 0..N-1 only (256 per block, OpenMP across blocks), O(N/64 * levels * (n + nnz(B))).
std::uint32_t copy_distance(const Pattern& p2n, pos_t N, int threads = 0);

// ---------------------------------------------------------------------------------------------------------
// Path-length table over a sweep of n

struct PathLengthRow {
  std::uint64_t n = 0;
  std::uint32_t diameter = 0;
  std::uint32_t copy_distance = UNREACHABLE;  ///< delta(n) / max_j d(j + n, j) on 2n tokens
  double mean_distance = 0;
  std::uint64_t unreachable_pairs = 0;
  bool from_profile = false;
};
struct PathLengthTable {
  std::string pattern;
  std::vector<PathLengthRow> rows;
  std::string diameter_growth;  ///< fit_growth class among O(1), O(log n), O(sqrt n), O(n)
  std::string copy_growth;
  std::string mean_growth;
  double diameter_residual = 0, copy_residual = 0, mean_residual = 0;
  /// The fits behind each label: `menu` (fit_growth over path_length_growth_classes(); its best class is
  /// the *_growth field above) and `free` (fit_power with the known bound n^1, kPathLengthBoundExponent: a
  /// path of d hops from x_j to y_i visits d + 1 positions of j..i, so d <= i - j < n, and the copy distance
  /// on 2n tokens is <= n). `free.label` is what the table prints.
  struct Fits {
    GrowthFit menu;
    PowerFit free;
  };
  Fits diameter_fit, copy_fit, mean_fit;
};
/// The known bound on every path-length quantity of the table: O(n^1) (see PathLengthTable::Fits).
inline constexpr double kPathLengthBoundExponent = 1.0;
/// The growth candidates of the table.
const std::vector<std::string>& path_length_growth_classes();
/// One table for `spec` over `ns` (translation-invariant: one profile of length n + 1 per n; otherwise
/// all-pairs at n and copy_distance on 2n). `max_all_pairs_n`: larger non-translation-invariant n throw
/// UsageError (the CLI's 2^14 rule); mtx: specs throw UsageError (their n is fixed). Rows whose copy task
/// is impossible (copy_distance UNREACHABLE) and zero values are left out of the growth fits.
PathLengthTable path_length_table(const std::string& spec, const std::vector<std::uint64_t>& ns,
                                  const AllPairsOptions& opt = {},
                                  std::uint64_t max_all_pairs_n = UINT64_MAX);
/// The same from a parsed spec (mixgraph/pattern_spec.hpp): one parse for every n of the sweep.
PathLengthTable path_length_table(const PatternSpec& spec, const std::vector<std::uint64_t>& ns,
                                  const AllPairsOptions& opt, std::uint64_t max_all_pairs_n);

}  // namespace mixgraph
