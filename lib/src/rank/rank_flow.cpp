// Menger cut ranks: incremental Dinic max-flow with unit node capacities on the layered DAG (docs/math.md
// §5).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "mixgraph/cancel.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/rank_progress.hpp"

namespace mixgraph {

namespace {

/// Split graph: S, T, x_j, y_i^in, y_i^out. Every edge e is two arcs 2e (forward) and 2e + 1 (reverse);
/// res[] holds residual capacities in {0, 1}.
class LayeredFlow {
 public:
  explicit LayeredFlow(const WeightedPattern& w) : n_(w.a.n) {
    const pos_t n = n_;
    nodes_ = 3u * n + 2;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    edges.reserve(w.a.nnz() + w.b.nnz() + 3ull * n);
    e_sx_.resize(n);
    e_io_.resize(n);
    e_t_.resize(n);
    for (pos_t j = 0; j < n; ++j) {
      e_sx_[j] = static_cast<std::uint32_t>(edges.size());
      edges.emplace_back(kS, x(j));
    }
    for (pos_t i = 0; i < n; ++i) {
      e_io_[i] = static_cast<std::uint32_t>(edges.size());
      edges.emplace_back(yi(i), yo(i));
      e_t_[i] = static_cast<std::uint32_t>(edges.size());
      edges.emplace_back(yi(i), kT);
    }
    for (pos_t i = 0; i < n; ++i) {
      for (pos_t j : w.a.row(i)) edges.emplace_back(x(j), yi(i));
      for (pos_t j : w.b.row(i)) edges.emplace_back(yo(j), yi(i));
    }
    const std::size_t m = edges.size();
    to_.resize(2 * m);
    res_.assign(2 * m, 0);
    std::vector<std::uint64_t> deg(nodes_ + 1, 0);
    for (std::size_t e = 0; e < m; ++e) {
      to_[2 * e] = edges[e].second;
      to_[2 * e + 1] = edges[e].first;
      ++deg[edges[e].first + 1];
      ++deg[edges[e].second + 1];
      res_[2 * e] = 1;  // inner edges have capacity 1; the switchable ones are set below
    }
    for (std::uint32_t v = 0; v < nodes_; ++v) deg[v + 1] += deg[v];
    ptr_ = deg;
    adj_.resize(2 * m);
    std::vector<std::uint64_t> fill(ptr_.begin(), ptr_.end() - 1);
    for (std::size_t e = 0; e < m; ++e) {
      adj_[fill[edges[e].first]++] = static_cast<std::uint32_t>(2 * e);
      adj_[fill[edges[e].second]++] = static_cast<std::uint32_t>(2 * e + 1);
    }
    // K = 0: no sources, every y is a sink.
    for (pos_t j = 0; j < n; ++j) res_[2 * e_sx_[j]] = 0;
    for (pos_t i = 0; i < n; ++i) res_[2 * e_io_[i]] = 0;
    level_.assign(nodes_, -1);
    it_.assign(nodes_, 0);
  }

  /// Move the cut forward to k (sources x_0..x_{k-1}, sinks y_k..y_{n-1}) and return the max flow.
  std::uint32_t advance(pos_t k, FlowCutRanks& stats) {
    for (pos_t j = k_; j < k; ++j) res_[2 * e_sx_[j]] = 1;
    for (pos_t i = k_; i < k; ++i) {
      const std::uint32_t et = e_t_[i];
      if (res_[2 * et + 1] == 1) {  // a path ends at sink y_i: cancel it back to S
        res_[2 * et + 1] = 0;
        cancel_into(yi(i));
        --flow_;
        ++stats.cancelled;
      }
      res_[2 * et] = 0;
      res_[2 * e_io_[i]] = 1;
    }
    k_ = k;
    dinic(stats);
    return flow_;
  }

 private:
  static constexpr std::uint32_t kS = 0, kT = 1;
  std::uint32_t x(pos_t j) const { return 2 + j; }
  std::uint32_t yi(pos_t i) const { return 2 + n_ + i; }
  std::uint32_t yo(pos_t i) const { return 2 + 2 * n_ + i; }

