#pragma once
// The LP relaxation / integer program of node-capacitated multicommodity copy routing on a DAG whose nodes
// are copies of positions (one layer: node = position; a stack: node = copy * n + position). Shared by the
// single-layer and the stacked congestion analyses.
#include <cstdint>
#include <vector>

#include "mixgraph/congestion.hpp"

namespace mixgraph {

/// One commodity per input: one unit from src[k] to dst[k] on edges eu/ev[eptr[k] .. eptr[k+1]), listed
/// with tails in a topological order (node ids ascending is one when every edge goes to a larger id). The
/// position of node x is x % n. A path loads a position when it enters it from another position (the
/// positions along a path never decrease, so each is entered once); dst's position carries one unit of its
/// own commodity, every position being the end point of exactly one input.
struct CopyLp {
  pos_t n = 0;
  std::vector<std::uint64_t> src, dst;
  std::vector<std::uint64_t> eu, ev;
  std::vector<std::uint64_t> eptr{0};
};

/// The integer program's chosen paths: nodes ptr[k] .. ptr[k+1] run from src[k] to dst[k].
struct CopyLpPaths {
  std::vector<std::uint64_t> ptr{0};
  std::vector<std::uint64_t> nodes;
};

/// Solve with GLPK (interior point, then dual simplex; branch and bound for `integer`). The LP bound is
/// certified through the duals (weak duality); `paths` (integer, solved) receives the optimal paths.
/// Without GLPK: built_in = false, status "not built in". time_limit_s <= 0: none.
LpResult solve_copy_lp(const CopyLp& lp, bool integer, double time_limit_s, CopyLpPaths* paths);

}  // namespace mixgraph
