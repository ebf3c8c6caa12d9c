// Distances on the stacked communication graph (docs/math.md §3, "Stacked layers"): layer by layer, a
// min-plus pass through A (diagonal free, other reads one hop) then through B in position order.
#include <omp.h>

#include <algorithm>
#include <deque>

#include "distances/histogram_summary.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/stack.hpp"

namespace mixgraph {

namespace {

constexpr std::uint32_t kInf = UNREACHABLE;

inline std::uint32_t plus1(std::uint32_t v) {
  return v == kInf ? kInf : v + 1;
}

/// Maximal runs [lo, hi] of consecutive offsets >= 1 (offsets ascending, distinct).
std::vector<std::pair<pos_t, pos_t>> runs_of(const std::vector<pos_t>& offs) {
  std::vector<std::pair<pos_t, pos_t>> r;
  for (pos_t o : offs) {
    if (o == 0) continue;
    if (!r.empty() && r.back().second + 1 == o)
      r.back().second = o;
    else
      r.push_back({o, o});
  }
  return r;
}

/// dst[i] = min(dst[i], 1 + min_{o in runs, o <= i} src[i - o]) for i = 0..n-1 in increasing order. When
/// src == dst (B), src[i - o] is final when read, as o >= 1. Sliding-window minima: O(n) per run.
void relax_runs(const std::vector<std::pair<pos_t, pos_t>>& runs, const std::uint32_t* src,
                std::uint32_t* dst, pos_t n) {
  std::vector<std::deque<pos_t>> win(runs.size());
  for (pos_t i = 0; i < n; ++i) {
    std::uint32_t best = dst[i];
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const auto [lo, hi] = runs[r];
      if (lo > i) continue;
      if (lo == hi) {
        best = std::min(best, plus1(src[i - lo]));
        continue;
      }
      auto& q = win[r];
      const pos_t in = i - lo;  // enters the window [i - hi, i - lo]
      while (!q.empty() && src[q.back()] >= src[in]) q.pop_back();
      q.push_back(in);
      while (q.front() + hi < i) q.pop_front();
      best = std::min(best, plus1(src[q.front()]));
    }
    dst[i] = best;
  }
}

/// One layer: cur = the layer-l distances from prev = the layer-(l-1) distances.
void relax_layer(const Pattern& p, const std::vector<std::uint32_t>& prev, std::vector<std::uint32_t>& cur) {
  const pos_t n = p.n;
  cur.assign(n, kInf);
  if (p.translation_invariant()) {
    const auto b_runs = runs_of(p.b_offsets);
    switch (p.a_mode) {
      case AMode::Shared:  // A = B's offsets plus the diagonal
        cur = prev;
        relax_runs(b_runs, prev.data(), cur.data(), n);
        break;
      case AMode::Diagonal:
        cur = prev;
        break;
      case AMode::Explicit:
        if (std::binary_search(p.a_offsets.begin(), p.a_offsets.end(), pos_t{0})) cur = prev;
        relax_runs(runs_of(p.a_offsets), prev.data(), cur.data(), n);
        break;
    }
    relax_runs(b_runs, cur.data(), cur.data(), n);
    return;
  }
  for (pos_t i = 0; i < n; ++i) {
    std::uint32_t best = kInf;
    for_each_a_read(p, i, [&](pos_t j) { best = std::min(best, j == i ? prev[j] : plus1(prev[j])); });
    for_each_b_read(p, i, [&](pos_t j) { best = std::min(best, plus1(cur[j])); });
    cur[i] = best;
  }
}

}  // namespace

std::vector<std::vector<std::uint32_t>> stack_distances_from(const Stack& s, pos_t source) {
  if (source >= s.n)
    throw UsageError("source position " + std::to_string(source + 1) + " is outside 1.." +
                     std::to_string(s.n));
  std::vector<std::vector<std::uint32_t>> d(s.depth() + 1);
  d[0].assign(s.n, kInf);
  d[0][source] = 0;
  for (std::size_t l = 0; l < s.depth(); ++l) relax_layer(*s.layers[l], d[l], d[l + 1]);
  return d;
}