  /// The unit entering v came along a forward arc with flow (its reverse arc has residual 1): undo it,
  /// and continue from its tail until S. Unit node capacities make the unit unique.
  void cancel_into(std::uint32_t v) {
    while (v != kS) {
      std::uint32_t next = kS;
      bool found = false;
      for (std::uint64_t q = ptr_[v]; q < ptr_[v + 1]; ++q) {
        const std::uint32_t a = adj_[q];
        if ((a & 1u) && res_[a] == 1) {
          res_[a] = 0;
          res_[a ^ 1u] = 1;
          next = to_[a];
          found = true;
          break;
        }
      }
      if (!found) throw RuntimeFailure("internal error: broken flow path in the cut-rank max-flow");
      v = next;
    }
  }

  bool bfs() {
    std::fill(level_.begin(), level_.end(), -1);
    queue_.clear();
    queue_.push_back(kS);
    level_[kS] = 0;
    for (std::size_t h = 0; h < queue_.size(); ++h) {
      const std::uint32_t u = queue_[h];
      for (std::uint64_t q = ptr_[u]; q < ptr_[u + 1]; ++q) {
        const std::uint32_t a = adj_[q];
        if (res_[a] && level_[to_[a]] < 0) {
          level_[to_[a]] = level_[u] + 1;
          queue_.push_back(to_[a]);
        }
      }
    }
    return level_[kT] >= 0;
  }

  void dinic(FlowCutRanks& stats) {
    while (bfs()) {
      ++stats.phases;
      for (std::uint32_t v = 0; v < nodes_; ++v) it_[v] = ptr_[v];
      stack_.clear();
      std::uint32_t u = kS;
      for (;;) {
        if (u == kT) {
          for (std::uint32_t a : stack_) {
            res_[a] = 0;
            res_[a ^ 1u] = 1;
          }
          ++flow_;
          ++stats.augmentations;
          stack_.clear();
          u = kS;
          continue;
        }
        bool advanced = false;
        for (; it_[u] < ptr_[u + 1]; ++it_[u]) {
          const std::uint32_t a = adj_[it_[u]];
          const std::uint32_t v = to_[a];
          if (res_[a] && level_[v] == level_[u] + 1) {
            stack_.push_back(a);
            u = v;
            advanced = true;
            break;
          }
        }
        if (advanced) continue;
        level_[u] = -1;  // dead end for this phase
        if (stack_.empty()) break;
        const std::uint32_t a = stack_.back();
        stack_.pop_back();
        u = to_[a ^ 1u];
        ++it_[u];
      }
    }
  }

  pos_t n_;
  std::uint32_t nodes_ = 0;
  std::vector<std::uint32_t> to_;
  std::vector<std::uint8_t> res_;
  std::vector<std::uint64_t> ptr_;
  std::vector<std::uint32_t> adj_;
  std::vector<std::uint32_t> e_sx_, e_io_, e_t_;
  std::vector<int> level_;
  std::vector<std::uint64_t> it_;
  std::vector<std::uint32_t> queue_, stack_;
  pos_t k_ = 0;
  std::uint32_t flow_ = 0;
};

}  // namespace

FlowCutRanks cut_ranks_flow(const WeightedPattern& w, const std::vector<pos_t>& cuts) {
  FlowCutRanks out;
  const pos_t n = w.a.n;
  std::vector<std::size_t> order(cuts.size());
  for (std::size_t c = 0; c < cuts.size(); ++c) {
    order[c] = c;
    if (cuts[c] < 1 || cuts[c] >= n)
      throw UsageError("cut " + std::to_string(cuts[c]) + " is outside 1.." + std::to_string(n - 1));
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return cuts[a] < cuts[b]; });
  out.cuts = cuts;
  out.rank.assign(cuts.size(), 0);
  LayeredFlow f(w);
  const CutProgressHook* progress = cut_progress_hook();  // after each cut; a throw stops the loop
  const auto* stop = cancel_flag();                       // and a CancelScope's flag, between cuts
  std::uint64_t done = 0;
  for (std::size_t c : order) {
    throw_if_cancelled(stop);
    out.rank[c] = f.advance(cuts[c], out);
    if (progress && *progress) (*progress)("cut ranks: flow", ++done, cuts.size());
  }
  return out;
}

}  // namespace mixgraph
