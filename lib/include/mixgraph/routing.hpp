#pragma once
// Copy-task routings (docs/math.md §3-§4): the layered DAG of a pattern on 2N tokens, copy distances, and the
// shift / random shortest-path / congestion-minimising routings with an independent checker.
//
//   auto cg = mixgraph::make_copy_graph(mixgraph::make_pattern("pow2", 2 * 1000), 1000);
//   auto d = mixgraph::copy_distances(cg);              // d[i] = d(i+N, i), 0-indexed input i
//   auto r = mixgraph::shift_routing(cg);              // Prop. 4.8 (translation-invariant only)
//   auto s = mixgraph::check_routing(cg, r);           // hop-by-hop check + recounted loads
//   // s.congestion == 6 (= popcount(1000))
//
// Model. Positions are 0-indexed 0..2N-1 here (every output adds 1). Input i (0..N-1) must reach output
// i+N. A path is the list of positions it visits, increasing, from i to i+N. Its first hop u -> v is
// valid when v reads u through A (v != u), or when A has the diagonal at u and v reads u through B; every
// later hop must be a B read. For shared patterns (A = B plus the diagonal) and for ssm (A diagonal) this
// is a path i -> i+N in the communication graph G; for A-only patterns (B = 0) it is one A hop.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "mixgraph/distances.hpp"  // UNREACHABLE / kUnreachable
#include "mixgraph/pattern.hpp"

namespace mixgraph {


/// The copy task's view of a pattern on 2N positions: implicit offsets for translation-invariant
/// patterns (nothing materialised), CSR adjacency otherwise.
struct CopyGraph {
  Pattern pattern;                   ///< on n = 2N positions
  pos_t N = 0;                       ///< copy length
  pos_t n = 0;                       ///< 2N
  bool ti = false;                   ///< translation-invariant: hops are offsets
  bool a_only = false;               ///< B = 0: a path is one A hop
  std::vector<pos_t> b_off;          ///< TI: B offsets ascending
  std::vector<pos_t> a_off;          ///< TI, explicit A: A offsets ascending, 0 (the diagonal) excluded
  bool ti_a_diag = true;             ///< TI: A has the diagonal
  Csr b_in;                          ///< explicit: row v = positions v reads through B
  Csr b_out;                         ///< explicit: row u = readers of u through B
  Csr a_out;                         ///< explicit A (AMode::Explicit): row u = readers v != u of u through A
  std::vector<std::uint8_t> a_diag;  ///< explicit A: 1 when A has (u, u)

