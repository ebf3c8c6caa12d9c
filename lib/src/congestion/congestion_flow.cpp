// The cut bound's kappa: Boost.Graph max-flow on the node-split layered DAG (kept in its own translation
// unit so the Boost instantiations compile once).
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/push_relabel_max_flow.hpp>

#include "graph/flow_util.hpp"
#include "mixgraph/congestion.hpp"

namespace mixgraph {

namespace {

using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<boost::edge_capacity_t, long,
                    boost::property<boost::edge_residual_capacity_t, long,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;

/// Logical flow edges: n split edges, N source edges, N sink edges, B edges, A edges out of inputs.
std::uint64_t flow_edges(const CopyGraph& g) {
  std::uint64_t e = static_cast<std::uint64_t>(g.n) + 2ULL * g.N + g.num_b_edges();
  if (g.explicit_a()) {
    if (g.ti)
      e += static_cast<std::uint64_t>(g.N) * g.a_off.size();
    else
      for (pos_t i = 0; i < g.N; ++i) e += g.a_out.row_size(i);
  }
  return e;
}

}  // namespace

std::uint64_t copy_cut_bytes(const CopyGraph& g) {
  // Each logical edge is stored twice (with its reverse), each ~56 bytes with properties and slack.
  return flow_edges(g) * 2 * 56 + (2ULL * g.n + 2) * 32;
}

pos_t copy_cut_kappa(const CopyGraph& g) {
  const pos_t n = g.n, N = g.N;
  const std::size_t S = 2ULL * n, T = 2ULL * n + 1;
  FlowGraph fg(2ULL * n + 2);
  auto cap = boost::get(boost::edge_capacity, fg);
  auto rev = boost::get(boost::edge_reverse, fg);
  auto add = [&](std::size_t u, std::size_t v) { detail::add_unit_edge(fg, cap, rev, u, v); };
  // in(v) = v, out(v) = n + v
  for (pos_t v = 0; v < n; ++v) add(v, static_cast<std::size_t>(n) + v);
  for (pos_t i = 0; i < N; ++i) add(S, i);
  for (pos_t o = N; o < n; ++o) add(static_cast<std::size_t>(n) + o, T);
  for (pos_t u = 0; u < n; ++u) {
    g.for_each_out(u, [&](pos_t v) { add(static_cast<std::size_t>(n) + u, v); });
    if (g.explicit_a() && u < N) {
      if (g.ti) {
        for (pos_t o : g.a_off)
          if (u + static_cast<std::uint64_t>(o) < n && !std::binary_search(g.b_off.begin(), g.b_off.end(), o))
            add(static_cast<std::size_t>(n) + u, u + o);
      } else {
        auto br = g.b_out.row(u);
        for (pos_t v : g.a_out.row(u))
          if (!std::binary_search(br.begin(), br.end(), v)) add(static_cast<std::size_t>(n) + u, v);
      }
    }
  }
  const long f = boost::push_relabel_max_flow(fg, S, T);
  return static_cast<pos_t>(f);
}

std::uint64_t copy_cut_flow_edges(const CopyGraph& g) {
  return flow_edges(g);
}

}  // namespace mixgraph
