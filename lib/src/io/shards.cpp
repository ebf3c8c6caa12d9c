#include "mixgraph/shards.hpp"

#include <algorithm>
#include <numeric>
#include <queue>

#include "mixgraph/error.hpp"

namespace mixgraph {

std::vector<std::pair<std::size_t, std::size_t>> split_by_cost(const std::vector<double>& costs,
                                                               std::size_t shards) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  const std::size_t m = costs.size();
  if (m == 0) return out;
  if (shards == 0) throw UsageError("split_by_cost: the number of shards must be at least 1");
  shards = std::min(shards, m);
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  double run = 0;
  std::size_t first = 0;
  for (std::size_t i = 0; i < m; ++i) {
    run += costs[i];
    const std::size_t left_items = m - i - 1;
    const std::size_t left_shards = shards - out.size() - 1;
    // close the range when its share of the cost is reached, or when every later item needs a range
    const bool share =
        total > 0 && run >= total * static_cast<double>(out.size() + 1) / static_cast<double>(shards);
    if (i + 1 == m || (left_shards > 0 && (share || left_items == left_shards))) {
      out.emplace_back(first, i + 1);
      first = i + 1;
    }
  }
  return out;
}

std::vector<std::vector<std::size_t>> assign_lpt(const std::vector<double>& costs, int ranks) {
  if (ranks < 1) throw UsageError("assign_lpt: the number of ranks must be at least 1");
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  using Load = std::pair<double, int>;  // (load, rank): the smallest load, then the lowest rank, on top
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> heap;
  for (int r = 0; r < ranks; ++r) heap.emplace(0.0, r);
  std::vector<std::vector<std::size_t>> plan(static_cast<std::size_t>(ranks));
  for (std::size_t s : order) {
    auto [load, r] = heap.top();
    heap.pop();
    plan[static_cast<std::size_t>(r)].push_back(s);
    heap.emplace(load + costs[s], r);
  }
  return plan;
}

double all_pairs_block_cost(std::size_t n, std::size_t s0, std::size_t count) {
  return static_cast<double>(n - s0) + static_cast<double>(count) / 4.0;
}

}  // namespace mixgraph
