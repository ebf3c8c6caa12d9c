// Cut ranks of the product operator M = M_L ... M_1 of a stack (docs/math.md §5 and "Stacked layers"):
// Menger ranks by max-flow on the stacked graph, numeric ranks of the dense product with seeded weights.
#include <algorithm>
#include <limits>

#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/rank_progress.hpp"
#include "mixgraph/stack.hpp"
#include "rank/cut_loop.hpp"
#include "rank/dense_cut_ranks.hpp"

namespace mixgraph {

namespace {

/// Unit-capacity Dinic on a fixed arc set; arcs 2k and 2k + 1 are each other's reverse. Runs resume from
/// the current flow, and may be confined to the nodes whose position lies in a window.
class UnitFlow {
 public:
  static constexpr std::uint32_t kAny = std::numeric_limits<std::uint32_t>::max();
  /// pos[v]: node v's position (kAny: allowed in every window, the source and the sink).
  explicit UnitFlow(std::vector<std::uint32_t> pos)
      : nodes_(static_cast<std::uint32_t>(pos.size())), pos_(std::move(pos)) {}
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
    std::vector<std::uint32_t>().swap(from_);  // the tails are in the CSR now
    cap_.assign(to_.size(), 0);
    for (std::size_t a = 0; a < cap_.size(); a += 2) cap_[a] = 1;
    level_.assign(nodes_, kNone);
    it_.assign(nodes_, 0);
  }
  /// Sets forward arc a to capacity c with no flow on it (a must carry no flow, or the flow is reset).
  void set_arc(std::size_t a, std::uint8_t c) {
    cap_[a] = c;
    cap_[a ^ 1] = 0;
  }
  /// Removes every unit of flow: inner arcs back to capacity 1 (the switchable arcs are set by set_arc).
  void clear_flow() {
    for (std::size_t a = 0; a < cap_.size(); a += 2)
      if (cap_[a + 1]) {
        cap_[a] = 1;
        cap_[a + 1] = 0;
      }
  }
  /// Augments the current flow to a maximum one among the nodes with position in [lo, hi) (and kAny);
  /// returns the units added. O(E' sqrt(V')) on the touched part.
  std::uint32_t augment(std::uint32_t s, std::uint32_t t, std::uint32_t lo, std::uint32_t hi) {
    const std::uint32_t width = hi - lo;
    auto inside = [&](std::uint32_t v) { return pos_[v] == kAny || pos_[v] - lo < width; };
    std::uint32_t flow = 0;
    for (;;) {
      // BFS levels from s, expanding only nodes below t's level; every touched node is in queue_
      queue_.assign(1, s);
      level_[s] = 0;
      it_[s] = first_[s];
      for (std::size_t h = 0; h < queue_.size() && level_[t] == kNone; ++h) {
        const auto u = queue_[h];
        for (auto k = first_[u]; k < first_[u + 1]; ++k) {
          const auto a = order_[k];
          const auto v = to_[a];
          if (cap_[a] && level_[v] == kNone && inside(v)) {
            level_[v] = level_[u] + 1;
            it_[v] = first_[v];
            queue_.push_back(v);
          }
        }
      }
      const bool reached = level_[t] != kNone;
      if (reached) flow += blocking_flow(s, t);
      for (auto v : queue_) level_[v] = kNone;
      if (!reached) return flow;
    }
  }

