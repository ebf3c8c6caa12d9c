// Reference Menger cut ranks: Boost.Graph boykov_kolmogorov_max_flow from scratch for every cut.
// GCC reports a false -Wmaybe-uninitialized inside Boost.Graph's edge iterators when inlining BK.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#include <vector>

#include "graph/flow_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph {

namespace {
using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using Graph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS,
    boost::property<boost::vertex_color_t, boost::default_color_type,
                    boost::property<boost::vertex_distance_t, long,
                                    boost::property<boost::vertex_predecessor_t, Traits::edge_descriptor>>>,
    boost::property<boost::edge_capacity_t, long,
                    boost::property<boost::edge_residual_capacity_t, long,
                                    boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;

std::uint32_t one_cut(const WeightedPattern& w, pos_t k) {
  const pos_t n = w.a.n;
  // S = 0, T = 1, x_j = 2 + j (j < k), y_i^in = 2 + k + i, y_i^out = 2 + k + n + i (i < k only).
  const std::size_t nv = 2 + static_cast<std::size_t>(k) + n + k;
  Graph g(nv);
  auto cap = boost::get(boost::edge_capacity, g);
  auto rev = boost::get(boost::edge_reverse, g);
  auto add = [&](std::size_t u, std::size_t v) { detail::add_unit_edge(g, cap, rev, u, v); };
  auto x = [&](pos_t j) { return 2 + static_cast<std::size_t>(j); };
  auto yi = [&](pos_t i) { return 2 + static_cast<std::size_t>(k) + i; };
  auto yo = [&](pos_t i) { return 2 + static_cast<std::size_t>(k) + n + i; };
  for (pos_t j = 0; j < k; ++j) add(0, x(j));
  for (pos_t i = 0; i < n; ++i) {
    if (i < k)
      add(yi(i), yo(i));
    else
      add(yi(i), 1);
    for (pos_t j : w.a.row(i))
      if (j < k) add(x(j), yi(i));
    for (pos_t j : w.b.row(i))
      if (j < k) add(yo(j), yi(i));  // y_j with j >= k is a sink: nothing leaves it
  }
  return static_cast<std::uint32_t>(boost::boykov_kolmogorov_max_flow(g, 0, 1));
}
}  // namespace

std::vector<std::uint32_t> cut_ranks_flow_boost(const WeightedPattern& w, const std::vector<pos_t>& cuts) {
  std::vector<std::uint32_t> r;
  r.reserve(cuts.size());
  for (pos_t k : cuts) {
    if (k < 1 || k >= w.a.n)
      throw UsageError("cut " + std::to_string(k) + " is outside 1.." + std::to_string(w.a.n - 1));
    r.push_back(one_cut(w, k));
  }
  return r;
}

}  // namespace mixgraph
