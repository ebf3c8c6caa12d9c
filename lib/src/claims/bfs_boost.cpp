// Boost.Graph BFS on the layered DAG (bfs_boost.hpp).
#include "claims/bfs_boost.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <limits>

namespace mixgraph {

// vertices 0..n-1 are y_0..y_{n-1}; S = n is the start, T = n+1 a delay node: S -> y_s (the free diagonal,
// when A has it) and S -> T -> y_k for the other A readers of s, so that BFS level - 1 is the distance.
// The B edges stay; only the out-edges of S and T change from one source to the next.
struct BoostBfs::Impl {
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  pos_t n;
  G g;
  std::vector<std::uint32_t> level;
  std::vector<boost::default_color_type> color;
  explicit Impl(const Csr& b)
      : n(b.n), g(std::size_t(b.n) + 2), level(std::size_t(b.n) + 2), color(std::size_t(b.n) + 2) {
    for (pos_t i = 0; i < n; ++i)
      for (pos_t j : b.row(i)) boost::add_edge(j, i, g);
  }
};

BoostBfs::BoostBfs(const Csr& b) : impl_(std::make_unique<Impl>(b)) {}
BoostBfs::~BoostBfs() = default;

std::vector<std::uint32_t> BoostBfs::distances(const Csr& a_t, pos_t s) {
  Impl& m = *impl_;
  const std::size_t S = m.n, T = std::size_t(m.n) + 1;
  boost::clear_out_edges(S, m.g);
  boost::clear_out_edges(T, m.g);
  boost::add_edge(S, T, m.g);
  for (pos_t k : a_t.row(s)) boost::add_edge(k == s ? S : T, k, m.g);
  std::fill(m.level.begin(), m.level.end(), 0);
  std::fill(m.color.begin(), m.color.end(), boost::white_color);
  boost::breadth_first_search(
      m.g, S,
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(m.level.data(), boost::on_tree_edge())))
          .color_map(
              boost::make_iterator_property_map(m.color.data(), boost::get(boost::vertex_index, m.g))));
  std::vector<std::uint32_t> d(m.n, std::numeric_limits<std::uint32_t>::max());
  for (pos_t i = 0; i < m.n; ++i)
    if (m.color[i] != boost::white_color) d[i] = m.level[i] - 1;
  return d;
}

std::vector<std::uint32_t> boost_bfs_distances(const Csr& b, const Csr& a_t, pos_t s) {
  return BoostBfs(b).distances(a_t, s);
}

}  // namespace mixgraph