 private:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  /// Iterative DFS along level-increasing arcs; stack_ holds the arcs of the current path.
  std::uint32_t blocking_flow(std::uint32_t s, std::uint32_t t) {
    std::uint32_t flow = 0;
    const std::uint32_t lt = level_[t];
    for (;;) {
      stack_.clear();
      std::uint32_t u = s;
      bool found = false;
      for (;;) {
        if (u == t) {
          found = true;
          break;
        }
        bool advanced = false;
        if (level_[u] < lt)
          for (; it_[u] < first_[u + 1]; ++it_[u]) {
            const auto a = order_[it_[u]];
            const auto v = to_[a];
            if (cap_[a] && level_[v] == level_[u] + 1) {
              stack_.push_back(a);
              u = v;
              advanced = true;
              break;
            }
          }
        if (advanced) continue;
        if (stack_.empty()) break;
        level_[u] = kDead;  // dead end for this phase (still reset with the queue)
        const auto a = stack_.back();
        stack_.pop_back();
        u = to_[a ^ 1];
        ++it_[u];
      }
      if (!found) return flow;
      for (auto a : stack_) {
        --cap_[a];
        ++cap_[a ^ 1];
      }
      ++flow;
    }
  }
  static constexpr std::uint32_t kDead = kNone - 1;

  std::uint32_t nodes_;
  std::vector<std::uint32_t> pos_, from_, to_, order_;
  std::vector<std::size_t> first_, it_;
  std::vector<std::uint8_t> cap_;
  std::vector<std::uint32_t> level_, queue_, stack_;
};

std::vector<pos_t> default_cuts(pos_t n) {
  return n <= 1024 ? all_cuts(n) : spaced_cuts(n, 64);
}

// After each cut of a serial loop: the hook of rank_progress.hpp, if any (it may throw to stop the loop).
void cut_done(const char* what, std::uint64_t done, std::uint64_t total) {
  if (const auto* hook = cut_progress_hook()) (*hook)(what, done, total);
}

/// Reads of B and of A of one layer (A's diagonal included), counted from its offsets or rows: no matrix
/// is built. Saturating.
std::uint64_t layer_reads(const Pattern& p) {
  const std::uint64_t n = p.n;
  auto offsets = [&](const std::vector<pos_t>& offs) {
    std::uint64_t s = 0;
    for (pos_t o : offs)
      if (o < n) s = sat_add(s, n - o);
    return s;
  };
  const bool ti = p.family == PatternFamily::TranslationInvariant;
  const std::uint64_t b = ti ? offsets(p.b_offsets) : p.b.nnz();
  std::uint64_t a = n;  // the diagonal
  if (p.a_mode == AMode::Shared) a = sat_add(b, n);
  if (p.a_mode == AMode::Explicit) a = ti ? offsets(p.a_offsets) : p.a.nnz();
  return sat_add(a, b);
}

/// Reads of every layer of the stack (each layer counted once per occurrence).
std::uint64_t stack_reads(const Stack& s) {
  std::uint64_t e = 0;
  for (const auto& layer : s.layers) e = sat_add(e, layer_reads(*layer));
  return e;
}

/// Bytes of the flow network of flow_ranks, at its peak (while the arcs are sorted): V nodes of 28 bytes
/// (position, two CSR offsets, level, queue) and F forward arcs, each with its reverse: tails, heads (both
/// with vector growth slack), order and capacity.
std::uint64_t flow_bytes(const Stack& s) {
  const std::uint64_t n = s.n, L = s.depth();
  const std::uint64_t nodes = sat_add(sat_mul(sat_mul(2, L + 1), n), 2);
  const std::uint64_t arcs = sat_add(sat_add(sat_mul(L + 1, n), stack_reads(s)), sat_mul(2, n));
  return sat_add(sat_mul(nodes, 28), sat_mul(arcs, 2 * (8 + 8 + 4 + 1)));
}

std::vector<std::uint32_t> flow_ranks(const Stack& s, const std::vector<pos_t>& cuts, pos_t window,
                                      std::uint64_t done, std::uint64_t total) {
  const std::uint64_t n = s.n, L = s.depth();
  const std::uint64_t nodes64 = 2 * (L + 1) * n + 2;
  if (nodes64 > std::numeric_limits<std::uint32_t>::max() / 2)
    throw RuntimeFailure("stack '" + s.spec + "': the stacked graph is too large for the flow ranks");
  const auto nodes = static_cast<std::uint32_t>(nodes64);
  const std::uint32_t src = nodes - 2, snk = nodes - 1;
  auto in = [&](std::uint64_t l, pos_t i) { return static_cast<std::uint32_t>(2 * (l * n + i)); };
  std::vector<std::uint32_t> pos(nodes, UnitFlow::kAny);
  for (std::uint64_t v = 0; v + 2 < nodes; ++v) pos[v] = static_cast<std::uint32_t>((v / 2) % n);
  UnitFlow g(std::move(pos));
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
  // Per cut: a maximum flow among the positions within `w` of the cut (a valid flow of the whole graph),
  // w growing 4x while that adds paths, then Dinic on the whole graph resumes from it, which proves it
  // maximum with one search when nothing is missing. The answer is the whole graph's max flow either way.
  std::vector<std::uint32_t> out;
  for (pos_t k : cuts) {
    g.clear_flow();
    for (pos_t i = 0; i < n; ++i) {
      g.set_arc(src_arc[i], i < k ? 1 : 0);
      g.set_arc(snk_arc[i], i >= k ? 1 : 0);
    }
    std::uint32_t flow = 0;
    for (std::uint64_t w = window; w > 0 && w < n; w *= 4) {
      const auto lo = static_cast<std::uint32_t>(k > w ? k - w : 0);
      const auto hi = static_cast<std::uint32_t>(std::min<std::uint64_t>(n, k + w));
      const std::uint32_t added = g.augment(src, snk, lo, hi);
      flow += added;
      if (added == 0 && w > window) break;  // the window stopped adding paths
    }
    flow += g.augment(src, snk, 0, static_cast<std::uint32_t>(n));
    out.push_back(flow);
    cut_done("cut ranks: flow", ++done, total);
  }
  return out;
}

/// While alive: the thread's cut-progress hook, if any, is told counts out of `total` by a cut loop that
/// reports them out of its own cuts (the numeric loop of stack_cut_ranks, before the flow loop).
class ProgressOutOf {
 public:
  explicit ProgressOutOf(std::uint64_t total)
      : outer_(cut_progress_hook()),
        scaled_([this, total](const std::string& what, std::uint64_t done, std::uint64_t) {
          (*outer_)(what, done, total);
        }),
        scope_(outer_ && *outer_ ? &scaled_ : nullptr) {}

