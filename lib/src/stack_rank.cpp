// Cut ranks of the product operator M = M_L ... M_1 of a stack (docs/math.md §5 and "Stacked layers"):
// Menger ranks by max-flow on the stacked graph, numeric ranks of the dense product with seeded weights.
#include <algorithm>
#include <limits>

#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/stack.hpp"

namespace mixgraph {

namespace {

/// Unit-capacity Dinic on a fixed arc set; arcs 2k and 2k + 1 are each other's reverse.
class UnitFlow {
 public:
  explicit UnitFlow(std::uint32_t nodes) : nodes_(nodes) {}
  std::size_t add(std::uint32_t u, std::uint32_t v) {
    from_.push_back(u);
    to_.push_back(v);
    from_.push_back(v);
    to_.push_back(u);
    return from_.size() - 2;
  }
  void finish() {  // CSR of arcs by tail
    first_.assign(nodes_ + 1, 0);
    for (auto u : from_) ++first_[u + 1];
    for (std::uint32_t u = 0; u < nodes_; ++u) first_[u + 1] += first_[u];
    order_.resize(from_.size());
    auto pos = first_;
    for (std::size_t a = 0; a < from_.size(); ++a) order_[pos[from_[a]]++] = static_cast<std::uint32_t>(a);
    base_.assign(from_.size(), 0);
    for (std::size_t a = 0; a < from_.size(); a += 2) base_[a] = 1;
  }
  /// Capacity of forward arc a (0 or 1) before the next run.
  void set_base(std::size_t a, std::uint8_t c) { base_[a] = c; }
  std::uint32_t max_flow(std::uint32_t s, std::uint32_t t) {
    cap_ = base_;
    std::uint32_t flow = 0;
    std::vector<std::uint32_t> level(nodes_), it(nodes_), queue, stack;
    constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    for (;;) {
      std::fill(level.begin(), level.end(), kNone);
      queue.assign(1, s);
      level[s] = 0;
      for (std::size_t h = 0; h < queue.size(); ++h) {
        const auto u = queue[h];
        for (auto k = first_[u]; k < first_[u + 1]; ++k) {
          const auto a = order_[k];
          if (cap_[a] && level[to_[a]] == kNone) {
            level[to_[a]] = level[u] + 1;
            queue.push_back(to_[a]);
          }
        }
      }
      if (level[t] == kNone) return flow;
      for (std::uint32_t u = 0; u < nodes_; ++u) it[u] = static_cast<std::uint32_t>(first_[u]);
      // iterative DFS along level-increasing arcs; stack holds the arcs of the current path
      for (;;) {
        stack.clear();
        std::uint32_t u = s;
        bool found = false;
        for (;;) {
          if (u == t) {
            found = true;
            break;
          }
          bool advanced = false;
          for (; it[u] < first_[u + 1]; ++it[u]) {
            const auto a = order_[it[u]];
            if (cap_[a] && level[to_[a]] == level[u] + 1) {
              stack.push_back(a);
              u = to_[a];
              advanced = true;
              break;
            }
          }
          if (advanced) continue;
          if (stack.empty()) break;
          level[u] = kNone;  // dead end
          const auto a = stack.back();
          stack.pop_back();
          u = from_[a];
          ++it[u];
        }
        if (!found) break;
        for (auto a : stack) {
          --cap_[a];
          ++cap_[a ^ 1];
        }
        ++flow;
      }
    }
  }

