// Copy-task routings on the stacked graph: the shift routing of translation-invariant stacks, uniform
// shortest paths, negotiated rip-up-and-reroute, the collapsed pattern of the cut bound, and the checker.
#include <algorithm>
#include <limits>
#include <numeric>
#include <set>

#include "mixgraph/error.hpp"
#include "mixgraph/stack_congestion.hpp"

namespace mixgraph {

namespace {

constexpr std::int64_t kInfCost = std::numeric_limits<std::int64_t>::max() / 4;

struct Rng {
  std::uint64_t x;
  Rng(std::uint64_t seed, std::uint64_t stream) : x(seed ^ ((stream + 1) * 0xD1B54A32D192ED03ULL)) {}
  std::uint64_t next() {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

bool reads_a(const Pattern& p, pos_t v, pos_t u) {
  if (u > v) return false;
  if (p.a_mode == AMode::Diagonal) return u == v;
  if (p.a_mode == AMode::Shared) {
    if (u == v) return true;
    if (p.translation_invariant()) return std::binary_search(p.b_offsets.begin(), p.b_offsets.end(), v - u);
    auto r = p.b.row(v);
    return std::binary_search(r.begin(), r.end(), u);
  }
  if (p.translation_invariant()) return std::binary_search(p.a_offsets.begin(), p.a_offsets.end(), v - u);
  auto r = p.a.row(v);
  return std::binary_search(r.begin(), r.end(), u);
}

bool reads_b(const Pattern& p, pos_t v, pos_t u) {
  if (u >= v) return false;
  if (p.translation_invariant()) return std::binary_search(p.b_offsets.begin(), p.b_offsets.end(), v - u);
  auto r = p.b.row(v);
  return std::binary_search(r.begin(), r.end(), u);
}

/// Min-cost paths from (0, i) to (L, i + N) over copies 0..L of positions i..i+N. Entering a position
/// costs cost[v] (1 when cost is empty); a diagonal A edge costs nothing. Counts of min-cost paths pick
/// the path uniformly among the cheapest.
class WindowDp {
 public:
  WindowDp(const Stack& s, pos_t N) : s_(s), N_(N), L_(s.depth()) {
    dist_.resize((L_ + 1) * (static_cast<std::size_t>(N) + 1));
    cnt_.resize(dist_.size());
  }
  /// False when (L, i + N) cannot be reached. Appends the path to pos/cop.
  bool route(pos_t i, const std::vector<std::int64_t>& cost, Rng& rng, std::vector<pos_t>& pos,
             std::vector<std::uint16_t>& cop, std::uint64_t& work) {
    const std::size_t W = static_cast<std::size_t>(N_) + 1;
    auto c = [&](pos_t v) -> std::int64_t { return cost.empty() ? 1 : cost[v]; };
    std::fill(dist_.begin(), dist_.end(), kInfCost);
    std::fill(cnt_.begin(), cnt_.end(), 0.0);
    dist_[0] = c(i);
    cnt_[0] = 1;
    for (std::size_t w = 0; w < W; ++w) {
      const pos_t v = static_cast<pos_t>(i + w);
      for (std::size_t l = 1; l <= L_; ++l) {
        const Pattern& p = *s_.layers[l - 1];
        std::int64_t best = kInfCost;
        double count = 0;
        auto relax = [&](std::size_t k, std::int64_t add) {
          ++work;
          if (dist_[k] >= kInfCost) return;
          const std::int64_t val = dist_[k] + add;
          if (val < best) {
            best = val;
            count = cnt_[k];
          } else if (val == best) {
            count += cnt_[k];
          }
        };
        for_each_a_read(p, v, [&](pos_t u) {
          if (u >= i) relax((l - 1) * W + (u - i), u == v ? 0 : c(v));
        });
        for_each_b_read(p, v, [&](pos_t u) {
          if (u >= i) relax(l * W + (u - i), c(v));
        });
        dist_[l * W + w] = best;
        cnt_[l * W + w] = count;
      }
    }
    std::size_t cur = L_ * W + N_;
    if (dist_[cur] >= kInfCost) return false;
    std::vector<std::pair<std::uint16_t, pos_t>> back;
    while (true) {
      const std::size_t l = cur / W, w = cur % W;
      const pos_t v = static_cast<pos_t>(i + w);
      back.push_back({static_cast<std::uint16_t>(l), v});
      if (l == 0) break;  // only (0, i) is finite in copy 0
      const Pattern& p = *s_.layers[l - 1];
      std::vector<std::pair<std::size_t, double>> cand;
      auto take = [&](std::size_t k, std::int64_t add) {
        if (dist_[k] < kInfCost && dist_[k] + add == dist_[cur] && cnt_[k] > 0) cand.push_back({k, cnt_[k]});
      };
      for_each_a_read(p, v, [&](pos_t u) {
        if (u >= i) take((l - 1) * W + (u - i), u == v ? 0 : c(v));
      });
      for_each_b_read(p, v, [&](pos_t u) {
        if (u >= i) take(l * W + (u - i), c(v));
      });
      double total = 0;
      for (auto& [k, x] : cand) total += x;
      double r = rng.uniform() * total;
      std::size_t pick = cand.back().first;
      for (auto& [k, x] : cand) {
        if (r < x) {
          pick = k;
          break;
        }
        r -= x;
      }
      cur = pick;
    }
    for (auto it = back.rbegin(); it != back.rend(); ++it) {
      cop.push_back(it->first);
      pos.push_back(it->second);
    }
    return true;
  }

 private:
  const Stack& s_;
  pos_t N_;
  std::size_t L_;
  std::vector<std::int64_t> dist_;
  std::vector<double> cnt_;
};

/// Adds (or with sign -1 removes) a path's positions to loads, each position once.
void add_loads(std::vector<std::uint32_t>& loads, const pos_t* b, const pos_t* e, int sign) {
  for (const pos_t* q = b; q != e; ++q)
    if (q == b || *q != *(q - 1)) loads[*q] = static_cast<std::uint32_t>(static_cast<int>(loads[*q]) + sign);
}

std::vector<std::uint32_t> loads_of(const StackRouting& r, pos_t n) {
  std::vector<std::uint32_t> loads(n, 0);
  for (std::size_t i = 0; i + 1 < r.ptr.size(); ++i)
    add_loads(loads, r.nodes.data() + r.ptr[i], r.nodes.data() + r.ptr[i + 1], +1);
  return loads;
}

}  // namespace

std::uint64_t stack_route_work(const Stack& s, pos_t N) {
  std::uint64_t reads = 0;
  for (const auto& p : s.layers) {
    if (p->translation_invariant()) {
      const std::uint64_t a = p->a_mode == AMode::Shared     ? p->b_offsets.size() + 1
                              : p->a_mode == AMode::Diagonal ? 1
                                                             : p->a_offsets.size();
      reads += (a + p->b_offsets.size()) * (static_cast<std::uint64_t>(N) + 1);
    } else {
      const std::uint64_t a = p->a_mode == AMode::Shared     ? p->b.nnz() + p->n
                              : p->a_mode == AMode::Diagonal ? p->n
                                                             : p->a.nnz();
      reads += (a + p->b.nnz()) / 2 + 1;
    }
  }
  return reads + s.depth() * (static_cast<std::uint64_t>(N) + 1);
}

Pattern stack_collapsed_pattern(const Stack& s) {
  const Pattern& first = *s.layers.at(0);
  Pattern c;
  c.spec = s.spec + " (copies of each position merged)";
  c.base = c.spec;
  c.n = s.n;
  c.a_mode = AMode::Explicit;
  if (s.translation_invariant()) {
    c.family = PatternFamily::TranslationInvariant;
    std::set<pos_t> b;
    for (std::size_t l = 0; l < s.depth(); ++l) {
      const Pattern& p = *s.layers[l];
      b.insert(p.b_offsets.begin(), p.b_offsets.end());
      if (l > 0 && p.a_mode == AMode::Explicit)
        for (pos_t o : p.a_offsets)
          if (o != 0) b.insert(o);  // Shared A adds nothing beyond B; Diagonal nothing at all
    }
    c.b_offsets.assign(b.begin(), b.end());
    if (first.a_mode == AMode::Explicit) {
      c.a_offsets = first.a_offsets;
    } else {
      c.a_offsets = {0};
      if (first.a_mode == AMode::Shared)
        c.a_offsets.insert(c.a_offsets.end(), first.b_offsets.begin(), first.b_offsets.end());
    }
    std::sort(c.a_offsets.begin(), c.a_offsets.end());
    for (pos_t o : c.b_offsets) c.f_values.push_back(o);
    return c;
  }
  c.family = PatternFamily::Matrix;
  c.b.n = c.a.n = s.n;
  c.b.ptr.assign(1, 0);
  c.a.ptr.assign(1, 0);
  std::vector<pos_t> row;
  for (pos_t v = 0; v < s.n; ++v) {
    row.clear();
    for (std::size_t l = 0; l < s.depth(); ++l) {
      const Pattern& p = *s.layers[l];
      for_each_b_read(p, v, [&](pos_t u) { row.push_back(u); });
      if (l > 0)
        for_each_a_read(p, v, [&](pos_t u) {
          if (u != v) row.push_back(u);
        });
    }
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    c.b.idx.insert(c.b.idx.end(), row.begin(), row.end());
    c.b.ptr.push_back(c.b.idx.size());
    for_each_a_read(first, v, [&](pos_t u) { c.a.idx.push_back(u); });
    c.a.ptr.push_back(c.a.idx.size());
  }
  return c;
}

StackRouting stack_shift_routing(const Stack& s, pos_t N) {
  if (!s.translation_invariant())
    throw UsageError("the shift routing needs every layer translation-invariant (" + s.spec + ")");
  if (static_cast<std::uint64_t>(s.n) != 2ULL * N)
    throw UsageError("the copy task of length N needs the stack on 2N positions");
  const auto d = stack_distances_from(s, 0);
  const std::size_t L = s.depth();
  if (d[L][N] == UNREACHABLE) throw UsageError("the copy is impossible: y^(L)_{N+1} cannot read x_1");
  std::vector<std::pair<std::uint16_t, pos_t>> back;
  std::size_t l = L;
  pos_t v = N;
  while (true) {
    back.push_back({static_cast<std::uint16_t>(l), v});
    if (l == 0) break;
    const Pattern& p = *s.layers[l - 1];
    const std::uint32_t here = d[l][v];
    bool moved = false;
    for_each_a_read(p, v, [&](pos_t u) {
      if (moved || d[l - 1][u] == UNREACHABLE) return;
      if (d[l - 1][u] + (u == v ? 0u : 1u) == here) {
        moved = true;
        --l;
        v = u;
      }
    });
    if (!moved)
      for_each_b_read(p, v, [&](pos_t u) {
        if (!moved && d[l][u] != UNREACHABLE && d[l][u] + 1 == here) {
          moved = true;
          v = u;
        }
      });
    if (!moved) throw RuntimeFailure("internal error: no predecessor on a shortest stacked path");
  }
  if (back.back().second != 0) throw RuntimeFailure("internal error: the shift template misses x_1");
  std::reverse(back.begin(), back.end());
  StackRouting r;
  r.name = "shift";
  r.note = "one shortest stacked path of " + std::to_string(d[L][N]) + " hops, shifted to every input";
  r.ptr.reserve(static_cast<std::size_t>(N) + 1);
  r.nodes.reserve(static_cast<std::size_t>(N) * back.size());
  r.copies.reserve(r.nodes.capacity());
  r.ptr.push_back(0);
  for (pos_t i = 0; i < N; ++i) {
    for (auto& [cl, cv] : back) {
      r.copies.push_back(cl);
      r.nodes.push_back(cv + i);
    }
    r.ptr.push_back(r.nodes.size());
  }
  r.loads = loads_of(r, s.n);
  return r;
}

StackRouting stack_random_routing(const Stack& s, pos_t N, std::uint64_t seed,
                                  std::vector<pos_t>& unreachable) {
  StackRouting r;
  r.name = "random";
  r.note = "uniform among each input's shortest stacked paths, seed " + std::to_string(seed);
  // inputs in parallel (each seeded by its index: the same paths for any thread count)
  std::vector<std::vector<pos_t>> pos(N);
  std::vector<std::vector<std::uint16_t>> cop(N);
  std::vector<std::uint8_t> ok(N, 0);
#pragma omp parallel
  {
    WindowDp dp(s, N);
    std::uint64_t work = 0;
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(N); ++k) {
      const pos_t i = static_cast<pos_t>(k);
      Rng rng(seed, i);
      ok[i] = dp.route(i, {}, rng, pos[i], cop[i], work) ? 1 : 0;
    }
  }
  r.ptr.push_back(0);
  unreachable.clear();
  for (pos_t i = 0; i < N; ++i) {
    if (!ok[i]) unreachable.push_back(i);
    r.nodes.insert(r.nodes.end(), pos[i].begin(), pos[i].end());
    r.copies.insert(r.copies.end(), cop[i].begin(), cop[i].end());
    r.ptr.push_back(r.nodes.size());
  }
  r.loads = loads_of(r, s.n);
  return r;
}

StackRouting stack_minmax_routing(const Stack& s, pos_t N, const StackRouting& start, std::uint64_t seed,
                                  int rounds, std::uint32_t lower_bound, std::uint64_t max_work) {
  // paths as separate vectors (rerouting changes their lengths)
  std::vector<std::vector<pos_t>> pos(N);
  std::vector<std::vector<std::uint16_t>> cop(N);
  for (pos_t i = 0; i < N; ++i) {
    pos[i].assign(start.nodes.begin() + start.ptr[i], start.nodes.begin() + start.ptr[i + 1]);
    cop[i].assign(start.copies.begin() + start.ptr[i], start.copies.begin() + start.ptr[i + 1]);
  }
  std::vector<std::uint32_t> loads = loads_of(start, s.n);
  auto maxload = [&] { return *std::max_element(loads.begin(), loads.end()); };
  std::uint32_t best_c = maxload();
  auto best_pos = pos;
  auto best_cop = cop;
  std::vector<std::int64_t> hist(s.n, 0), cost(s.n, 1);
  const std::int64_t big = static_cast<std::int64_t>(N) + 1;
  WindowDp dp(s, N);
  Rng rng(seed, 0xC0FFEE);
  std::uint64_t work = 0;
  int used = 0;
  std::uint32_t target = best_c > 0 ? best_c - 1 : 0;
  while (used < rounds && target >= std::max<std::uint32_t>(1, lower_bound) && work < max_work) {
    ++used;
    std::vector<pos_t> order(N);
    std::iota(order.begin(), order.end(), pos_t{0});
    for (pos_t k = N; k > 1; --k) std::swap(order[k - 1], order[rng.next() % k]);
    for (pos_t i : order) {
      const bool over = std::any_of(pos[i].begin(), pos[i].end(), [&](pos_t v) { return loads[v] > target; });
      if (!over) continue;
      add_loads(loads, pos[i].data(), pos[i].data() + pos[i].size(), -1);
      for (pos_t v = 0; v < s.n; ++v)
        cost[v] =
            1 + hist[v] + big * std::max<std::int64_t>(0, static_cast<std::int64_t>(loads[v]) + 1 - target);
      std::vector<pos_t> np;
      std::vector<std::uint16_t> nc;
      Rng prng(seed ^ used, i);
      if (!dp.route(i, cost, prng, np, nc, work))
        throw RuntimeFailure("internal error: a routed input lost its path while rerouting");
      pos[i] = std::move(np);
      cop[i] = std::move(nc);
      add_loads(loads, pos[i].data(), pos[i].data() + pos[i].size(), +1);
      if (work >= max_work) break;
    }
    const std::uint32_t c = maxload();
    if (c < best_c) {
      best_c = c;
      best_pos = pos;
      best_cop = cop;
    }
    if (c <= target) {
      target = c > 0 ? c - 1 : 0;
    } else {
      for (pos_t v = 0; v < s.n; ++v)
        if (loads[v] > target) ++hist[v];
    }
  }
  StackRouting r;
  r.name = "minmax";
  r.note = std::to_string(used) + " rip-up-and-reroute rounds, seed " + std::to_string(seed);
  r.ptr.push_back(0);
  for (pos_t i = 0; i < N; ++i) {
    r.nodes.insert(r.nodes.end(), best_pos[i].begin(), best_pos[i].end());
    r.copies.insert(r.copies.end(), best_cop[i].begin(), best_cop[i].end());
    r.ptr.push_back(r.nodes.size());
  }
  r.loads = loads_of(r, s.n);
  return r;
}

RoutingStats check_stack_routing(const Stack& s, pos_t N, const StackRouting& r) {
  const std::size_t L = s.depth();
  auto fail = [&](pos_t i, const std::string& what) {
    throw RuntimeFailure("routing '" + r.name + "': the path of input " + std::to_string(i + 1) + " " + what);
  };
  if (r.ptr.size() != static_cast<std::size_t>(N) + 1 || r.nodes.size() != r.copies.size() ||
      r.ptr.back() != r.nodes.size())
    throw RuntimeFailure("routing '" + r.name + "': malformed (needs one path per input)");
  RoutingStats st;
  st.name = r.name;
  st.note = r.note;
  st.loads.assign(s.n, 0);
  std::uint64_t total = 0;
  st.min_len = std::numeric_limits<std::uint32_t>::max();
  for (pos_t i = 0; i < N; ++i) {
    const auto b = r.ptr[i], e = r.ptr[i + 1];
    if (b == e) fail(i, "is empty");
    if (r.copies[b] != 0 || r.nodes[b] != i) fail(i, "does not start at x_" + std::to_string(i + 1));
    if (r.copies[e - 1] != L || r.nodes[e - 1] != i + N)
      fail(i, "does not end at layer " + std::to_string(L) + "'s y_" + std::to_string(i + N + 1));
    std::uint32_t hops = 0;
    ++st.loads[r.nodes[b]];
    for (auto k = b + 1; k < e; ++k) {
      const std::size_t l0 = r.copies[k - 1], l1 = r.copies[k];
      const pos_t u = r.nodes[k - 1], v = r.nodes[k];
      bool ok = false;
      if (v < s.n && l1 == l0 + 1 && l1 <= L) ok = reads_a(*s.layers[l1 - 1], v, u);
      if (v < s.n && l1 == l0 && l1 >= 1) ok = reads_b(*s.layers[l1 - 1], v, u);
      if (!ok)
        fail(i, "has hop (copy " + std::to_string(l0) + ", position " + std::to_string(u + 1) +
                    ") -> (copy " + std::to_string(l1) + ", position " + std::to_string(v + 1) +
                    "), which is no edge of the stacked graph");
      if (v != u) {
        ++hops;
        ++st.loads[v];
      }
    }
    st.min_len = std::min(st.min_len, hops);
    st.max_len = std::max(st.max_len, hops);
    total += hops;
  }
  if (N == 0) st.min_len = 0;
  st.mean_len = N ? static_cast<double>(total) / N : 0.0;
  if (!r.loads.empty() && r.loads != st.loads)
    throw RuntimeFailure("routing '" + r.name + "': its own loads differ from the recount");
  st.congestion = st.loads.empty() ? 0 : *std::max_element(st.loads.begin(), st.loads.end());
  for (pos_t v = 0; v < s.n; ++v)
    if (st.loads[v] == st.congestion) {
      if (st.num_at_max == 0) st.argmax = v;
      ++st.num_at_max;
    }
  return st;
}

}  // namespace mixgraph
