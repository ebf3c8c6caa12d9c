#pragma once
// Copy-task congestion across stacked layers (docs/math.md §3, "Copy task across layers"): the copy task of
// length N on the stacked graph of a stack on 2N tokens, routings on that graph, certified lower bounds.
//
//   mixgraph::StackCongestionOptions o;
//   auto r = mixgraph::analyse_stack_congestion("stack:ssm,window:64", 1000, o);
//   // r.base.lower_bound, r.base.upper_bound, r.base.routings[k].loads (paths through each position)
//
// Model. Vertices are (copy l, position v), l = 0..L, v = 0..2N-1 (0-indexed here). Input i (0..N-1)
// starts at (0, i) and must reach (L, i + N). A hop (l-1, u) -> (l, v) is an A edge of layer l (v reads u
// through A_l, u = v the diagonal); a hop (l, u) -> (l, v), l >= 1, u < v, is a B edge of layer l. Loads
// count positions, as for one layer: a path counts once at position v however many copies of v it visits.
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/congestion.hpp"
#include "mixgraph/stack.hpp"

namespace mixgraph {

/// One path per input: vertices ptr[i] .. ptr[i+1] are (copies[k], nodes[k]), from (0, i) to (L, i + N).
struct StackRouting {
  std::string name;
  std::vector<std::uint64_t> ptr;
  std::vector<pos_t> nodes;           ///< 0-indexed positions
  std::vector<std::uint16_t> copies;  ///< 0..L
  std::vector<std::uint32_t> loads;   ///< the producer's position loads (checked against a recount)
  std::string note;
};

struct StackCongestionOptions {
  bool shift = true, random = true, minmax = true;  ///< routings to run
  bool routings_forced = false;                     ///< the user named the routing: run it whatever the size
  std::uint64_t seed = 1;
  std::uint64_t mem_limit = 0;                   ///< 0: physical memory
  std::uint64_t work_budget = 3'000'000'000ULL;  ///< default-run limit for one pass (edge visits)
  std::uint64_t cut_max_edges = 30'000'000ULL;   ///< skip the cut bound beyond this many flow edges
  int minmax_rounds = 40;
  bool keep_paths = false;  ///< keep the routings' paths (for --output)
  bool lp = false;          ///< also the LP bound (and the integer optimum when tiny), as for one layer
  std::uint64_t lp_max_variables = 200'000ULL;  ///< skip the LP beyond this
  std::uint64_t ip_max_variables = 2500;        ///< try the exact integer program up to this
  double ip_time_limit_s = 20;
  double lp_time_limit_s = 0;
};

struct StackCongestionResult {
  /// The single-layer result fields: pattern = the stack spec, copy_distance = max_i d_L(i + N, i),
  /// lower_bounds prop47, cut, lp, ip (lp and ip with opt.lp only), prop48_bound = the shift bound d of a
  /// translation-invariant stack; with the integer optimum a routing "exact".
  CongestionResult base;
  std::vector<std::string> layer_specs;
  std::vector<StackRouting> paths;  ///< parallel to base.routings when keep_paths
};

/// The whole analysis of a stack spec on 2N tokens (N = 0 with mtx: layers: N = n / 2). Every routing is
/// checked by check_stack_routing. Throws UsageError for bad specs / N, RuntimeFailure over memory or
/// when the per-input searches a non-translation-invariant stack needs exceed 40 work budgets.
StackCongestionResult analyse_stack_congestion(const std::string& spec, std::uint64_t N,
                                               const StackCongestionOptions& opt);

/// The single-layer pattern on the stack's positions whose copy-task paths contain the position sequence
/// of every stacked path: A = layer 1's A, B = every layer's B and the off-diagonal A of layers 2..L
/// (copies of a position merged). Translation-invariant when every layer is. Its cut bound (copy_cut_kappa)
/// is therefore a valid cut bound for the stack; for L = 1 it has the layer's own reads.
Pattern stack_collapsed_pattern(const Stack& s);

/// Translation-invariant stacks: one shortest path (0, 0) -> (L, N), shifted to every input. Congestion
/// d_L(N) at most. O(L (n + nnz)) for the template, O(N d) for the paths. UsageError otherwise.
StackRouting stack_shift_routing(const Stack& s, pos_t N);

/// Each path uniform among the shortest paths of its input (counts in double precision), seeded per input.
/// One dynamic programme per input over copies 0..L of positions i..i+N: O(N L (N + reads)). Inputs that
/// cannot reach their output are listed in `unreachable` (0-indexed) and get an empty path.
StackRouting stack_random_routing(const Stack& s, pos_t N, std::uint64_t seed,
                                  std::vector<pos_t>& unreachable);

/// Negotiated rip-up-and-reroute from `start` (a checked routing of all inputs): as minmax_routing, with
/// min-cost paths on the stacked graph where entering a position costs 1 + history + BIG * overload.
/// Stops at `lower_bound`, after `rounds` rounds or about max_work edge visits. Never worse than start.
StackRouting stack_minmax_routing(const Stack& s, pos_t N, const StackRouting& start, std::uint64_t seed,
                                  int rounds, std::uint32_t lower_bound, std::uint64_t max_work);

/// The LP relaxation of copy routing on the stacked graph (one commodity per input over the edges of copies
/// 0..L of its window that lie on some (0, i) -> (L, i + N) path; a position's load counts the paths that
/// enter it, end points included; min C with every load <= C), certified through its duals as for one
/// layer, or with `integer` the exact integer program and its optimal routing. One layer: the plain
/// pattern's LP. Without GLPK: lp.built_in = false.
struct StackLpResult {
  LpResult lp;           ///< lp.routing unused
  StackRouting routing;  ///< integer and solved: the optimal routing (name "exact")
};
StackLpResult stack_lp_congestion(const Stack& s, pos_t N, bool integer, double time_limit_s = 0);
/// Variables stack_lp_congestion would have (for refusing big instances). O(N L (N + reads)).
std::uint64_t stack_lp_variables(const Stack& s, pos_t N);

/// Edge visits of one per-input search (about L (N + 1) + half the stack's reads).
std::uint64_t stack_route_work(const Stack& s, pos_t N);

/// Independent checker: every path starts at (0, i), ends at (L, i + N), every hop is an A edge of the next
/// layer or a B edge of the same layer, checked against the layer's offsets or CSR rows by binary search;
/// loads are recounted (a position once per path) and compared with r.loads when given. Throws
/// RuntimeFailure naming the first bad path or hop. O(total path length * log(reads)).
RoutingStats check_stack_routing(const Stack& s, pos_t N, const StackRouting& r);

}  // namespace mixgraph
