#pragma once
// Boost.Graph adapter: a CommGraph is an IncidenceGraph and VertexListGraph (vertices are 0-indexed
// positions, out-edges j -> i are the readers of j), so Boost's algorithms run on it without copying.
//
//   std::vector<unsigned> dist(g.n);
//   boost::breadth_first_search(g, 0, boost::visitor(boost::make_bfs_visitor(
//       boost::record_distances(dist.data(), boost::on_tree_edge()))));
#include <boost/graph/graph_traits.hpp>
#include <boost/graph/properties.hpp>
#include <boost/iterator/counting_iterator.hpp>
#include <boost/iterator/iterator_facade.hpp>
#include <boost/property_map/property_map.hpp>
#include <limits>
#include <utility>

#include "mixgraph/commgraph.hpp"

namespace mixgraph {

struct CommEdge {
  pos_t src = 0;
  nnz_t k = 0;  ///< index into g.out.idx
  bool operator==(const CommEdge& o) const { return src == o.src && k == o.k; }
  bool operator!=(const CommEdge& o) const { return !(*this == o); }
};

class CommOutEdgeIter
    : public boost::iterator_facade<CommOutEdgeIter, CommEdge, boost::random_access_traversal_tag, CommEdge,
                                    std::ptrdiff_t> {
 public:
  CommOutEdgeIter() = default;
  CommOutEdgeIter(pos_t src, nnz_t k) : src_(src), k_(k) {}

 private:
  friend class boost::iterator_core_access;
  CommEdge dereference() const { return {src_, k_}; }
  bool equal(const CommOutEdgeIter& o) const { return k_ == o.k_; }
  void increment() { ++k_; }
  void decrement() { --k_; }
  void advance(std::ptrdiff_t d) { k_ = static_cast<nnz_t>(static_cast<std::ptrdiff_t>(k_) + d); }
  std::ptrdiff_t distance_to(const CommOutEdgeIter& o) const {
    return static_cast<std::ptrdiff_t>(o.k_) - static_cast<std::ptrdiff_t>(k_);
  }
  pos_t src_ = 0;
  nnz_t k_ = 0;
};

}  // namespace mixgraph

namespace boost {
template <>
struct graph_traits<mixgraph::CommGraph> {
  using vertex_descriptor = mixgraph::pos_t;
  using edge_descriptor = mixgraph::CommEdge;
  using directed_category = directed_tag;
  using edge_parallel_category = disallow_parallel_edge_tag;
  struct traversal_category : incidence_graph_tag, vertex_list_graph_tag {};
  using out_edge_iterator = mixgraph::CommOutEdgeIter;
  using vertex_iterator = counting_iterator<mixgraph::pos_t>;
  using degree_size_type = mixgraph::nnz_t;
  using vertices_size_type = mixgraph::pos_t;
  using edges_size_type = mixgraph::nnz_t;
  using in_edge_iterator = void;
  using adjacency_iterator = void;
  using edge_iterator = void;
  static vertex_descriptor null_vertex() { return std::numeric_limits<mixgraph::pos_t>::max(); }
};
template <>
struct property_map<mixgraph::CommGraph, vertex_index_t> {
  using type = typed_identity_property_map<mixgraph::pos_t>;
  using const_type = type;
};
}  // namespace boost

namespace mixgraph {

inline std::pair<CommOutEdgeIter, CommOutEdgeIter> out_edges(pos_t v, const CommGraph& g) {
  return {CommOutEdgeIter(v, g.out.ptr[v]), CommOutEdgeIter(v, g.out.ptr[v + 1])};
}
inline nnz_t out_degree(pos_t v, const CommGraph& g) {
  return g.out.ptr[v + 1] - g.out.ptr[v];
}
inline pos_t source(const CommEdge& e, const CommGraph&) {
  return e.src;
}
inline pos_t target(const CommEdge& e, const CommGraph& g) {
  return g.out.idx[e.k];
}
inline std::pair<boost::counting_iterator<pos_t>, boost::counting_iterator<pos_t>> vertices(
    const CommGraph& g) {
  return {boost::counting_iterator<pos_t>(0), boost::counting_iterator<pos_t>(g.n)};
}
inline pos_t num_vertices(const CommGraph& g) {
  return g.n;
}
inline boost::typed_identity_property_map<pos_t> get(boost::vertex_index_t, const CommGraph&) {
  return {};
}

}  // namespace mixgraph