std::vector<std::uint32_t> stack_single_source(const Stack& s, pos_t source) {
  if (source >= s.n)
    throw UsageError("source position " + std::to_string(source + 1) + " is outside 1.." +
                     std::to_string(s.n));
  std::vector<std::uint32_t> prev(s.n, kInf), cur;
  prev[source] = 0;
  for (const auto& layer : s.layers) {
    relax_layer(*layer, prev, cur);
    prev.swap(cur);
  }
  return prev;
}

namespace {

/// Relaxations of one source (the all-pairs work unit): sum over layers of n + reads.
std::uint64_t work_per_source(const Stack& s) {
  std::uint64_t w = 0;
  for (const auto& p : s.layers) {
    std::uint64_t reads = 0;
    if (p->translation_invariant()) {
      reads = sat_mul(s.n, runs_of(p->b_offsets).size() + runs_of(p->a_offsets).size() + 1);
    } else {
      reads = sat_add(p->b.nnz(), p->a_mode == AMode::Explicit ? p->a.nnz() : p->b.nnz());
    }
    w = sat_add(w, sat_add(s.n, reads));
  }
  return w;
}

DistanceSummary summary_of_histogram(pos_t n, const std::vector<std::uint64_t>& hist,
                                     std::uint64_t unreachable) {
  DistanceSummary r;
  r.n = n;
  r.histogram = hist;
  detail::settle_histogram(r);
  r.histogram.resize(std::size_t{r.diameter} + 1, 0);
  r.unreachable_pairs = unreachable;
  return r;
}

}  // namespace

StackDistances stack_distance_summary(const Stack& s, const StackDistanceOptions& opt) {
  StackDistances out;
  const std::size_t L = s.depth();
  if (s.translation_invariant()) {
    out.from_profile = true;
    auto d = stack_distances_from(s, 0);
    for (std::size_t l = 1; l <= L; ++l) {
      DistanceProfile prof(s.n);
      std::uint32_t top = 0;
      for (pos_t m = 0; m < s.n; ++m)
        if (d[l][m] != kInf) top = std::max(top, d[l][m]);
      prof.reserve_value(top);
      for (pos_t m = 0; m < s.n; ++m) prof.set(m, d[l][m]);
      out.by_depth.push_back(summary_from_profile(prof, s.n, false));
      out.profile.push_back(std::move(d[l]));
    }
    return out;
  }
  const std::uint64_t work = sat_mul(s.n, work_per_source(s));
  if (opt.max_work && work > opt.max_work)
    throw RuntimeFailure(
        "stack '" + s.spec + "' at n = " + std::to_string(s.n) + ": all-pairs distances need about " +
        std::to_string(work) +
        " relaxations (some layer is not translation-invariant, so every source is searched), "
        "over the limit of " +
        std::to_string(opt.max_work) + "; use a smaller n");
  const int threads = std::max(1, opt.threads > 0 ? opt.threads : omp_get_max_threads());
  check_memory(sat_mul(sat_mul(threads, L + 2), sat_mul(s.n, 12)), opt.mem_limit,
               "stack '" + s.spec + "' all-pairs distances at n = " + std::to_string(s.n));
  std::vector<std::vector<std::uint64_t>> hist(L);
  std::vector<std::uint64_t> unreachable(L, 0);
#pragma omp parallel num_threads(threads)
  {
    std::vector<std::vector<std::uint64_t>> h(L);
    std::vector<std::uint64_t> un(L, 0);
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t j = 0; j < static_cast<std::int64_t>(s.n); ++j) {
      const auto d = stack_distances_from(s, static_cast<pos_t>(j));
      for (std::size_t l = 0; l < L; ++l)
        for (pos_t i = static_cast<pos_t>(j + 1); i < s.n; ++i) {
          const std::uint32_t v = d[l + 1][i];
          if (v == kInf) {
            ++un[l];
            continue;
          }
          if (h[l].size() <= v) h[l].resize(v + 1, 0);
          ++h[l][v];
        }
    }
#pragma omp critical
    for (std::size_t l = 0; l < L; ++l) {
      if (hist[l].size() < h[l].size()) hist[l].resize(h[l].size(), 0);
      for (std::size_t v = 0; v < h[l].size(); ++v) hist[l][v] += h[l][v];
      unreachable[l] += un[l];
    }
  }
  for (std::size_t l = 0; l < L; ++l)
    out.by_depth.push_back(summary_of_histogram(s.n, hist[l], unreachable[l]));
  return out;
}

}  // namespace mixgraph