 private:
  const CutProgressHook* outer_;
  CutProgressHook scaled_;
  CutProgressScope scope_;
};

/// Every layer's weights seeded (generic), none from .mtx values.
bool every_layer_generic(const Stack& s) {
  return std::none_of(s.layers.begin(), s.layers.end(), [](const auto& l) { return has_file_weights(*l); });
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
  if (opt.flow)  // before the numeric ranks, so --method both refuses before any work
    check_memory(flow_bytes(s), opt.mem_limit,
                 "stack '" + s.spec + "' flow network at n = " + std::to_string(s.n) + " (" +
                     std::to_string(s.depth()) + " layers)");
  const bool exact =
      opt.numeric &&
      (opt.exact || (opt.exact_if_generic && s.n <= opt.numeric_limit && every_layer_generic(s)));
  const std::uint64_t loops = opt.flow ? 2 : 1;  // progress counts run over the numeric and flow loops
  if (exact) {
    // before any weight is drawn: per distinct layer its CSR rows and values (12 bytes a read, 16 a row),
    // and over GF(p) 8 bytes a read of every layer
    {
      std::uint64_t bytes = sat_mul(stack_reads(s), 8);
      std::vector<const Pattern*> counted;
      for (const auto& layer : s.layers)
        if (std::find(counted.begin(), counted.end(), layer.get()) == counted.end()) {
          counted.push_back(layer.get());
          bytes =
              sat_add(bytes, sat_add(sat_mul(layer_reads(*layer), 12), sat_mul(std::uint64_t{s.n} + 1, 16)));
        }
      check_memory(bytes, opt.mem_limit,
                   "stack '" + s.spec + "' weights over GF(2^61-1) at n = " + std::to_string(s.n));
    }
    std::vector<InducedWeights> distinct;  // sparsity only: one per distinct layer
    std::vector<std::size_t> which;
    std::vector<const Pattern*> seen;
    for (const auto& layer : s.layers) {
      const auto at = std::find(seen.begin(), seen.end(), layer.get());
      if (at == seen.end()) {
        distinct.push_back(induced_weights(*layer, opt.seed));
        if (!distinct.back().generic)
          throw UsageError("stack '" + s.spec +
                           "': rank --method exact draws generic weights over a prime field, but a layer's "
                           "weights come from its .mtx files: use --method both or dense");
        seen.push_back(layer.get());
      }
      which.push_back(
          static_cast<std::size_t>(std::find(seen.begin(), seen.end(), layer.get()) - seen.begin()));
    }
    std::vector<const WeightedPattern*> layers;
    std::uint64_t nnz = 0;
    for (auto k : which) {
      layers.push_back(&distinct[k].w);
      nnz = sat_add(nnz, distinct[k].w.a.nnz() + distinct[k].w.b.nnz());
    }
    check_memory(sat_mul(nnz, 8), opt.mem_limit,
                 "stack '" + s.spec + "' weights over GF(2^61-1) at n = " + std::to_string(s.n));
    NumericRankOptions no;
    no.seed = opt.seed;
    no.mem_limit = opt.mem_limit;
    const ProgressOutOf progress(loops * r.cuts.size());
    auto ex = cut_ranks_exact_product(layers, r.cuts, no);
    r.numeric = std::move(ex.rank);
    r.numeric_method = "exact";
    r.exact_rule = std::move(ex.rule);
    r.failure_bound = ex.failure_bound;
    r.tolerance = 0.0;
    r.numeric_done = true;
  } else if (opt.numeric && s.n <= opt.numeric_limit) {
    const std::uint64_t n = s.n;
    // three dense n x n matrices, a block of about n^2 / 4 per thread of the cut loop, and every layer's
    // weights (own seed per layer: none shared), built first
    std::uint64_t weights = 0;
    for (const auto& layer : s.layers)
      weights = sat_add(weights, sat_add(sat_mul(layer_reads(*layer), 12), sat_mul(n + 1, 16)));
    const std::uint64_t blocks =
        sat_mul(static_cast<std::uint64_t>(detail::loop_threads()), sat_mul(8, n * n / 4 + n));
    check_memory(sat_add(sat_add(sat_mul(sat_mul(n, n), 24), blocks), weights), opt.mem_limit,
                 "stack '" + s.spec + "' dense product at n = " + std::to_string(n) + " (" +
                     std::to_string(s.depth()) + " layers)");
    std::vector<WeightedPattern> w;
    for (std::size_t l = 0; l < s.depth(); ++l) w.push_back(induced_weights(*s.layers[l], opt.seed + l).w);
    const Eigen::MatrixXd mt = stack_operator_transposed(w);
    const ProgressOutOf progress(loops * r.cuts.size());
    std::vector<double> kept, dropped;
    r.numeric = detail::dense_cut_ranks(mt, r.cuts, r.tolerance, kept, dropped);
    r.numeric_done = true;
  }
  if (opt.flow) {
    const std::uint64_t before = r.numeric_done ? r.cuts.size() : 0;
    r.flow = flow_ranks(s, r.cuts, opt.flow_window, before, before + r.cuts.size());
    r.flow_done = true;
  }
  const auto& best = r.flow_done ? r.flow : r.numeric;
  for (std::size_t c = 0; c < best.size(); ++c)
    if (c == 0 || best[c] > r.max_cut_rank) {  // the first K reaching the max (the first cut if all 0)
      r.max_cut_rank = best[c];
      r.argmax_cut = r.cuts[c];
    }
  if (r.numeric_done && r.flow_done)
    for (std::size_t c = 0; c < r.cuts.size(); ++c)
      if (r.numeric[c] > r.flow[c]) r.numeric_above_flow.push_back(r.cuts[c]);
  return r;
}

}  // namespace mixgraph
