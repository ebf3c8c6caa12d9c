#pragma once
// `stack:P1,P2,...` specs (L mixers in sequence) in pattern, distances, rank and congestion (docs/cli.md
// "Stacked layers"): each query builds the stack (one parse of the spec), runs the library's stack analysis
// and gives its result and the JSON document of the CLI's `--format json` (the header's `format` is the
// front end's). The CLI prints the results in its formats; the Python package returns the documents.
//
//   mixgraph::analysis::StackPatternQuery q;
//   q.stack = {"stack:ssm,window:64", "4096"};
//   auto r = mixgraph::analysis::stack_pattern(q);      // r.profile.max_cache, r.stack.depth() ...
//   auto doc = mixgraph::analysis::stack_pattern_document(q, r, "json");
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mixgraph/rank_progress.hpp"
#include "mixgraph/stack.hpp"
#include "mixgraph/stack_congestion.hpp"

namespace mixgraph::analysis {

/// The stack every query builds.
struct StackQuery {
  std::string spec;             ///< stack:P1,P2,...
  std::string n_text;           ///< tokens as --n takes them ("4096", "2^12"); "" when mtx: layers give n
  int threads = 0;              ///< 0: all cores
  std::uint64_t mem_limit = 0;  ///< bytes; 0: the process default (mixgraph/memory.hpp)
};

/// Parses the spec once, checks the memory estimate and builds the stack. UsageError for a bad spec or n
/// ("--n is required" when no layer's file gives it), MemoryRefused over the limit.
Stack build_stack(const StackQuery& q);

// ---- pattern: decode cost and cache summed over the layers ----

struct StackPatternQuery {
  StackQuery stack;
  bool profile = false;  ///< per-position sums
  bool summary = false;  ///< no lists in the document
};
struct StackPatternResult {
  Stack stack;
  StackProfile profile;
  nlohmann::ordered_json layers;  ///< one row per layer (layer, pattern, family, a_mode, nnz_A, ...)
};
StackPatternResult stack_pattern(const StackPatternQuery& q);
/// `mixgraph pattern -p stack:...` as JSON (schema mixgraph.pattern.stack/1).
nlohmann::ordered_json stack_pattern_document(const StackPatternQuery& q, const StackPatternResult& r,
                                              const std::string& format);

// ---- distances: from layer-0 inputs to the last layer's outputs ----

struct StackDistancesQuery {
  StackQuery stack;
  std::string source_text;  ///< --source: final-layer distances from this input (1-indexed); "" for none
  bool summary = false;     ///< no per-position profile in the document
};
struct StackDistancesResult {
  Stack stack;
  std::uint64_t source = 0;                ///< the 1-indexed source, 0 for none
  std::vector<std::uint32_t> from_source;  ///< with a source: d_L(i, source) for every i
  StackDistances summary;                  ///< without a source: across depth
};
/// Without a source, stacks that are not translation-invariant search all pairs, refused (RuntimeFailure)
/// above 2^36 edge relaxations.
StackDistancesResult stack_distances(const StackDistancesQuery& q);
/// `mixgraph distances -p stack:...` as JSON (schema mixgraph.distances.stack/1).
nlohmann::ordered_json stack_distances_document(const StackDistancesQuery& q, const StackDistancesResult& r,
                                                const std::string& format);

// ---- rank: cut ranks of the product operator ----

struct StackRankQuery {
  StackQuery stack;
  std::string method = "both";  ///< both | dense | exact | flow
  std::string cuts_text;        ///< --cuts (analysis/cuts.hpp); "" for the default cuts
  std::uint64_t seed = 1;
  double tol = 0.0;  ///< 0: the default rule
  /// Called after each cut (mixgraph/rank_progress.hpp); may throw to stop at the next cut. Null: none.
  CutProgressHook progress;
};
struct StackRankResult {
  Stack stack;
  StackRankOptions options;
  StackCutRanks ranks;
};
StackRankResult stack_rank(const StackRankQuery& q);
/// `mixgraph rank -p stack:...` as JSON (schema mixgraph.rank.stack/1).
nlohmann::ordered_json stack_rank_document(const StackRankQuery& q, const StackRankResult& r,
                                           const std::string& format);

// ---- congestion: the copy task across the layers ----

struct StackCongestionQuery {
  std::string spec;
  std::string n_text;   ///< the copy length N as --copy-length takes it ("" with mtx: layers: n / 2)
  std::string routing;  ///< "" = every routing that fits; shift | random | minmax | all
  std::uint64_t seed = 1;
  bool lp = false;              ///< the LP bound (and the integer optimum when tiny) on the stacked graph
  bool keep_paths = false;      ///< keep every routing's paths (for a paths file)
  std::uint64_t mem_limit = 0;  ///< bytes; 0: the process default
};
StackCongestionResult stack_congestion(const StackCongestionQuery& q);
/// `mixgraph congestion -p stack:...` as JSON (schema mixgraph.congestion/1); paths_file: the paths file
/// written beside it ("" for none), named in the parameters.
nlohmann::ordered_json stack_congestion_document(const StackCongestionQuery& q,
                                                 const StackCongestionResult& r, const std::string& format,
                                                 const std::string& paths_file = "");

}  // namespace mixgraph::analysis
