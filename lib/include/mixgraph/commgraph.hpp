#pragma once
// The communication graph G (docs/math.md §3): nodes 1..n, edge j -> i when token i reads j through B.
//
//   auto g = mixgraph::build_comm_graph(pattern);
//   for (pos_t i : g.out.row(j)) ...          // readers of j
//   for (pos_t j : g.in.row(i))  ...          // what i reads through B
//   boost::breadth_first_search(g, ...);      // via mixgraph/boost_adapter.hpp
#include <cstdint>

#include "mixgraph/pattern.hpp"

namespace mixgraph {

struct CommGraph {
  pos_t n = 0;
  Csr in;   ///< row i: positions j < i that i reads through B (B's rows)
  Csr out;  ///< row j: positions i > j that read j through B (the edges j -> i)
  /// A's reads when A is not B plus the diagonal (AMode::Explicit); empty otherwise.
  Csr a_in;
  AMode a_mode = AMode::Shared;
  nnz_t num_edges() const { return in.nnz(); }
};

/// Bytes build_comm_graph would allocate (for refusing before allocating).
std::uint64_t comm_graph_bytes(const Pattern& p);

/// Materialise CSR adjacency (both directions). Throws RuntimeFailure when the estimate exceeds
/// mem_limit (0: physical memory). O(n + nnz) time and memory.
CommGraph build_comm_graph(const Pattern& p, std::uint64_t mem_limit = 0);

/// Materialise B's reads as CSR (rows = readers). For explicit families this copies p.b.
Csr b_csr(const Pattern& p);
/// Materialise A's reads as CSR (rows = readers, diagonal included where A has it).
Csr a_csr(const Pattern& p);

}  // namespace mixgraph
