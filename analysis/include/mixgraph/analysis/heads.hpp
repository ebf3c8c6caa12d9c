#pragma once
// Per-head results of a heads:P1;P2;... pattern (the pattern itself is the union of its heads; docs/math.md
// §2, §5): one JSON object per head (fields in a fixed order, `pattern` first), built on the same n as the
// combined pattern, and the cut ranks of the sum of the heads' operators. `mixgraph pattern`, `distances`
// and `rank` add them to a heads: result (`heads`); the Python package's tables read them.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mixgraph/distances.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::analysis {

/// For `pattern`: each head's nnz_A, nnz_B, total/max decode cost and max cache. Empty array unless p.heads.
nlohmann::ordered_json head_pattern_rows(const Pattern& p, int threads);

/// For `distances`: each head's diameter, mean distance and reachable/unreachable pairs, by the route
/// choose_distance_route picks for the head under the command's request (the distance profile where it
/// describes the head and all-pairs was not asked for, all-pairs BFS otherwise; its refusal for a head too
/// big for automatic all-pairs). Empty array unless p.heads.
nlohmann::ordered_json head_distance_rows(const Pattern& p, int threads, std::uint64_t mem_limit,
                                          const DistanceRouteRequest& request = {});

/// For `rank`: each head's flow cut ranks and the numeric cut ranks of the sum of the heads' operators,
/// sum_h (I - B_h)^{-1} A_h with independent seeded weights per head.
struct HeadsSumRanks {
  std::vector<std::string> specs;
  std::vector<std::vector<std::uint32_t>> flow;  ///< per head, parallel to the cuts
  std::vector<std::uint32_t> sum_numeric;        ///< rank of the sum's cut blocks (empty above n = 1024)
  std::vector<std::uint32_t> sum_bound;          ///< min(sum_h flow_h(K), K, n - K)
  bool all_b_empty = true;                       ///< every head has B = 0: the sum is generic on the union
  double tolerance = 0.0;
};

/// The memory heads_sum_ranks' dense sum needs (n <= 1024: two n x n doubles), checked against mem_limit
/// (MemoryRefused, "dense sum of the heads at n = N"); nothing above n = 1024 (no dense sum there). O(1).
void check_heads_sum_memory(const Pattern& p, std::uint64_t mem_limit);

/// Per-head flow ranks on `cuts` and, for n <= 1024, the dense numeric ranks of the sum (head h: seed + h).
/// Under a CancelScope it stops between cuts (Cancelled).
HeadsSumRanks heads_sum_ranks(const Pattern& p, const std::vector<pos_t>& cuts, std::uint64_t seed,
                              double tol, std::uint64_t mem_limit);

/// What the sum's rank means for these heads, in words.
std::string heads_sum_note(const HeadsSumRanks& h);

/// `rank`'s `heads` field.
nlohmann::ordered_json heads_sum_json(const HeadsSumRanks& h);

}  // namespace mixgraph::analysis
