// Copy-task routings: layered DAG view, distances, shift / random / minmax routings, the checker.
#include "mixgraph/routing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <random>

#include "mixgraph/cancel.hpp"
#include "mixgraph/commgraph.hpp"
#include "mixgraph/error.hpp"

namespace mixgraph {

namespace {

constexpr std::uint32_t INF = kUnreachable;

std::uint64_t mix64(std::uint64_t x) {  // splitmix64 finaliser: per-input seeds independent of threads
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double uniform01(std::uint64_t& state) {
  state = mix64(state);
  return static_cast<double>(state >> 11) * 0x1.0p-53;
}

bool sorted_contains(std::span<const pos_t> row, pos_t v) {
  return std::binary_search(row.begin(), row.end(), v);
}

// --- Independent hop checks against the Pattern itself (used by check_routing only) ---
bool pattern_b_reads(const Pattern& p, pos_t reader, pos_t j) {
  if (j >= reader) return false;
  if (p.translation_invariant())
    return std::binary_search(p.b_offsets.begin(), p.b_offsets.end(), reader - j);
  return sorted_contains(p.b.row(reader), j);
}
bool pattern_a_reads(const Pattern& p, pos_t reader, pos_t j) {
  if (j > reader) return false;
  switch (p.a_mode) {
    case AMode::Shared:
      return j == reader || pattern_b_reads(p, reader, j);
    case AMode::Diagonal:
      return j == reader;
    case AMode::Explicit:
      if (p.translation_invariant())
        return std::binary_search(p.a_offsets.begin(), p.a_offsets.end(), reader - j);
      return sorted_contains(p.a.row(reader), j);
  }
  return false;
}

}  // namespace

bool CopyGraph::first_hop_ok(pos_t u, pos_t v) const {
  if (v <= u || v >= n) return false;
  if (ti) {
    const pos_t o = v - u;
    if (explicit_a() && std::binary_search(a_off.begin(), a_off.end(), o)) return true;
    return has_diag(u) && std::binary_search(b_off.begin(), b_off.end(), o);
  }
  if (explicit_a() && sorted_contains(a_out.row(u), v)) return true;
  return has_diag(u) && sorted_contains(b_out.row(u), v);
}

std::uint64_t CopyGraph::num_b_edges() const {
  if (!ti) return b_in.nnz();
  std::uint64_t s = 0;
  for (pos_t o : b_off)
    if (o < n) s += n - o;
  return s;
}

CopyGraph make_copy_graph(Pattern p, pos_t N) {
  if (N < 1) throw UsageError("the copy length N must be >= 1");
  if (static_cast<std::uint64_t>(p.n) != 2ULL * N)
    throw UsageError("the copy task of length " + std::to_string(N) + " needs the pattern on 2N = " +
                     std::to_string(2ULL * N) + " positions, got n = " + std::to_string(p.n));
  CopyGraph g;
  g.N = N;
  g.n = p.n;
  g.ti = p.translation_invariant();
  g.a_only = p.b_empty();
  if (g.ti) {
    g.b_off = p.b_offsets;
    if (p.a_mode == AMode::Explicit) {
      g.ti_a_diag = false;
      for (pos_t o : p.a_offsets) {
        if (o == 0)
          g.ti_a_diag = true;
        else
          g.a_off.push_back(o);
      }
      std::sort(g.a_off.begin(), g.a_off.end());
    }
  } else {
    g.b_in = b_csr(p);
    g.b_in.val.clear();
    g.b_out = transpose(g.b_in);
    if (p.a_mode == AMode::Explicit) {
      Csr a = a_csr(p);
      a.val.clear();
      g.a_diag.assign(g.n, 0);
      Csr off;
      off.n = g.n;
      off.ptr.push_back(0);
      for (pos_t v = 0; v < g.n; ++v) {
        for (pos_t u : a.row(v)) {
          if (u == v)
            g.a_diag[v] = 1;
          else
            off.idx.push_back(u);
        }
        off.ptr.push_back(off.idx.size());
      }
      g.a_out = transpose(off);
    }
  }
  g.pattern = std::move(p);
  return g;
}

// A BFS over the copy task's own layered graph (first hop A or B, then B) that stops as soon as `stop`
// is settled: single_source_distances (lib/distances) would search the whole suffix.
std::vector<std::uint32_t> layered_bfs(const CopyGraph& g, pos_t s, pos_t stop) {
  std::vector<std::uint32_t> dist(g.n - s, INF);
  std::vector<pos_t> q;
  q.reserve(64);
  dist[0] = 0;
  bool done = false;
  g.for_each_first(s, [&](pos_t v) {
    if (dist[v - s] == INF) {
      dist[v - s] = 1;
      q.push_back(v);
      if (v == stop) done = true;
    }
  });
  for (std::size_t h = 0; h < q.size() && !done; ++h) {
    const pos_t u = q[h];
    const std::uint32_t du = dist[u - s] + 1;
    g.for_each_out(u, [&](pos_t v) {
      if (dist[v - s] == INF) {
        dist[v - s] = du;
        q.push_back(v);
        if (v == stop) done = true;
      }
    });
  }
  return dist;
}

std::vector<std::uint32_t> offset_distances(const std::vector<pos_t>& offsets, pos_t M) {
  // The distance profile of lib/distances (bitset BFS or coin-change DP), read as a plain vector.
  return offset_distance_profile(offsets, M + 1).to_vector();
}

std::vector<std::uint32_t> copy_distances(const CopyGraph& g) {
  const pos_t N = g.N;
  std::vector<std::uint32_t> d(N, INF);
  if (g.a_only) {
    for (pos_t i = 0; i < N; ++i)
      if (g.first_hop_ok(i, i + N)) d[i] = 1;
    return d;
  }
  if (g.ti && !g.explicit_a()) {
    const auto delta = offset_distances(g.b_off, N);
    std::fill(d.begin(), d.end(), delta[N]);
    return d;
  }
  const std::atomic<bool>* stop = cancel_flag();  // polled per input (no exception may leave the region)
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t ii = 0; ii < static_cast<std::int64_t>(N); ++ii) {
    if (cancel_requested(stop)) continue;
    const pos_t i = static_cast<pos_t>(ii);
    d[i] = layered_bfs(g, i, i + N)[N];
  }
  throw_if_cancelled(stop);
  return d;
}

std::uint64_t per_input_search_work(const CopyGraph& g) {
  if (g.a_only) return g.N;
  // Edges inside a window of N + 1 positions, times N inputs.
  const double frac = static_cast<double>(g.N) / std::max<pos_t>(1, g.n);
  return static_cast<std::uint64_t>(static_cast<double>(g.num_b_edges()) * frac * g.N) + g.N;
}

// ---------------------------------------------------------------------------------------------- checker

RoutingStats check_routing(const CopyGraph& g, const Routing& r) {
  const Pattern& p = g.pattern;
  const pos_t N = g.N;
  auto fail = [&](const std::string& w) {
    throw RuntimeFailure("internal error: routing '" + r.name + "' failed its check: " + w +
                         " (please report this)");
  };
  if (r.ptr.size() != static_cast<std::size_t>(N) + 1 || r.ptr[0] != 0 || r.ptr[N] != r.nodes.size())
    fail("it does not hold exactly one path per input");
  RoutingStats s;
  s.name = r.name;
  s.note = r.note;
  s.loads.assign(g.n, 0);
  std::uint64_t total_hops = 0;
  s.min_len = INF;
  for (pos_t i = 0; i < N; ++i) {
    const std::uint64_t b = r.ptr[i], e = r.ptr[i + 1];
    const std::string who = "path of input " + std::to_string(i + 1);
    if (e < b + 2) fail(who + " has fewer than two positions");
    if (r.nodes[b] != i) fail(who + " does not start at position " + std::to_string(i + 1));
    if (r.nodes[e - 1] != i + N) fail(who + " does not end at position " + std::to_string(i + N + 1));
    for (std::uint64_t k = b; k + 1 < e; ++k) {
      const pos_t u = r.nodes[k], v = r.nodes[k + 1];
      bool ok;
      if (k == b) {
        ok = v > u && ((p.a_mode == AMode::Explicit && pattern_a_reads(p, v, u)) ||
                       (pattern_a_reads(p, u, u) && pattern_b_reads(p, v, u)));
      } else {
        ok = pattern_b_reads(p, v, u);
      }
      if (!ok)
        fail(who + ": hop " + std::to_string(u + 1) + " -> " + std::to_string(v + 1) +
             " is not an edge of the pattern");
    }
    for (std::uint64_t k = b; k < e; ++k) {
      const pos_t v = r.nodes[k];
      if (v >= g.n) fail(who + " leaves 1..2N");
      ++s.loads[v];
    }
    const auto hops = static_cast<std::uint32_t>(e - b - 1);
    s.min_len = std::min(s.min_len, hops);
    s.max_len = std::max(s.max_len, hops);
    total_hops += hops;
  }
  if (N == 0) s.min_len = 0;
  s.mean_len = N ? static_cast<double>(total_hops) / N : 0;
  if (!r.loads.empty()) {
    if (r.loads.size() != g.n) fail("its load profile has the wrong length");
    for (pos_t v = 0; v < g.n; ++v)
      if (r.loads[v] != s.loads[v])
        fail("its load at position " + std::to_string(v + 1) + " is " + std::to_string(r.loads[v]) +
             " but the paths give " + std::to_string(s.loads[v]));
  }
  for (pos_t v = 0; v < g.n; ++v) {
    if (s.loads[v] > s.congestion) {
      s.congestion = s.loads[v];
      s.argmax = v;
      s.num_at_max = 0;
    }
    if (s.loads[v] == s.congestion) ++s.num_at_max;
  }
  return s;
}

// ---------------------------------------------------------------------------------------------- shift

namespace {
void require_ti_shared(const CopyGraph& g, const char* what) {
  if (!g.ti || g.explicit_a())
    throw UsageError(std::string(what) + " needs a translation-invariant pattern with B reads (pattern '" +
                     g.pattern.spec + "' is not)");
}
}  // namespace

Routing shift_routing(const CopyGraph& g, const std::vector<std::uint32_t>& delta_in) {
  const pos_t N = g.N;
  if (g.ti && g.a_only) {  // one A hop per input: the shift of the path (1, N+1)
    if (!g.first_hop_ok(0, N))
      throw UsageError("copy impossible: A of " + g.pattern.spec + " has no offset " + std::to_string(N));
    Routing r;
    r.name = "shift";
    r.note = "one A hop, shifted";
    r.ptr.resize(static_cast<std::size_t>(N) + 1);
    for (pos_t i = 0; i <= N; ++i) r.ptr[i] = 2ULL * i;
    for (pos_t i = 0; i < N; ++i) {
      r.nodes.push_back(i);
      r.nodes.push_back(i + N);
    }
    return r;
  }
  require_ti_shared(g, "the shift routing (Prop. 4.8)");
  const auto delta = delta_in.empty() ? offset_distances(g.b_off, N) : delta_in;
  if (delta[N] == INF)
    throw UsageError("copy impossible: " + std::to_string(N) + " is no sum of the offsets of " +
                     g.pattern.spec);
  std::vector<pos_t> rel{N};
  for (pos_t m = N; m > 0;) {
    pos_t next = m;
    for (auto it = g.b_off.rbegin(); it != g.b_off.rend(); ++it)
      if (*it <= m && delta[m - *it] != INF && delta[m - *it] + 1 == delta[m]) {
        next = m - *it;
        break;
      }
    m = next;
    rel.push_back(m);
  }
  std::reverse(rel.begin(), rel.end());
  Routing r;
  r.name = "shift";
  const std::size_t L = rel.size();
  r.ptr.resize(static_cast<std::size_t>(N) + 1);
  r.nodes.resize(static_cast<std::size_t>(N) * L);
  for (pos_t i = 0; i <= N; ++i) r.ptr[i] = static_cast<std::uint64_t>(i) * L;
  for (pos_t i = 0; i < N; ++i)
    for (std::size_t k = 0; k < L; ++k) r.nodes[static_cast<std::size_t>(i) * L + k] = i + rel[k];
  // Loads by a difference array over the relative path (independent of the checker's recount).
  std::vector<std::int64_t> diff(static_cast<std::size_t>(g.n) + 1, 0);
  for (pos_t m : rel) {
    diff[m] += 1;
    diff[m + N] -= 1;
  }
  r.loads.resize(g.n);
  std::int64_t run = 0;
  for (pos_t v = 0; v < g.n; ++v) r.loads[v] = static_cast<std::uint32_t>(run += diff[v]);
  r.note = "one shortest path 0 -> N (largest offsets first), shifted";
  return r;
}

// ---------------------------------------------------------------------------------------------- random

namespace {

/// The relative shortest-path DAG 0 -> N of a TI pattern: nodes m with delta(m) + delta(N-m) = d, their
/// shortest-path predecessors and (per layer normalised) path counts.
struct RelDag {
  std::vector<pos_t> nodes;          ///< ascending m
  std::vector<std::uint32_t> index;  ///< m -> index in nodes or INF
  std::vector<std::uint64_t> pptr;   ///< predecessors of nodes[k]: pidx[pptr[k]..pptr[k+1])
  std::vector<std::uint32_t> pidx;
  std::vector<double> cum;  ///< cumulative counts of the predecessors
};

RelDag build_rel_shortest_dag(const CopyGraph& g, const std::vector<std::uint32_t>& delta) {
  const pos_t N = g.N;
  const std::uint32_t d = delta[N];
  RelDag r;
  r.index.assign(static_cast<std::size_t>(N) + 1, INF);
  for (pos_t m = 0; m <= N; ++m)
    if (delta[m] != INF && delta[N - m] != INF && delta[m] + delta[N - m] == d) {
      r.index[m] = static_cast<std::uint32_t>(r.nodes.size());
      r.nodes.push_back(m);
    }
  // counts by layer, normalised per layer to avoid overflow (ratios within a layer are preserved)
  std::vector<double> cnt(r.nodes.size(), 0);
  std::vector<std::vector<std::uint32_t>> layers(d + 1);
  for (std::uint32_t k = 0; k < r.nodes.size(); ++k) layers[delta[r.nodes[k]]].push_back(k);
  r.pptr.assign(r.nodes.size() + 1, 0);
  std::vector<std::vector<std::uint32_t>> preds(r.nodes.size());
  for (std::uint32_t k = 0; k < r.nodes.size(); ++k) {
    const pos_t m = r.nodes[k];
    for (pos_t o : g.b_off) {
      if (o > m) break;
      const auto j = r.index[m - o];
      if (j != INF && delta[m - o] + 1 == delta[m]) preds[k].push_back(j);
    }
  }
  cnt[0] = 1;
  for (std::uint32_t L = 1; L <= d; ++L) {
    double mx = 0;
    for (auto k : layers[L]) {
      double c = 0;
      for (auto j : preds[k]) c += cnt[j];
      cnt[k] = c;
      mx = std::max(mx, c);
    }
    if (mx > 0)
      for (auto k : layers[L]) cnt[k] /= mx;
  }
  for (std::uint32_t k = 0; k < r.nodes.size(); ++k) {
    r.pptr[k + 1] = r.pptr[k] + preds[k].size();
    double c = 0;
    for (auto j : preds[k]) {
      r.pidx.push_back(j);
      c += cnt[j];
      r.cum.push_back(c);
    }
  }
  return r;
}

std::uint32_t pick_weighted(const std::vector<double>& cum, std::uint64_t b, std::uint64_t e,
                            const std::vector<std::uint32_t>& idx, std::uint64_t& state) {
  const double total = cum[e - 1];
  const double x = uniform01(state) * total;
  auto it = std::upper_bound(cum.begin() + static_cast<std::ptrdiff_t>(b),
                             cum.begin() + static_cast<std::ptrdiff_t>(e), x);
  std::uint64_t k = static_cast<std::uint64_t>(it - cum.begin());
  if (k >= e) k = e - 1;
  return idx[k];
}

}  // namespace

Routing random_routing(const CopyGraph& g, std::uint64_t seed, const std::vector<std::uint32_t>& delta_in) {
  const pos_t N = g.N;
  Routing r;
  r.name = "random";
  r.note = "uniform shortest paths, seed " + std::to_string(seed);
  r.ptr.assign(static_cast<std::size_t>(N) + 1, 0);
  if (g.a_only) {
    for (pos_t i = 0; i < N; ++i) {
      if (!g.first_hop_ok(i, i + N))
        throw UsageError("copy impossible: input " + std::to_string(i + 1) + " cannot reach its output");
      r.nodes.push_back(i);
      r.nodes.push_back(i + N);
      r.ptr[i + 1] = r.nodes.size();
    }
    return r;
  }
  if (g.ti && !g.explicit_a()) {
    const auto delta = delta_in.empty() ? offset_distances(g.b_off, N) : delta_in;
    if (delta[N] == INF)
      throw UsageError("copy impossible: " + std::to_string(N) + " is no sum of the offsets of " +
                       g.pattern.spec);
    const RelDag dag = build_rel_shortest_dag(g, delta);
    const std::size_t L = delta[N] + 1;
    r.nodes.resize(static_cast<std::size_t>(N) * L);
    for (pos_t i = 0; i <= N; ++i) r.ptr[i] = static_cast<std::uint64_t>(i) * L;
#pragma omp parallel for schedule(static)
    for (std::int64_t ii = 0; ii < static_cast<std::int64_t>(N); ++ii) {
      const pos_t i = static_cast<pos_t>(ii);
      std::uint64_t st = mix64(seed * 0x100000001b3ULL + i);
      std::uint32_t k = dag.index[N];
      std::size_t pos = L;
      r.nodes[static_cast<std::size_t>(i) * L + --pos] = i + N;
      while (dag.nodes[k] != 0) {
        k = pick_weighted(dag.cum, dag.pptr[k], dag.pptr[k + 1], dag.pidx, st);
        r.nodes[static_cast<std::size_t>(i) * L + --pos] = i + dag.nodes[k];
      }
    }
    return r;
  }
  // General: one BFS per input with per-layer normalised path counts, then backward sampling.
  std::vector<std::vector<pos_t>> paths(N);
  bool impossible = false;
  pos_t bad = 0;
  const std::atomic<bool>* stop = cancel_flag();  // polled per input (no exception may leave the region)
#pragma omp parallel
  {
    std::vector<std::uint32_t> dist(g.n, INF);
    std::vector<double> cnt(g.n, 0);
    std::vector<pos_t> q;
#pragma omp for schedule(dynamic, 8)
    for (std::int64_t ii = 0; ii < static_cast<std::int64_t>(N); ++ii) {
      if (cancel_requested(stop)) continue;
      const pos_t s = static_cast<pos_t>(ii), t = s + N;
      q.clear();
      dist[s] = 0;
      cnt[s] = 1;
      q.push_back(s);
      std::size_t h = 0;
      std::size_t layer_end = 1;  // q[h..layer_end) is the current layer
      std::uint32_t cur = 0;
      std::size_t next_start = 1;
      while (h < q.size()) {
        if (dist[t] != INF && dist[t] <= cur) break;
        for (; h < layer_end; ++h) {
          const pos_t u = q[h];
          auto relax = [&](pos_t v) {
            if (v > t) return;
            if (dist[v] == INF) {
              dist[v] = cur + 1;
              cnt[v] = cnt[u];
              q.push_back(v);
            } else if (dist[v] == cur + 1) {
              cnt[v] += cnt[u];
            }
          };
          if (u == s)
            g.for_each_first(u, relax);
          else
            g.for_each_out(u, relax);
        }
        double mx = 0;
        for (std::size_t k = next_start; k < q.size(); ++k) mx = std::max(mx, cnt[q[k]]);
        if (mx > 0)
          for (std::size_t k = next_start; k < q.size(); ++k) cnt[q[k]] /= mx;
        next_start = q.size();
        layer_end = q.size();
        ++cur;
      }
      if (dist[t] == INF) {
#pragma omp critical
        {
          if (!impossible || s < bad) bad = s;
          impossible = true;
        }
      } else {
        std::uint64_t st = mix64(seed * 0x100000001b3ULL + s);
        auto& path = paths[s];
        path.push_back(t);
        pos_t v = t;
        std::vector<double> cum;
        std::vector<pos_t> cand;
        while (v != s) {
          if (dist[v] == 1) {
            v = s;
          } else {
            cum.clear();
            cand.clear();
            double c = 0;
            g.for_each_in(v, [&](pos_t u) {
              if (u > s && dist[u] != INF && dist[u] + 1 == dist[v]) {
                c += cnt[u];
                cum.push_back(c);
                cand.push_back(u);
              }
            });
            const double x = uniform01(st) * c;
            std::size_t k =
                static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), x) - cum.begin());
            if (k >= cand.size()) k = cand.size() - 1;
            v = cand[k];
          }
          path.push_back(v);
        }
        std::reverse(path.begin(), path.end());
      }
      for (pos_t u : q) {
        dist[u] = INF;
        cnt[u] = 0;
      }
    }
  }
  throw_if_cancelled(stop);
  if (impossible)
    throw UsageError("copy impossible: input " + std::to_string(bad + 1) + " cannot reach output " +
                     std::to_string(bad + N + 1));
  for (pos_t i = 0; i < N; ++i) {
    r.nodes.insert(r.nodes.end(), paths[i].begin(), paths[i].end());
    r.ptr[i + 1] = r.nodes.size();
  }
  return r;
}