 private:
  std::uint32_t nodes_;
  std::vector<std::uint32_t> from_, to_, order_;
  std::vector<std::size_t> first_;
  std::vector<std::uint8_t> base_, cap_;
};

std::vector<pos_t> default_cuts(pos_t n) {
  return n <= 1024 ? all_cuts(n) : spaced_cuts(n, 64);
}

std::vector<std::uint32_t> flow_ranks(const Stack& s, const std::vector<pos_t>& cuts) {
  const std::uint64_t n = s.n, L = s.depth();
  const std::uint64_t nodes64 = 2 * (L + 1) * n + 2;
  if (nodes64 > std::numeric_limits<std::uint32_t>::max() / 2)
    throw RuntimeFailure("stack '" + s.spec + "': the stacked graph is too large for the flow ranks");
  const auto nodes = static_cast<std::uint32_t>(nodes64);
  const std::uint32_t src = nodes - 2, snk = nodes - 1;
  auto in = [&](std::uint64_t l, pos_t i) { return static_cast<std::uint32_t>(2 * (l * n + i)); };
  UnitFlow g(nodes);
  for (std::uint64_t l = 0; l <= L; ++l)
    for (pos_t i = 0; i < n; ++i) g.add(in(l, i), in(l, i) + 1);  // unit node capacity
  for (std::uint64_t l = 1; l <= L; ++l) {
    const Pattern& p = *s.layers[l - 1];
    for (pos_t i = 0; i < n; ++i) {
      for_each_a_read(p, i, [&](pos_t j) { g.add(in(l - 1, j) + 1, in(l, i)); });
      for_each_b_read(p, i, [&](pos_t j) { g.add(in(l, j) + 1, in(l, i)); });
    }
  }
  std::vector<std::size_t> src_arc(n), snk_arc(n);
  for (pos_t i = 0; i < n; ++i) {
    src_arc[i] = g.add(src, in(0, i));
    snk_arc[i] = g.add(in(L, i) + 1, snk);
  }
  g.finish();
  std::vector<std::uint32_t> out;
  for (pos_t k : cuts) {
    for (pos_t i = 0; i < n; ++i) {
      g.set_base(src_arc[i], i < k ? 1 : 0);
      g.set_base(snk_arc[i], i >= k ? 1 : 0);
    }
    out.push_back(g.max_flow(src, snk));
  }
  return out;
}

}  // namespace

Eigen::MatrixXd stack_operator_transposed(const std::vector<WeightedPattern>& w) {
  if (w.empty()) throw UsageError("a stack needs at least one layer");
  Eigen::MatrixXd mt = dense_operator_transposed(w[0]);
  for (std::size_t l = 1; l < w.size(); ++l) mt = mt * dense_operator_transposed(w[l]);  // (M_l ... M_1)^T
  return mt;
}

StackCutRanks stack_cut_ranks(const Stack& s, const StackRankOptions& opt) {
  StackCutRanks r;
  r.n = s.n;
  r.cuts = opt.cuts.empty() ? default_cuts(s.n) : opt.cuts;
  for (pos_t k : r.cuts)
    if (k < 1 || k >= s.n)
      throw UsageError("cut " + std::to_string(k) + " is outside 1.." + std::to_string(s.n ? s.n - 1 : 0));
  r.tolerance = opt.tol > 0 ? opt.tol : default_rank_tolerance(s.n);
  if (opt.numeric && s.n <= opt.numeric_limit) {
    const std::uint64_t n = s.n;
    check_memory(sat_mul(sat_mul(n, n), 24), opt.mem_limit,
                 "stack '" + s.spec + "' dense product at n = " + std::to_string(n));
    std::vector<WeightedPattern> w;
    for (std::size_t l = 0; l < s.depth(); ++l) w.push_back(induced_weights(*s.layers[l], opt.seed + l).w);
    const Eigen::MatrixXd mt = stack_operator_transposed(w);
    for (pos_t k : r.cuts) r.numeric.push_back(numeric_rank_colpiv(mt.block(0, k, k, s.n - k), r.tolerance));
    r.numeric_done = true;
  }
  if (opt.flow) {
    r.flow = flow_ranks(s, r.cuts);
    r.flow_done = true;
  }
  const auto& best = r.flow_done ? r.flow : r.numeric;
  for (std::size_t c = 0; c < best.size(); ++c)
    if (best[c] > r.max_cut_rank) {
      r.max_cut_rank = best[c];
      r.argmax_cut = r.cuts[c];
    }
  if (r.numeric_done && r.flow_done)
    for (std::size_t c = 0; c < r.cuts.size(); ++c)
      if (r.numeric[c] > r.flow[c]) r.numeric_above_flow.push_back(r.cuts[c]);
  return r;
}

}  // namespace mixgraph
