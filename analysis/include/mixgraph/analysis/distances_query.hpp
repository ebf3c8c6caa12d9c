#pragma once
// `mixgraph distances` at one n / mixgraph.distances: shortest paths d(i, j) on one built pattern
// (docs/math.md §3). The summary figures (diameter, mean distance, histogram, eccentricities) by the route
// choose_distance_route picks (the distance profile of a translation-invariant pattern, O(n); all-pairs
// bit-parallel BFS, O(n^2/64 * levels)), the n x n matrix (all-pairs only), and the single-source (with
// shortest-path counts) and single-target lists, O(n + nnz) each.
// Two steps: distances_plan checks everything (positions, --counts, the matrix limit, the route) before any
// large allocation; distances_compute does the work (the Python package runs it on a worker thread).
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::analysis {

/// A front end's words in the query's messages (defaults: the CLI's).
struct DistancesWords {
  std::string source = "--source", target = "--target", method = "--method";
  /// "<counts_needs_source> (shortest-path counts from x_j)"
  std::string counts_needs_source = "--counts needs --source j";
  /// "<matrix_gives> n^2 entries; n = N is above MAX: <matrix_instead>"
  std::string matrix_gives = "--matrix writes";
  std::string matrix_instead = "use --summary figures or --source/--target instead";
  /// For choose_distance_route's refusal (DistanceRouteRequest): how to ask for all-pairs and for one row.
  std::string all_pairs = "add --all-pairs", one_row = "--source j / --target i";
};

/// A 1-indexed position as the front end got it. `text` is shown in messages; without `value` it is parsed
/// as a count (parse_count: 2^10 is 1024, its messages name the option).
struct PositionArg {
  std::string text;
  std::optional<std::int64_t> value;
};

/// The summary figures of all-pairs in place of all_pairs_summary(p, options) (the CLI's run over shards);
/// nullopt: this process has no result to give (an MPI rank other than 0).
using AllPairsHook = std::function<std::optional<DistanceSummary>(const Pattern&, const AllPairsOptions&)>;

struct DistancesQuery {
  const Pattern* pattern = nullptr;   ///< built by the caller, alive until distances_compute returns
  std::string pattern_text;           ///< the pattern as given, for messages ("": pattern->spec)
  std::optional<PositionArg> source;  ///< distances from x_j to every y_i
  std::optional<PositionArg> target;  ///< distances from every x_j to y_i
  bool counts = false;                ///< with a source: the number of shortest paths
  bool all_pairs = false;             ///< all-pairs even where the profile would do or n > kAutoAllPairsMax
  bool summary = false;               ///< no per-position lists (profile, eccentricities)
  bool matrix = false;                ///< the n x n matrix (all-pairs route), n <= matrix_max
  std::uint64_t matrix_max = std::uint64_t{1} << 14;
  std::string method = "auto";  ///< the profile's method: auto, bitset-bfs or dp
  int threads = 0;
  std::uint64_t mem_limit = 0;                                 ///< bytes; 0: the process default
  std::function<void(std::uint64_t, std::uint64_t)> progress;  ///< all-pairs: source blocks done of total
  AllPairsHook all_pairs_hook;                                 ///< null: all_pairs_summary
  DistancesWords words;
};

/// The query checked: what will be computed.
struct DistancesPlan {
  ProfileMethod method = ProfileMethod::Auto;
  std::optional<pos_t> source, target;  ///< 0-indexed
  DistanceRouteChoice route;
  bool has_summary = false;  ///< the figures are computed (route != ListsOnly)
};

/// Checks the query in this order: the method, the source, the target (each "<words.source> 0 is outside
/// 1..n (positions are 1-indexed)"), counts without a source, the matrix above matrix_max, then the route
/// (choose_distance_route's refusal in words.all_pairs / words.one_row). UsageError; nothing large allocated.
DistancesPlan distances_plan(const DistancesQuery& q);

struct DistancesAnswer {
  json::DistancesResult result;            ///< everything but matrix_file (the CLI names its file)
  std::optional<DistanceProfile> profile;  ///< translation-invariant patterns with the figures
  std::vector<std::uint32_t> matrix;       ///< with q.matrix: n x n, row i, column j: d(i, j) (0-indexed)
};

/// Computes what the plan says: the Profile route checks profile_summary_bytes against q.mem_limit first
/// (MemoryRefused). std::nullopt only when q.all_pairs_hook gives none (nothing else is computed then).
std::optional<DistancesAnswer> distances_compute(const DistancesQuery& q, const DistancesPlan& plan);

/// The per-head rows of a heads: pattern (head_distance_rows under the query's all-pairs request and words);
/// an empty array otherwise.
nlohmann::ordered_json distances_head_rows(const DistancesQuery& q);

}  // namespace mixgraph::analysis
