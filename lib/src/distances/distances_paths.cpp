// Single-source and single-target distances and shortest-path counts on any pattern (docs/math.md §3).
// Every B edge goes from an earlier to a later position, so position order is a topological order of the
// layered DAG: a BFS reduces to one pass over B's rows (forward for a source, backward for a target).
#include <algorithm>

#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"

namespace mixgraph {

namespace {

void check_position(const Pattern& p, pos_t pos, const char* what) {
  if (pos >= p.n)
    throw UsageError(std::string(what) + " " + std::to_string(std::uint64_t{pos} + 1) + " is outside 1.." +
                     std::to_string(p.n));
}

inline std::uint32_t plus1(std::uint32_t d) {
  return d == UNREACHABLE ? UNREACHABLE : d + 1;
}

/// Translation-invariant shared/diagonal patterns: d(i, j) = delta(i - j).
bool profile_route(const Pattern& p) {
  return p.translation_invariant() && p.a_mode != AMode::Explicit;
}

/// Calls fn(i, d) for each A edge x_source -> y_i (d = 0 on the diagonal, else 1). Explicit A only.
template <class F>
void for_each_first_hop(const Pattern& p, pos_t source, F&& fn) {
  if (p.translation_invariant()) {
    for (pos_t o : p.a_offsets)
      if (o < p.n - source) fn(source + o, o == 0 ? 0u : 1u);
    return;
  }
  for (pos_t i = source; i < p.n; ++i) {
    const auto row = p.a.row(i);
    if (std::binary_search(row.begin(), row.end(), source)) fn(i, i == source ? 0u : 1u);
  }
}

}  // namespace

std::vector<std::uint32_t> single_source_distances(const Pattern& p, pos_t source) {
  check_position(p, source, "source position");
  std::vector<std::uint32_t> dist(p.n, UNREACHABLE);
  if (profile_route(p)) {
    // a BFS from `source` over the implicit offsets is the profile on the n - source later positions
    const auto prof = offset_distance_profile(p.b_offsets, p.n - source);
    for (pos_t m = 0; m < p.n - source; ++m) dist[source + m] = prof[m];
    return dist;
  }
  if (p.a_mode == AMode::Explicit) {
    // first hop: an A edge x_source -> y_i (i >= source), free on the diagonal
    for_each_first_hop(p, source, [&](pos_t i, std::uint32_t d) { dist[i] = std::min(dist[i], d); });
  } else {
    dist[source] = 0;
  }
  if (p.b_empty()) return dist;
  for (pos_t i = source + 1; i < p.n; ++i) {
    std::uint32_t best = dist[i];
    for_each_b_read(p, i, [&](pos_t j) {
      if (j >= source) best = std::min(best, plus1(dist[j]));
    });
    dist[i] = best;
  }
  return dist;
}

std::vector<std::uint32_t> single_target_distances(const Pattern& p, pos_t target) {
  check_position(p, target, "target position");
  std::vector<std::uint32_t> dist(p.n, UNREACHABLE);
  if (profile_route(p)) {
    const auto prof = offset_distance_profile(p.b_offsets, target + 1);
    for (pos_t j = 0; j <= target; ++j) dist[j] = prof[target - j];
    return dist;
  }
  // dB[k] = fewest B hops from y_k to y_target, pushed backwards along B's rows
  std::vector<std::uint32_t> db(p.n, UNREACHABLE);
  db[target] = 0;
  if (!p.b_empty())
    for (pos_t k = target + 1; k-- > 0;) {
      if (db[k] == UNREACHABLE) continue;
      const std::uint32_t c = db[k] + 1;
      for_each_b_read(p, k, [&](pos_t j) { db[j] = std::min(db[j], c); });
    }
  if (p.a_mode != AMode::Explicit) return db;
  // first hop x_j -> y_k through A (free when k == j)
  for (pos_t k = 0; k <= target; ++k) {
    if (db[k] == UNREACHABLE) continue;
    for_each_a_read(p, k, [&](pos_t j) { dist[j] = std::min(dist[j], db[k] + (k == j ? 0u : 1u)); });
  }
  return dist;
}

PathCounts shortest_path_counts(const Pattern& p, pos_t source) {
  check_position(p, source, "source position");
  PathCounts r;
  r.dist.assign(p.n, UNREACHABLE);
  r.count.assign(p.n, 0);
  auto add = [&](std::uint64_t a, std::uint64_t b) {
    const std::uint64_t s = a + b;
    if (s < a) {
      r.overflow = true;
      return UINT64_MAX;
    }
    return s;
  };
  // seeds (the first hop)
  if (p.a_mode == AMode::Explicit) {
    for_each_first_hop(p, source, [&](pos_t i, std::uint32_t d) {
      if (d < r.dist[i]) {
        r.dist[i] = d;
        r.count[i] = 1;
      } else if (d == r.dist[i]) {
        r.count[i] = add(r.count[i], 1);
      }
    });
  } else {
    r.dist[source] = 0;
    r.count[source] = 1;
  }
  if (p.b_empty()) return r;
  for (pos_t i = source + 1; i < p.n; ++i) {
    std::uint32_t best = r.dist[i];
    std::uint64_t c = r.count[i];
    for_each_b_read(p, i, [&](pos_t j) {
      if (j < source || r.dist[j] == UNREACHABLE) return;
      const std::uint32_t d = r.dist[j] + 1;
      if (d < best) {
        best = d;
        c = r.count[j];
      } else if (d == best) {
        c = add(c, r.count[j]);
      }
    });
    r.dist[i] = best;
    r.count[i] = c;
  }
  return r;
}

}  // namespace mixgraph
