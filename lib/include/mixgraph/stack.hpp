#pragma once
// Stacked layers: `stack:P1,P2,...,PL` is L mixers applied in sequence, layer l's input being layer l-1's
// output (docs/math.md §3, "Stacked layers"). A stack is not a single-layer pattern: make_pattern refuses it,
// and the analyses below work on the stacked communication graph (L + 1 copies of positions 1..n).
//
//   auto s = mixgraph::make_stack("stack:ssm,window:64,ssm,window:64", 100000);
//   auto d = mixgraph::stack_distance_summary(s, {});   // input j -> final-layer i, per depth
//   auto r = mixgraph::stack_cut_ranks(s, {});          // cut ranks of M_L ... M_1
//
// Grammar: stack:LIST, LIST = ITEM (SEP ITEM)*, SEP = ';' when the list has a ';' outside parentheses,
// else ','. ITEM = a pattern spec (not stack:, not heads:) or (LIST)*k, the list repeated k times.
// With ',' every piece must be a whole spec: use ';' for layers whose spec has a comma (bigbird:w,g,r).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mixgraph/distances.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/weights.hpp"

namespace mixgraph {

/// Most layers a stack may have.
inline constexpr std::size_t kMaxStackLayers = 4096;

struct Stack {
  std::string spec;                                    ///< as given
  pos_t n = 0;                                         ///< positions per layer
  std::vector<std::string> layer_specs;                ///< L entries, repetitions expanded
  std::vector<std::shared_ptr<const Pattern>> layers;  ///< layer l (0-indexed); equal specs share one
  std::size_t depth() const { return layers.size(); }
  /// Every layer translation-invariant: distances then depend on i - j only.
  bool translation_invariant() const;
};

/// True when spec (trimmed) starts with "stack:".
bool is_stack_spec(const std::string& spec);

/// The layer specs of a stack spec, repetitions expanded, without building anything. Throws UsageError for
/// bad grammar (empty parts, unbalanced parentheses, a bad repeat count, more than kMaxStackLayers layers,
/// nested stack: or heads: layers).
std::vector<std::string> stack_layer_specs(const std::string& spec);

/// The Stack tree of a stack: spec (parse_pattern_spec gives it for stack: specs): the layers of
/// stack_layer_specs, each parsed. Throws UsageError as stack_layer_specs and parse_pattern_spec do; with ','
/// a layer that is not a spec is refused with a hint to use ';'.
PatternSpec parse_stack_spec(const std::string& spec);

/// Parse and build every layer on n positions (n = 0: from the mtx: layers, which must agree). Throws
/// UsageError as parse_stack_spec and make_pattern do.
Stack make_stack(const std::string& spec, std::uint64_t n);
/// The same from a parsed Stack tree (UsageError for any other tree).
Stack make_stack(const PatternSpec& spec, std::uint64_t n);

/// Upper bound on the bytes make_stack and the per-layer profiles need (the sum over distinct layers of
/// estimate_pattern_bytes). Reads no file.
std::uint64_t estimate_stack_bytes(const std::string& spec, std::uint64_t n);
std::uint64_t estimate_stack_bytes(const PatternSpec& spec, std::uint64_t n);

/// The message make_pattern gives for a stack spec (commands that do not analyse stacks).
std::string stack_refusal(const std::string& spec);

// ---------------------------------------------------------------------------------------------------------
// Decode cost and cache (docs/math.md §2 per layer, summed over layers)

struct StackProfile {
  pos_t n = 0;
  std::vector<PatternProfile> layers;      ///< each layer's own profile (per-position lists kept if asked)
  nnz_t nnz_a = 0, nnz_b = 0;              ///< summed over layers
  nnz_t total_decode_cost = 0;             ///< sum over layers and positions
  std::uint64_t max_decode_cost = 0;       ///< max over i of the sum over layers of decode_cost_l(i)
  std::uint64_t max_cache = 0;             ///< max over i of the sum over layers of |C_i^(l)|
  pos_t argmax_cache = 0;                  ///< 0-indexed first position attaining max_cache
  std::vector<std::uint64_t> decode_cost;  ///< per position, summed over layers (if per_position)
  std::vector<std::uint64_t> cache_size;   ///< per position, summed over layers (if per_position)
};
/// O(L (n + nnz)) time, O(L n) memory when per-position lists are kept (O(n) otherwise, beyond the layers).
StackProfile stack_profile(const Stack& s, const ProfileOptions& opt = {});

// ---------------------------------------------------------------------------------------------------------
// Distances on the stacked graph

/// dist[l][i] = fewest hops from the layer-0 copy of `source` to the layer-l copy of i (l = 0..L, i
/// 0-indexed; dist[0] is 0 at source, UNREACHABLE elsewhere). A diagonal A edge costs 0, every other A or B
/// edge 1. Layer by layer: through A (min over A reads), then B in position order. O(L (n + nnz)) per source;
/// a translation-invariant layer relaxes each run of consecutive offsets with a sliding-window minimum, so
/// attention or dense layers cost O(n) per run.
std::vector<std::vector<std::uint32_t>> stack_distances_from(const Stack& s, pos_t source);

/// Only the final layer's row of stack_distances_from.
std::vector<std::uint32_t> stack_single_source(const Stack& s, pos_t source);

struct StackDistanceOptions {
  int threads = 0;              ///< 0: OpenMP default
  std::uint64_t mem_limit = 0;  ///< refuse (RuntimeFailure) over this estimate; 0: physical memory
  /// all-pairs work (n sources x L (n + nnz)) above this many edge relaxations is refused (RuntimeFailure)
  /// with the estimate; 0: no limit
  std::uint64_t max_work = 0;
};

struct StackDistances {
  /// by_depth[l - 1] = the summary of d_l(i, j) over pairs j < i, input j to layer-l output i, for the
  /// first l layers (l = 1..L); the last is the stack's.
  std::vector<DistanceSummary> by_depth;
  bool from_profile = false;  ///< translation-invariant: from the profile of source 1, else all-pairs
  /// translation-invariant only: profile[l - 1][m] = d_l(1 + m, 1), m = 0..n-1
  std::vector<std::vector<std::uint32_t>> profile;
};
/// Translation-invariant stacks: one source (d depends on i - j only, no path leaves [j, i]): O(L (n + nnz)).
/// Otherwise every source: O(n L (n + nnz)), OpenMP over sources. Histograms are filled, eccentricities not.
StackDistances stack_distance_summary(const Stack& s, const StackDistanceOptions& opt = {});

// ---------------------------------------------------------------------------------------------------------
// Cut ranks of the product operator M = M_L ... M_1, M_l = (I - B_l)^{-1} A_l

struct StackRankOptions {
  std::uint64_t seed = 1;      ///< layer l gets random_weights(layer, seed + l) (0-indexed l)
  std::vector<pos_t> cuts;     ///< 1-indexed cuts; empty: every cut for n <= 1024, else 64 spaced cuts
  bool numeric = true;         ///< the dense product's numeric ranks (n <= numeric_limit)
  bool flow = true;            ///< Menger ranks on the stacked graph
  pos_t numeric_limit = 1024;  ///< largest n for the dense product (L n^3 flops, 16 n^2 bytes)
  double tol = 0.0;            ///< 0: default_rank_tolerance(n)
  std::uint64_t mem_limit = 0;
  /// The numeric side is the exact rank over GF(2^61-1) (cut_ranks_exact_product, any n) instead of the
  /// dense product; refused (UsageError) when a layer's weights come from .mtx values (not generic).
  bool exact = false;
  /// With `exact` false and n <= numeric_limit: the numeric side is the exact rank when every layer's weights
  /// are generic (seeded), the dense product only when a layer's weights come from .mtx values, as rank
  /// --method both does for one pattern. The dense product's floating-point rank can exceed the flow rank
  /// by rounding; the exact rank never does.
  bool exact_if_generic = false;
  /// Flow: the first window (positions within this distance of the cut) searched before the whole graph;
  /// 0 searches the whole graph at once. Changes the time only, never the answer.
  pos_t flow_window = 256;
};

struct StackCutRanks {
  pos_t n = 0;
  std::vector<pos_t> cuts;
  bool numeric_done = false, flow_done = false;
  std::vector<std::uint32_t> numeric;  ///< parallel to cuts
  std::vector<std::uint32_t> flow;     ///< parallel to cuts
  double tolerance = 0.0;
  std::string numeric_method = "dense";  ///< "dense" or "exact"
  std::string exact_rule;                ///< exact: the rule and its failure probability, in words
  double failure_bound = 0.0;            ///< exact: P(some cut below the generic rank) <= this
  std::uint32_t max_cut_rank = 0;        ///< flow if done, else numeric
  pos_t argmax_cut = 0;
  std::vector<pos_t> numeric_above_flow;  ///< cuts with numeric > flow (a defect if non-empty)
};

/// Flow: the largest number of vertex-disjoint paths from layer-0 copies of 1..K to layer-L copies of
/// K+1..n in the stacked graph (unit node capacities), a Dinic max-flow per cut on a graph built once,
/// O(E sqrt(V)) each with E = sum_l (nnz(A_l) + nnz(B_l)) + (L + 1) n, first confined to growing windows
/// around the cut (flow_window) and then resumed on the whole graph. Numeric: the dense product of the
/// layers' operators with seeded weights, numeric_rank_colpiv of each block; or (exact) the exact ranks
/// over GF(2^61-1) of the product with generic weights, which never exceed the flow ranks (opt.exact, or
/// opt.exact_if_generic when every layer is seeded).
StackCutRanks stack_cut_ranks(const Stack& s, const StackRankOptions& opt = {});

/// The dense product, transposed: Mt(j, i) = M(i, j), M = M_L ... M_1 with layer l's weights w[l].
Eigen::MatrixXd stack_operator_transposed(const std::vector<WeightedPattern>& w);

}  // namespace mixgraph
