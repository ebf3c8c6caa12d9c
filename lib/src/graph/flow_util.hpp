#pragma once
// Internal: building Boost.Graph max-flow networks (congestion's cut bound, rank's reference flow).
#include <boost/graph/graph_traits.hpp>
#include <cstddef>

namespace mixgraph::detail {

/// Adds u -> v with capacity 1 and its reverse v -> u with capacity 0, each the other's edge_reverse,
/// as Boost's push_relabel / boykov_kolmogorov max-flow require.
template <class Graph, class CapMap, class RevMap>
void add_unit_edge(Graph& g, CapMap& cap, RevMap& rev, std::size_t u, std::size_t v) {
  auto e = boost::add_edge(u, v, g).first;
  auto r = boost::add_edge(v, u, g).first;
  cap[e] = 1;
  cap[r] = 0;
  rev[e] = r;
  rev[r] = e;
}

}  // namespace mixgraph::detail
