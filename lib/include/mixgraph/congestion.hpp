#pragma once
// Copy-task congestion with certified bounds (docs/math.md §4): Prop. 4.7 (generalised), the cut bound
// ceil(N / kappa) by max-flow, the LP relaxation (GLPK) and, for tiny N, the exact integer optimum;
// Prop. 4.8 and the best checked routing as upper bounds.
//
//   mixgraph::CongestionOptions o;
//   auto r = mixgraph::analyse_congestion("pow2", 1000, o);   // N = 1000: the pattern on 2000 tokens
//   // r.copy_distance == 6, r.lower_bound == 4, r.upper_bound <= 6, r.routings[k].loads ...
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/pattern_spec.hpp"
#include "mixgraph/routing.hpp"

namespace mixgraph {

/// Generalised Prop. 4.7: every path i visits >= d_i + 1 positions and 2N positions carry <= C paths each,
/// so C >= ceil(sum_i (d_i + 1) / 2N). `d` = copy distances (all reachable). O(N).
std::uint32_t prop47_bound(const std::vector<std::uint32_t>& d);

/// kappa: the max number of position-disjoint paths from the inputs {1..N} to the outputs {N+1..2N}
/// (unit capacity on every position, end points included), by Boost.Graph's max-flow on the
/// node-split layered DAG. For explicit-A patterns, A edges are allowed out of every input position even
/// when reached mid-path: a relaxation that can only raise kappa, so ceil(N / kappa) stays a valid bound.
/// O(maxflow on 2n + 2 vertices and n + nnz edges). Returns 0 when no input reaches any output.
pos_t copy_cut_kappa(const CopyGraph& g);
/// Bytes copy_cut_kappa would allocate (refuse before allocating), and its number of flow edges.
std::uint64_t copy_cut_bytes(const CopyGraph& g);
std::uint64_t copy_cut_flow_edges(const CopyGraph& g);

/// The LP relaxation of node-capacitated multicommodity routing (min C s.t. one unit of flow per input
/// i -> i+N on the edges of its window that lie on some i -> i+N path; through-flow of every position,
/// end points included, <= C), or with `integer` the exact integer program (binary edge variables).
struct LpResult {
  bool built_in = false;  ///< GLPK was built in
  bool solved = false;    ///< the solver proved optimality (within its time limit)
  bool integer = false;
  double value = 0;         ///< optimum objective (LP: fractional, as the solver reports it)
  double dual_value = 0;    ///< LP: sum_i min_p y(p) / sum_v y_v for the solver's duals y (weak duality)
  std::uint32_t bound = 0;  ///< certified: ceil(dual_value - 1e-6) for the LP, the optimum for the IP
  std::string status;       ///< solver status in words
  std::uint64_t variables = 0, constraints = 0;
  double seconds = 0;
  Routing routing;  ///< integer and solved: the optimal routing (name "exact")
};
/// Variables the LP would have (sum over inputs of the candidate edges), for refusing big instances.
std::uint64_t lp_variables(const CopyGraph& g);
/// Solve with GLPK. time_limit_s <= 0: none. Without GLPK returns built_in = false, status "not built in".
LpResult lp_congestion(const CopyGraph& g, bool integer, double time_limit_s = 0);
bool lp_built_in();

struct CongestionOptions {
  bool shift = true, random = true, minmax = true;  ///< routings to run
  bool routings_forced = false;                     ///< the user named the routing: run it whatever the size
  bool lp = false;                                  ///< also the LP bound (and the IP optimum when tiny)
  std::uint64_t seed = 1;
  std::uint64_t mem_limit = 0;                   ///< 0: physical memory
  std::uint64_t work_budget = 3'000'000'000ULL;  ///< default-run limit for one pass (edge visits)
  std::uint64_t cut_max_edges = 30'000'000ULL;   ///< skip the cut bound beyond this many flow edges
  std::uint64_t lp_max_variables = 200'000ULL;   ///< skip the LP beyond this (about a minute of GLPK)
  std::uint64_t ip_max_variables = 2500;         ///< try the exact integer program up to this
  double ip_time_limit_s = 20;
  double lp_time_limit_s = 0;
  bool keep_paths = false;  ///< keep the routings' paths (for --paths)
  MinmaxOptions minmax_options{};
};

/// Runs only the routing `name` ("shift", "random" or "minmax"; "all": every one), whatever the size
/// (routings_forced). Returns false, changing nothing, for any other name. For CongestionOptions and
/// StackCongestionOptions.
template <class Options>
bool select_routings(Options& opt, const std::string& name) {
  if (name != "shift" && name != "random" && name != "minmax" && name != "all") return false;
  opt.routings_forced = true;
  opt.shift = name == "shift" || name == "all";
  opt.random = name == "random" || name == "all";
  opt.minmax = name == "minmax" || name == "all";
  return true;
}

struct NamedBound {
  std::string name;                    ///< prop47, cut, lp, ip
  std::optional<std::uint32_t> value;  ///< nullopt: not computed (see note)
  std::string note;
};

/// The lp and ip lower bounds under the refusal rules both the single-layer and the stacked analysis use:
/// GLPK built in; no LP when `work` (edge visits of the per-input searches) exceeds 40 lp_max_variables or
/// variables() exceeds lp_max_variables; the integer program only up to ip_max_variables. solve(integer,
/// time_limit_s) builds and solves the model. Fills the bounds' values and notes and lp_value; returns the
/// integer program's result (with its routing) when it was solved.
std::optional<LpResult> lp_lower_bounds(const CongestionOptions& opt, std::uint64_t work,
                                        const std::function<std::uint64_t()>& variables,
                                        const std::function<LpResult(bool, double)>& solve, NamedBound& blp,
                                        NamedBound& bip, std::optional<double>& lp_value);

struct CongestionResult {
  std::string pattern;
  pos_t N = 0;
  bool translation_invariant = false;
  bool copy_possible = false;
  std::vector<pos_t> impossible_inputs;  ///< 0-indexed
  std::string impossible_reason;
  std::uint32_t copy_distance = 0;  ///< max_i d(i+N, i)
  std::uint32_t min_distance = 0;
  std::uint64_t distance_sum = 0;        ///< sum_i d(i+N, i)
  std::vector<NamedBound> lower_bounds;  ///< prop47, cut, lp, ip (in that order)
  std::uint32_t lower_bound = 0;
  std::string lower_bound_name;
  std::optional<pos_t> kappa;
  std::optional<double> lp_value;
  std::optional<std::uint32_t> prop48_bound;  ///< translation-invariant only
  std::optional<std::uint32_t> upper_bound;   ///< best routing's congestion
  std::optional<std::uint32_t> congestion;
  std::string best_routing;
  bool optimal = false;
  std::vector<RoutingStats> routings;                        ///< checked
  std::vector<std::pair<std::string, std::string>> skipped;  ///< routing, why
  std::vector<std::string> notes;
  std::vector<Routing> paths;  ///< parallel to routings when keep_paths
};

/// Records the copy distances d (one per input, kUnreachable where the input cannot reach i + N):
/// impossible_inputs; when there are none, copy_possible, copy_distance, min_distance, distance_sum and, for
/// a translation-invariant result, prop48_bound = the copy distance. Returns copy_possible (the caller
/// gives the reason when false).
bool record_copy_distances(CongestionResult& res, const std::vector<std::uint32_t>& d);
/// lower_bound and lower_bound_name: the largest computed value of lower_bounds (first on ties).
void pick_lower_bound(CongestionResult& res);
/// The cut bound ceil(N / kappa) on g (copy_cut_kappa), noted "kappa = K <paths>", and res.kappa = kappa;
/// not computed (no value, the reason as its note) when the flow network would have more than max_edges
/// edges. RuntimeFailure beyond mem_limit (before allocating) and when no input reaches an output although
/// the copy is possible (an internal error). O(max-flow).
NamedBound cut_lower_bound(const CopyGraph& g, std::uint64_t max_edges, std::uint64_t mem_limit,
                           const std::string& paths, CongestionResult& res);
/// The verdict once the routings are checked (after pick_lower_bound): congestion and best_routing (the
/// least congestion among routings, first on ties), upper_bound (the smaller of that and prop48_bound,
/// which holds even when the shift routing was skipped) and optimal: upper_bound == lower_bound when
/// `optimal_by_upper_bound`, else only when a checked routing meets the lower bound. O(routings).
/// Throws RuntimeFailure (an internal error) when a routing's congestion is below the certified lower bound.
void settle_congestion_verdict(CongestionResult& res, bool optimal_by_upper_bound);

/// The whole analysis for one pattern spec and copy length N (pattern on 2N tokens; for mtx: specs N = 0
/// takes N = n/2 from the file). A copy that is
/// impossible returns copy_possible = false with the inputs and the reason and no numbers. Every routing
/// is checked by check_routing before it is reported. Throws UsageError for bad specs / N, RuntimeFailure
/// when the work does not fit in memory.
CongestionResult analyse_congestion(const std::string& spec, std::uint64_t N, const CongestionOptions& opt);
/// The same from a parsed spec (mixgraph/pattern_spec.hpp; the estimate and the build take it); the
/// result's `pattern` is the tree's text.
CongestionResult analyse_congestion(const PatternSpec& spec, std::uint64_t N, const CongestionOptions& opt);

}  // namespace mixgraph
