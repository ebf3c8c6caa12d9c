#pragma once
// Distances of the layered DAG by Boost.Graph's breadth_first_search (an independent reference for
// validate; lib/src/distances_* is mixgraph's own code).
#include <cstdint>
#include <vector>

#include "mixgraph/csr.hpp"

namespace mixgraph {

/// d(i, s) for every i from source s with the costs of single_source_distances (distances.hpp): the first
/// hop may be an A edge x_s -> y_k (cost 1; the diagonal costs 0), then B edges y_j -> y_i (cost 1).
/// `b` and `a_t` are B (rows = readers) and A transposed (row s = the readers of s through A); one
/// adjacency_list per call, O(n + nnz(B) + |A column s|). Unreached: 0xffffffff.
std::vector<std::uint32_t> boost_bfs_distances(const Csr& b, const Csr& a_t, pos_t s);

}  // namespace mixgraph