// ---------------------------------------------------------------------------------------------- minmax

namespace {

/// TI candidate DAG: relative nodes m in [0, N] with delta(m) + delta(N - m) <= d + slack, edges m -> m + o.
struct CandDag {
  std::vector<pos_t> nodes;         ///< ascending
  std::vector<std::uint64_t> pptr;  ///< predecessors (indices into nodes)
  std::vector<std::uint32_t> pidx;
  std::uint64_t edges() const { return pidx.size(); }
};

std::uint64_t count_cand_edges(const CopyGraph& g, const std::vector<std::uint32_t>& delta, int slack) {
  const pos_t N = g.N;
  const std::uint64_t lim = static_cast<std::uint64_t>(delta[N]) + static_cast<std::uint64_t>(slack);
  auto in = [&](pos_t m) {
    return delta[m] != INF && delta[N - m] != INF &&
           static_cast<std::uint64_t>(delta[m]) + delta[N - m] <= lim;
  };
  std::uint64_t e = 0;
  for (pos_t m = 0; m <= N; ++m) {
    if (!in(m)) continue;
    for (pos_t o : g.b_off) {
      if (o > m) break;
      if (in(m - o)) ++e;
    }
  }
  return e;
}

CandDag build_cand_dag(const CopyGraph& g, const std::vector<std::uint32_t>& delta, int slack) {
  const pos_t N = g.N;
  const std::uint64_t lim = static_cast<std::uint64_t>(delta[N]) + static_cast<std::uint64_t>(slack);
  CandDag c;
  std::vector<std::uint32_t> index(static_cast<std::size_t>(N) + 1, INF);
  for (pos_t m = 0; m <= N; ++m)
    if (delta[m] != INF && delta[N - m] != INF &&
        static_cast<std::uint64_t>(delta[m]) + delta[N - m] <= lim) {
      index[m] = static_cast<std::uint32_t>(c.nodes.size());
      c.nodes.push_back(m);
    }
  c.pptr.push_back(0);
  for (pos_t m : c.nodes) {
    for (pos_t o : g.b_off) {
      if (o > m) break;
      if (index[m - o] != INF) c.pidx.push_back(index[m - o]);
    }
    c.pptr.push_back(c.pidx.size());
  }
  return c;
}

}  // namespace