  bool explicit_a() const { return pattern.a_mode == AMode::Explicit; }
  bool has_diag(pos_t u) const {
    if (!explicit_a()) return true;
    return ti ? ti_a_diag : a_diag[u] != 0;
  }
  /// Positions reachable in one first hop from input u (ascending not guaranteed, no duplicates).
  template <class F>
  void for_each_first(pos_t u, F&& fn) const {
    if (ti) {
      if (explicit_a())
        for (pos_t o : a_off)
          if (u + static_cast<std::uint64_t>(o) < n) fn(u + o);
      if (has_diag(u))
        for (pos_t o : b_off) {
          if (u + static_cast<std::uint64_t>(o) >= n) break;
          if (explicit_a() && std::binary_search(a_off.begin(), a_off.end(), o)) continue;
          fn(u + o);
        }
      return;
    }
    if (explicit_a()) {
      for (pos_t v : a_out.row(u)) fn(v);
      if (a_diag[u]) {
        auto ar = a_out.row(u);
        for (pos_t v : b_out.row(u))
          if (!std::binary_search(ar.begin(), ar.end(), v)) fn(v);
      }
    } else {
      for (pos_t v : b_out.row(u)) fn(v);
    }
  }
  /// Readers of u through B (later hops).
  template <class F>
  void for_each_out(pos_t u, F&& fn) const {
    if (ti) {
      for (pos_t o : b_off) {
        if (u + static_cast<std::uint64_t>(o) >= n) break;
        fn(u + o);
      }
    } else {
      for (pos_t v : b_out.row(u)) fn(v);
    }
  }
  /// Positions v reads through B (ascending for explicit, descending for TI).
  template <class F>
  void for_each_in(pos_t v, F&& fn) const {
    if (ti) {
      for (pos_t o : b_off) {
        if (o > v) break;
        fn(v - o);
      }
    } else {
      for (pos_t u : b_in.row(v)) fn(u);
    }
  }
  /// True when u -> v is a valid first hop out of input u.
  bool first_hop_ok(pos_t u, pos_t v) const;
  /// B edges (explicit) or n * |offsets| (TI): a size measure for work estimates.
  std::uint64_t num_b_edges() const;
};

/// Build the copy graph of `p` (which must have 2N positions). O(n + nnz) for explicit patterns, O(|F|)
/// for translation-invariant ones. Throws UsageError when p.n != 2N or N < 1.
CopyGraph make_copy_graph(Pattern p, pos_t N);

/// TODO(merge): use distances.hpp. Breadth-first search over the layered DAG from input `s` (first hop as
/// above, then B edges), stopping once `stop` (if not kUnreachable) is settled. Returns hop counts over
/// positions s..n-1 (index v - s), kUnreachable where not reached. O(edges explored).
std::vector<std::uint32_t> layered_bfs(const CopyGraph& g, pos_t s, pos_t stop = kUnreachable);

/// TODO(merge): use distances.hpp. Coin-change distances of a translation-invariant B-offset set:
/// delta[m] for m = 0..M (Prop. 4.4), kUnreachable when m is no sum of offsets. O(M * |F|).
std::vector<std::uint32_t> offset_distances(const std::vector<pos_t>& offsets, pos_t M);

/// d(i+N, i) for every input i (0-indexed), kUnreachable when y_{i+N} cannot be reached from x_i.
/// Translation-invariant: one coin-change DP (O(N |F|)); A-only: one lookup per input; otherwise one
/// early-stopping BFS per input (O(N * edges in a window of N)).
std::vector<std::uint32_t> copy_distances(const CopyGraph& g);

/// One path per input: nodes[ptr[i] .. ptr[i+1]) lists the 0-indexed positions of input i's path.
struct Routing {
  std::string name;
  std::vector<std::uint64_t> ptr;
  std::vector<pos_t> nodes;
  std::vector<std::uint32_t> loads;  ///< the producer's own node loads (checked against a recount)
  std::string note;                  ///< how it was made (slack, rounds, ...)
};

/// Checked statistics of a routing.
struct RoutingStats {
  std::string name;
  std::uint32_t congestion = 0;            ///< max load
  pos_t argmax = 0;                        ///< first position (0-indexed) with the max load
  std::uint64_t num_at_max = 0;            ///< positions carrying the max load
  std::vector<std::uint32_t> loads;        ///< length n: paths through each position (end points count)
  std::uint32_t min_len = 0, max_len = 0;  ///< hops
  double mean_len = 0;
  double seconds = 0;
  std::string note;
};

/// Independent checker: every path starts at i, ends at i+N, every hop is checked against the Pattern
/// itself (its offsets or CSR rows, by binary search, not against the CopyGraph adjacency), loads are
/// recounted from scratch and compared with r.loads when r.loads is non-empty. Throws RuntimeFailure
/// naming the first bad path/hop. O(total path length * log(reads)).
RoutingStats check_routing(const CopyGraph& g, const Routing& r);

/// Prop. 4.8 shift routing: one shortest path 0 -> N (largest offsets first), shifted to every input.
/// Translation-invariant shared/diagonal patterns only (UsageError otherwise). `delta` = offset_distances
/// of g.b_off up to N (computed when empty). O(N * d) time and memory. Congestion exactly d.
Routing shift_routing(const CopyGraph& g, const std::vector<std::uint32_t>& delta = {});

/// Shortest-path routing, each path drawn uniformly among the shortest paths of its input (counts in
/// double precision), seeded per input (same result for any thread count). TI: O(N |F| + N d log |F|);
/// otherwise one BFS per input. Throws UsageError when some input cannot reach its output.
Routing random_routing(const CopyGraph& g, std::uint64_t seed, const std::vector<std::uint32_t>& delta = {});

struct MinmaxOptions {
  std::uint64_t seed = 1;
  int max_rounds = 40;  ///< total rip-up-and-reroute rounds
  int patience = 10;    ///< failed rounds at step 1 before giving up (patience/2 halve a larger step)
  int slack = -1;       ///< TI: allowed extra hops over d in the candidate DAG; -1: largest of 0..2 in budget
  std::uint64_t round_budget = 400'000'000;    ///< TI: max N * (candidate DAG edges) for the slack choice
  std::uint32_t lower_bound = 1;               ///< stop when this congestion is reached
  std::uint64_t max_work = 20'000'000'000ULL;  ///< stop after about this many edge visits (deterministic)
};

/// Congestion-minimising routing by negotiated rip-up-and-reroute (PathFinder style): start from
/// `start`; set target = its congestion - 1; each round reroutes, in a seeded random order, every path
/// through a position loaded above target along a min-cost path where a position costs
/// 1 + history + BIG * max(0, load + 1 - target); a round that meets the target records the routing and
/// lowers the target (by a step that doubles after each success and halves after patience/2 failures);
/// positions still above target gain history. Paths may be longer than shortest.
/// Candidate paths: TI patterns use the relative DAG of offsets m with delta(m) + delta(N-m) <= d + slack;
/// other patterns the whole window [i, i+N]. Deterministic for a fixed seed. Returns the best routing
/// found (never worse than `start`). Time O(rounds * rerouted paths * candidate edges), capped by
/// max_work edge visits; memory O(N * path length + candidate edges). `start` must be a checked routing.
Routing minmax_routing(const CopyGraph& g, const Routing& start, const MinmaxOptions& opt,
                       const std::vector<std::uint32_t>& delta = {});

/// Work estimate (edge visits) for one pass over all inputs of a per-input search on g.
std::uint64_t per_input_search_work(const CopyGraph& g);
/// Work estimate (edge visits) of one minmax round (TI: N * candidate edges at slack 0).
std::uint64_t minmax_round_work(const CopyGraph& g, const std::vector<std::uint32_t>& delta);

}  // namespace mixgraph
