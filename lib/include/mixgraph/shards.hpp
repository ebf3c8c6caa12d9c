#pragma once
// Shards of a heavy analysis: contiguous ranges of work items cut to near-equal cost, and their assignment
// to ranks so that the ranks finish together. Pure planning; the CLI runs and merges the shards.
//
//   auto ranges = mixgraph::split_by_cost(block_costs, 256);      // [first, last) item ranges
//   auto plan = mixgraph::assign_lpt(range_costs, ranks);          // plan[r]: shard indices of rank r
#include <cstddef>
#include <utility>
#include <vector>

namespace mixgraph {

/// Splits items 0..m-1 (cost costs[i] >= 0) into at most `shards` contiguous, non-empty ranges [first,
/// last) of near-equal total cost: range k ends once the running cost reaches (k + 1) / shards of the
/// total, so no range exceeds total / shards + max(costs). Covers 0..m-1 exactly once, in order. O(m).
std::vector<std::pair<std::size_t, std::size_t>> split_by_cost(const std::vector<double>& costs,
                                                               std::size_t shards);

/// Longest-processing-time-first: shards in decreasing cost (ties: lower index first), each to the rank
/// with the least load so far (ties: the lowest rank). plan[r] lists rank r's shards in the order it runs
/// them. Every shard appears once; the makespan is at most 4/3 of the optimum (Graham 1969). The same
/// plan on every rank for the same input. O(s log s + s log ranks).
std::vector<std::vector<std::size_t>> assign_lpt(const std::vector<double>& costs, int ranks);

/// The cost model of one block of all-pairs sources [s0, s0 + count) on n positions: the BFS from a
/// source j visits only positions >= j, so a block's work is proportional to the positions after its
/// first source, plus a fixed part per block (count / 4, measured: see docs/scaling.md).
double all_pairs_block_cost(std::size_t n, std::size_t s0, std::size_t count);

}  // namespace mixgraph