std::uint64_t minmax_round_work(const CopyGraph& g, const std::vector<std::uint32_t>& delta) {
  if (g.a_only) return g.N;
  if (g.ti && !g.explicit_a()) return static_cast<std::uint64_t>(g.N) * count_cand_edges(g, delta, 0) + g.N;
  return per_input_search_work(g);
}

Routing minmax_routing(const CopyGraph& g, const Routing& start, const MinmaxOptions& opt,
                       const std::vector<std::uint32_t>& delta_in) {
  const pos_t N = g.N;
  const pos_t n = g.n;
  std::vector<std::vector<pos_t>> paths(N);
  for (pos_t i = 0; i < N; ++i)
    paths[i].assign(start.nodes.begin() + static_cast<std::ptrdiff_t>(start.ptr[i]),
                    start.nodes.begin() + static_cast<std::ptrdiff_t>(start.ptr[i + 1]));
  std::vector<std::uint32_t> load(n, 0);
  for (auto& p : paths)
    for (pos_t v : p) ++load[v];
  auto max_load = [&] { return *std::max_element(load.begin(), load.end()); };
  Routing best;
  best.name = "minmax";
  best.ptr = start.ptr;
  best.nodes = start.nodes;
  std::uint32_t best_c = max_load();
  std::string how = "started from '" + start.name + "' (congestion " + std::to_string(best_c) + ")";
  auto finish = [&](const std::string& extra) {
    best.loads.assign(n, 0);
    for (pos_t v : best.nodes) ++best.loads[v];
    best.note = how + extra;
    return best;
  };
  if (g.a_only || best_c <= opt.lower_bound || best_c <= 1) return finish("; already at the lower bound");

  // Candidate structure.
  const bool ti = g.ti && !g.explicit_a();
  CandDag cand;
  int slack = 0;
  if (ti) {
    const auto delta = delta_in.empty() ? offset_distances(g.b_off, N) : delta_in;
    if (opt.slack >= 0) {
      slack = opt.slack;
    } else {
      slack = 0;
      for (int s = 2; s >= 1; --s)
        if (static_cast<double>(N) * static_cast<double>(count_cand_edges(g, delta, s)) <=
            static_cast<double>(opt.round_budget)) {
          slack = s;
          break;
        }
    }
    cand = build_cand_dag(g, delta, slack);
    how += ", candidate paths within d + " + std::to_string(slack) + " hops' node set";
  } else {
    how += ", candidate paths: every path in the window [i, i+N]";
  }

  std::vector<double> hist(n, 0.0);
  const double BIG = static_cast<double>(N + 2) * (2.0 + opt.max_rounds);
  std::vector<double> cost(ti ? cand.nodes.size() : n);
  std::vector<std::uint32_t> from(ti ? cand.nodes.size() : n);
  std::vector<std::uint8_t> first_mark(ti ? 0 : n, 0);
  std::uint32_t target = best_c - 1;
  int since_success = 0;
  int rounds = 0;
  std::vector<pos_t> order(N);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(opt.seed);

  auto node_cost = [&](pos_t v) {
    const double over = load[v] + 1.0 > target ? load[v] + 1.0 - target : 0.0;
    return 1.0 + hist[v] + BIG * over;
  };
  constexpr double DINF = std::numeric_limits<double>::infinity();

  auto reroute = [&](pos_t s) {
    const pos_t t = s + N;
    auto& p = paths[s];
    for (pos_t v : p) --load[v];
    p.clear();
    if (ti) {
      const std::size_t K = cand.nodes.size();
      cost[0] = node_cost(s);
      for (std::size_t k = 1; k < K; ++k) {
        double b = DINF;
        std::uint32_t arg = INF;
        for (std::uint64_t e = cand.pptr[k]; e < cand.pptr[k + 1]; ++e) {
          const auto j = cand.pidx[e];
          if (cost[j] < b) {
            b = cost[j];
            arg = j;
          }
        }
        cost[k] = b == DINF ? DINF : b + node_cost(s + cand.nodes[k]);
        from[k] = arg;
      }
      for (std::uint32_t k = static_cast<std::uint32_t>(K - 1);; k = from[k]) {
        p.push_back(s + cand.nodes[k]);
        if (k == 0) break;
      }
    } else {
      g.for_each_first(s, [&](pos_t v) {
        if (v <= t) first_mark[v] = 1;
      });
      cost[s] = node_cost(s);
      for (pos_t v = s + 1; v <= t; ++v) {
        double b = DINF;
        std::uint32_t arg = INF;
        if (first_mark[v]) {
          b = cost[s];
          arg = s;
        }
        g.for_each_in(v, [&](pos_t u) {
          if (u > s && cost[u] < b) {
            b = cost[u];
            arg = u;
          }
        });
        cost[v] = b == DINF ? DINF : b + node_cost(v);
        from[v] = arg;
      }
      g.for_each_first(s, [&](pos_t v) {
        if (v <= t) first_mark[v] = 0;
      });
      for (pos_t v = t;; v = from[v]) {
        p.push_back(v);
        if (v == s) break;
      }
    }
    std::reverse(p.begin(), p.end());
    for (pos_t v : p) ++load[v];
  };

  // Target schedule: after a round that meets the target, the step below the best congestion doubles;
  // after patience/2 failed rounds it halves (back to 1). Stops after max_rounds, after `patience` failed
  // rounds at step 1, at the lower bound, or when the edge-visit budget is spent (deterministic).
  std::uint32_t step = 1;
  std::uint64_t work = 0;
  const std::uint64_t per_reroute =
      ti ? cand.edges() + cand.nodes.size() : (per_input_search_work(g) / std::max<pos_t>(1, N));
  const std::atomic<bool>* stop = cancel_flag();
  while (rounds < opt.max_rounds && work < opt.max_work) {
    ++rounds;
    std::shuffle(order.begin(), order.end(), rng);
    std::uint32_t polled = 0;
    for (pos_t s : order) {
      if ((++polled & 255) == 0) throw_if_cancelled(stop);
      bool hot = false;
      for (pos_t v : paths[s])
        if (load[v] > target) {
          hot = true;
          break;
        }
      if (hot) {
        reroute(s);
        work += per_reroute;
      }
    }
    const std::uint32_t c = max_load();
    if (c < best_c) {
      best_c = c;
      best.ptr.assign(1, 0);
      best.nodes.clear();
      for (auto& p : paths) {
        best.nodes.insert(best.nodes.end(), p.begin(), p.end());
        best.ptr.push_back(best.nodes.size());
      }
    }
    if (best_c <= opt.lower_bound) break;
    if (c <= target) {
      since_success = 0;
      step *= 2;
    } else {
      ++since_success;
      for (pos_t v = 0; v < n; ++v)
        if (load[v] > target) hist[v] += 1.0;
      if (step > 1 && since_success >= std::max(1, opt.patience / 2)) {
        step /= 2;
        since_success = 0;
      } else if (step == 1 && since_success >= opt.patience) {
        break;
      } else {
        continue;
      }
    }
    target = best_c - std::min(step, best_c - std::max<std::uint32_t>(opt.lower_bound, 1));
    if (target >= best_c) target = best_c - 1;
  }
  return finish("; " + std::to_string(rounds) + " rip-up-and-reroute rounds, final congestion " +
                std::to_string(best_c));
}

}  // namespace mixgraph
