// Boost.Graph BFS on the layered DAG (bfs_boost.hpp).
#include "bfs_boost.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <limits>

namespace mixgraph {

std::vector<std::uint32_t> boost_bfs_distances(const Csr& b, const Csr& a_t, pos_t s) {
  // vertices 0..n-1 are y_0..y_{n-1}; S = n is the start, T = n+1 a delay node: S -> y_s (the free diagonal,
  // when A has it) and S -> T -> y_k for the other A readers of s, so that BFS level - 1 is the distance
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  const pos_t n = b.n;
  const std::size_t S = n, T = std::size_t(n) + 1;
  G g(std::size_t(n) + 2);
  for (pos_t i = 0; i < n; ++i)
    for (pos_t j : b.row(i)) boost::add_edge(j, i, g);
  boost::add_edge(S, T, g);
  for (pos_t k : a_t.row(s)) boost::add_edge(k == s ? S : T, k, g);
  std::vector<std::uint32_t> level(std::size_t(n) + 2, 0);
  std::vector<boost::default_color_type> color(std::size_t(n) + 2, boost::white_color);
  boost::breadth_first_search(
      g, S,
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(level.data(), boost::on_tree_edge())))
          .color_map(boost::make_iterator_property_map(color.data(), boost::get(boost::vertex_index, g))));
  std::vector<std::uint32_t> d(n, std::numeric_limits<std::uint32_t>::max());
  for (pos_t i = 0; i < n; ++i)
    if (color[i] != boost::white_color) d[i] = level[i] - 1;
  return d;
}

}  // namespace mixgraph
