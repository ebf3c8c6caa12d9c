#pragma once
// Distances of the layered DAG by Boost.Graph's breadth_first_search (an independent reference for
// validate; lib/src/distances/ is mixgraph's own code).
#include <cstdint>
#include <memory>
#include <vector>

#include "mixgraph/csr.hpp"

namespace mixgraph {

/// The B graph as a Boost adjacency_list, built once and reused for BFS from many sources.
/// Building costs O(n + nnz(B)) time and memory; each distances() call is O(n + nnz(B) + |A column s|) with
/// no allocation beyond its result.
class BoostBfs {
 public:
  /// `b`: B with rows = readers (y_j -> y_i for j in row i).
  explicit BoostBfs(const Csr& b);
  ~BoostBfs();
  BoostBfs(const BoostBfs&) = delete;
  BoostBfs& operator=(const BoostBfs&) = delete;

  /// d(i, s) for every i from source s with the costs of single_source_distances (distances.hpp): the first
  /// hop may be an A edge x_s -> y_k (cost 1; the diagonal costs 0), then B edges y_j -> y_i (cost 1).
  /// `a_t` is A transposed (row s = the readers of s through A). Unreached: 0xffffffff.
  std::vector<std::uint32_t> distances(const Csr& a_t, pos_t s);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One-shot form of BoostBfs::distances (builds the graph for this one source).
std::vector<std::uint32_t> boost_bfs_distances(const Csr& b, const Csr& a_t, pos_t s);

}  // namespace mixgraph
