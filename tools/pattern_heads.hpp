#pragma once
// Per-head results of a heads:P1;P2;... pattern (the pattern itself is the union of its heads; docs/math.md
// §2): one JSON object per head (fields in a fixed order, `pattern` first), built on the same n as the
// combined pattern.
#include <nlohmann/json.hpp>

#include "mixgraph/distances.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::cli {

/// For `pattern`: each head's nnz_A, nnz_B, total/max decode cost and max cache. Empty array unless p.heads.
nlohmann::ordered_json head_pattern_rows(const Pattern& p, int threads);

/// For `distances`: each head's diameter, mean distance and reachable/unreachable pairs, by the route
/// choose_distance_route picks for the head under the command's request (the distance profile where it
/// describes the head and all-pairs was not asked for, all-pairs BFS otherwise; its refusal for a head too
/// big for automatic all-pairs). Empty array unless p.heads.
nlohmann::ordered_json head_distance_rows(const Pattern& p, int threads, std::uint64_t mem_limit,
                                          const DistanceRouteRequest& request);

/// Prints a table of the rows above (one line per head) after a blank line; nothing when rows is empty.
void print_head_rows(std::ostream& os, const nlohmann::ordered_json& rows);

}  // namespace mixgraph::cli
