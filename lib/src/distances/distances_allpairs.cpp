// All-pairs distances by bit-parallel multi-source BFS, summaries from profiles, copy distances and the
// path-length table (docs/math.md §3, §4).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>

#include "distances/histogram_summary.hpp"
#include "mixgraph/cancel.hpp"
#include "mixgraph/commgraph.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/growth.hpp"
#include "mixgraph/memory.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace mixgraph {

namespace {

int thread_count(int threads) {
#ifdef _OPENMP
  return threads > 0 ? threads : omp_get_max_threads();
#else
  (void)threads;
  return 1;
#endif
}

/// B's rows (readers) as CSR; borrowed for explicit families, built for translation-invariant ones.
struct Rows {
  Csr owned;
  const Csr* b = nullptr;
  Csr out;    ///< B transposed: row j lists the readers of j (the edges j -> i)
  Csr a_out;  ///< explicit A transposed: row j lists the i with A(i, j) != 0
  bool explicit_a = false;
};

Rows make_rows(const Pattern& p) {
  Rows r;
  if (p.translation_invariant()) {
    r.owned = b_csr(p);
    r.b = &r.owned;
  } else {
    r.b = &p.b;
  }
  if (r.b->ptr.empty()) {  // an empty B built without rows
    r.owned.n = p.n;
    r.owned.ptr.assign(std::size_t{p.n} + 1, 0);
    r.b = &r.owned;
  }
  r.out = transpose(*r.b);
  if (p.a_mode == AMode::Explicit) {
    r.explicit_a = true;
    r.a_out = transpose(a_csr(p));
  }
  return r;
}

/// One block of up to 64 * WD sources [s0, s0 + 64 WD): a level-synchronous BFS where node v holds WD
/// words of source bits. Each level is either pushed (top-down: every frontier node ORs its bits into its
/// readers, when the frontier's out-edges are few) or pulled (bottom-up: next[v] = OR of frontier[u] over
/// v's B reads, skipping nodes every source already reached); then next &= ~visited.
/// on_level(level, v, bits) is called for every node with bits newly reached at that level (level 0:
/// the sources themselves when A has their diagonal).
template <int WD>
struct BlockBfs {
  using Word = std::uint64_t;
  const Csr& b;
  const Csr& out;
  const Rows& rows;
  pos_t n;
  std::vector<Word> f, nx, vis, seed1;
  std::vector<std::uint8_t> mark;
  /// A list of distinct nodes (capacity n, no reallocation on the hot path).
  struct NodeList {
    std::vector<pos_t> buf;
    std::size_t sz = 0;
    void clear() { sz = 0; }
    void push_back(pos_t v) { buf[sz++] = v; }
    bool empty() const { return sz == 0; }
    const pos_t* begin() const { return buf.data(); }
    const pos_t* end() const { return buf.data() + sz; }
  };
  NodeList fl, nl, touched, seeds;
  /// The caller's cancel flag (cancel.hpp): a run stops at the next level or within 4096 pulled rows once it
  /// is set, leaving garbage that the caller drops (it throws Cancelled after the parallel region).
  const std::atomic<bool>* stop = nullptr;

  BlockBfs(const Rows& r, pos_t n_) : b(*r.b), out(r.out), rows(r), n(n_) {
    const std::size_t sz = std::size_t{n} * WD;
    f.assign(sz, 0);
    nx.assign(sz, 0);
    vis.assign(sz, 0);
    mark.assign(n, 0);
    for (NodeList* l : {&fl, &nl, &touched, &seeds}) l->buf.assign(n, 0);
    if (r.explicit_a) seed1.assign(sz, 0);
  }

  Word* at(std::vector<Word>& a, pos_t v) { return a.data() + std::size_t{v} * WD; }

  template <class OnLevel>
  [[gnu::always_inline]] inline void run(pos_t s0, pos_t count, OnLevel&& on_level) {
    const std::size_t base = std::size_t{s0} * WD;
    std::fill(vis.begin() + static_cast<std::ptrdiff_t>(base), vis.end(), 0);
    fl.clear();
    seeds.clear();
    for (pos_t k = 0; k < count; ++k) {
      const pos_t s = s0 + k;
      const Word bit = Word{1} << (k % 64);
      if (!rows.explicit_a) {
        at(f, s)[k / 64] |= bit;
        fl.push_back(s);
        continue;
      }
      for (pos_t i : rows.a_out.row(s)) {
        if (i == s) {
          at(f, s)[k / 64] |= bit;
          fl.push_back(s);
        } else {
          if (!mark[i]) {
            mark[i] = 1;
            seeds.push_back(i);
          }
          at(seed1, i)[k / 64] |= bit;
        }
      }
    }
    for (pos_t v : seeds) mark[v] = 0;
    for (pos_t v : fl) {
      for (int w = 0; w < WD; ++w) at(vis, v)[w] = at(f, v)[w];
      on_level(0u, v, at(f, v));
    }
    const pos_t s_last = s0 + count - 1;
    Word need[WD];  // the bits of this block's sources
    for (int w = 0; w < WD; ++w) {
      const pos_t kk = static_cast<pos_t>(w) * 64;
      need[w] = kk >= count ? 0 : (count - kk >= 64 ? ~Word{0} : ((Word{1} << (count - kk)) - 1));
    }
    auto saturated = [&](pos_t v) {
      if (v < s_last) return false;
      const Word* vv = at(vis, v);
      Word miss = 0;
      for (int w = 0; w < WD; ++w) miss |= need[w] & ~vv[w];
      return miss == 0;
    };
    for (std::uint32_t level = 1; !fl.empty() || (level == 1 && !seeds.empty()); ++level) {
      if (cancel_requested(stop)) break;
      // the cost of pushing: the frontier's out-edges; of pulling: B's rows after the first frontier node
      nnz_t push_cost = 0;
      pos_t fmin = n, fmax = 0;
      for (pos_t u : fl) {
        push_cost += out.ptr[u + 1] - out.ptr[u];
        fmin = std::min(fmin, u);
        fmax = std::max(fmax, u);
      }
      touched.clear();
      if (fmin < n && push_cost * 4 > b.ptr[n] - b.ptr[fmin + 1 < n ? fmin + 1 : n]) {
        // pull over v > fmin
        for (pos_t v = fmin + 1; v < n; ++v) {
          if ((v & 4095) == 0 && cancel_requested(stop)) break;
          if (saturated(v)) continue;
          Word acc[WD] = {};
          bool any = false;
          const auto row = b.row(v);
          const pos_t* it = row.data();
          const pos_t* end = row.data() + row.size();
          if (row.size() > 8 && *it < fmin) it = std::lower_bound(it, end, fmin);
          for (; it != end; ++it) {
            const pos_t u = *it;
            if (u < fmin) continue;
            if (u > fmax) break;
            const Word* fu = at(f, u);
            for (int w = 0; w < WD; ++w) acc[w] |= fu[w];
          }
          for (int w = 0; w < WD; ++w) any |= acc[w] != 0;
          if (any) {
            Word* o = at(nx, v);
            for (int w = 0; w < WD; ++w) o[w] = acc[w];
            mark[v] = 1;
            touched.push_back(v);
          }
        }
      } else {
        for (pos_t u : fl) {
          const Word* fu = at(f, u);
          for (pos_t v : out.row(u)) {
            Word* o = at(nx, v);
            for (int w = 0; w < WD; ++w) o[w] |= fu[w];
            if (!mark[v]) {
              mark[v] = 1;
              touched.push_back(v);
            }
          }
        }
      }
      if (level == 1)
        for (pos_t v : seeds) {
          Word* o = at(nx, v);
          Word* sd = at(seed1, v);
          for (int w = 0; w < WD; ++w) {
            o[w] |= sd[w];
            sd[w] = 0;
          }
          if (!mark[v]) {
            mark[v] = 1;
            touched.push_back(v);
          }
        }
      for (pos_t u : fl)
        for (int w = 0; w < WD; ++w) at(f, u)[w] = 0;
      nl.clear();
      for (pos_t v : touched) {
        mark[v] = 0;
        Word* o = at(nx, v);
        Word* vv = at(vis, v);
        bool any = false;
        for (int w = 0; w < WD; ++w) {
          const Word x = o[w] & ~vv[w];
          vv[w] |= x;
          any |= x != 0;
          o[w] = 0;
          at(f, v)[w] = x;
        }
        if (any) {
          nl.push_back(v);
          on_level(level, v, at(f, v));
        }
      }
      std::swap(fl, nl);
    }
    for (pos_t u : fl)
      for (int w = 0; w < WD; ++w) at(f, u)[w] = 0;
  }
};

struct Accum {
  std::vector<std::uint64_t> hist;
  void bump(std::uint32_t level, std::uint64_t c) {
    if (hist.size() <= level) hist.resize(level + 1, 0);
    hist[level] += c;
  }
};

/// The summary figures of one block of sources: histogram counts, eccentricities, matrix entries.
template <int WD>
[[gnu::always_inline]] inline void block_stats(BlockBfs<WD>& bfs, pos_t s0, pos_t count,
                                               const AllPairsOptions& opt, Accum& a,
                                               std::vector<std::uint64_t>& level_bits, std::uint32_t* ecc,
                                               pos_t ecc_base, pos_t n) {
  std::uint32_t cur = 0;
  std::fill(level_bits.begin(), level_bits.end(), 0);
  auto flush_ecc = [&](std::uint32_t level) {
    if (!opt.eccentricities) return;
    for (int w = 0; w < WD; ++w)
      for (std::uint64_t bits = level_bits[static_cast<std::size_t>(w)]; bits; bits &= bits - 1)
        ecc[s0 - ecc_base + static_cast<pos_t>(w) * 64 + static_cast<pos_t>(std::countr_zero(bits))] = level;
    std::fill(level_bits.begin(), level_bits.end(), 0);
  };
  bfs.run(s0, count, [&](std::uint32_t level, pos_t v, const std::uint64_t* bits) {
    if (level == 0) {
      if (opt.matrix)
        for (int w = 0; w < WD; ++w)
          for (std::uint64_t x = bits[w]; x; x &= x - 1)
            (*opt.matrix)[std::size_t{v} * n + s0 + static_cast<pos_t>(w) * 64 +
                          static_cast<pos_t>(std::countr_zero(x))] = 0;
      return;
    }
    if (level != cur) {
      if (cur) flush_ecc(cur);
      cur = level;
    }
    std::uint64_t c = 0;
    for (int w = 0; w < WD; ++w) c += static_cast<std::uint64_t>(std::popcount(bits[w]));
    for (int w = 0; w < WD; ++w) {
      level_bits[static_cast<std::size_t>(w)] |= bits[w];
      if (opt.matrix)
        for (std::uint64_t x = bits[w]; x; x &= x - 1)
          (*opt.matrix)[std::size_t{v} * n + s0 + static_cast<pos_t>(w) * 64 +
                        static_cast<pos_t>(std::countr_zero(x))] = level;
    }
    a.bump(level, c);
  });
  if (cur) flush_ecc(cur);
}
#if defined(__x86_64__) && defined(__GNUC__)
/// The same compiled with the popcnt instruction (the baseline x86-64 target turns std::popcount into a
/// libgcc call); chosen at run time when the CPU has it.
template <int WD>
__attribute__((target("popcnt"))) void block_stats_popcnt(BlockBfs<WD>& bfs, pos_t s0, pos_t count,
                                                          const AllPairsOptions& opt, Accum& a,
                                                          std::vector<std::uint64_t>& level_bits,
                                                          std::uint32_t* ecc, pos_t ecc_base, pos_t n) {
  block_stats<WD>(bfs, s0, count, opt, a, level_bits, ecc, ecc_base, n);
}
bool cpu_has_popcnt() {
  // a function-local static: __builtin_cpu_init must run first when this is reached from a constructor
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt") != 0;
  }();
  return has;
}
#endif

void add_histogram(std::vector<std::uint64_t>& into, const std::vector<std::uint64_t>& h) {
  if (into.size() < h.size()) into.resize(h.size(), 0);
  for (std::size_t d = 0; d < h.size(); ++d) into[d] += h[d];
}
void finish_summary(DistanceSummary& s);

template <int WD>
DistanceSummary all_pairs_impl(const Pattern& p, const AllPairsOptions& opt) {
  const pos_t n = p.n;
  DistanceSummary s;
  s.n = n;
  if (opt.eccentricities) s.eccentricity.assign(n, 0);
  if (opt.matrix) opt.matrix->assign(std::size_t{n} * n, UNREACHABLE);
  if (n == 0) return s;
  const Rows rows = make_rows(p);
  const pos_t per_block = 64 * WD;
  const std::uint64_t nblocks = (std::uint64_t{n} + per_block - 1) / per_block;
  const int threads = thread_count(opt.threads);
#if defined(__x86_64__) && defined(__GNUC__)
  const bool have_popcnt = cpu_has_popcnt();
#endif
  std::vector<Accum> acc(static_cast<std::size_t>(threads));
  std::atomic<std::uint64_t> done{0};
  const std::atomic<bool>* stop = cancel_flag();  // polled per block (an exception may not leave the region)
#pragma omp parallel num_threads(threads)
  {
#ifdef _OPENMP
    const int tid = omp_get_thread_num();
#else
    const int tid = 0;
#endif
    BlockBfs<WD> bfs(rows, n);
    bfs.stop = stop;
    Accum& a = acc[static_cast<std::size_t>(tid)];
    std::vector<std::uint64_t> level_bits(WD);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t bi = 0; bi < static_cast<std::int64_t>(nblocks); ++bi) {
      if (cancel_requested(stop)) continue;
      const pos_t s0 = static_cast<pos_t>(bi) * per_block;
      const pos_t count = std::min<pos_t>(per_block, n - s0);
#if defined(__x86_64__) && defined(__GNUC__)
      if (have_popcnt)
        block_stats_popcnt<WD>(bfs, s0, count, opt, a, level_bits, s.eccentricity.data(), 0, n);
      else
#endif
        block_stats<WD>(bfs, s0, count, opt, a, level_bits, s.eccentricity.data(), 0, n);
      const std::uint64_t d = ++done;
      if (opt.progress && tid == 0) opt.progress(d, nblocks);
    }
  }
  throw_if_cancelled(stop);
  s.histogram.assign(1, 0);
  for (auto& a : acc) add_histogram(s.histogram, a.hist);
  finish_summary(s);
  if (opt.progress) opt.progress(nblocks, nblocks);
  return s;
}

/// CPU time of the calling thread (a shard's cost, unaffected by other work on a shared machine).
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Sources [sb, se) one block after another on this thread's `bfs`: a partial (no matrix).
template <int WD>
AllPairsPartial partial_range(BlockBfs<WD>& bfs, pos_t sb, pos_t se, const AllPairsOptions& opt, pos_t n,
                              [[maybe_unused]] bool have_popcnt, const std::atomic<bool>* stop) {
  AllPairsPartial part;
  part.begin = sb;
  part.end = se;
  if (opt.eccentricities) part.eccentricity.assign(se - sb, 0);
  const double t0 = thread_cpu_seconds();
  Accum a;
  std::vector<std::uint64_t> level_bits(WD);
  const pos_t per_block = 64 * WD;
  for (pos_t s0 = sb; s0 < se; s0 += std::min<pos_t>(per_block, se - s0)) {
    if (cancel_requested(stop)) break;  // the caller throws after the parallel region
    const pos_t count = std::min<pos_t>(per_block, se - s0);
#if defined(__x86_64__) && defined(__GNUC__)
    if (have_popcnt)
      block_stats_popcnt<WD>(bfs, s0, count, opt, a, level_bits, part.eccentricity.data(), sb, n);
    else
#endif
      block_stats<WD>(bfs, s0, count, opt, a, level_bits, part.eccentricity.data(), sb, n);
  }
  part.histogram.assign(1, 0);
  add_histogram(part.histogram, a.hist);
  part.seconds = thread_cpu_seconds() - t0;
  return part;
}

template <int WD>
void partials_impl(const Pattern& p, const AllPairsOptions& opt,
                   const std::vector<std::pair<pos_t, pos_t>>& ranges,
                   const std::function<void(std::size_t, AllPairsPartial&&)>& done) {
  const Rows rows = make_rows(p);
  const int threads = thread_count(opt.threads);
  bool have_popcnt = false;
#if defined(__x86_64__) && defined(__GNUC__)
  have_popcnt = cpu_has_popcnt();
#endif
  AllPairsOptions o = opt;
  o.matrix = nullptr;
  std::exception_ptr failed;
  const std::atomic<bool>* stop = cancel_flag();  // polled per block (an exception may not leave the region)
#pragma omp parallel num_threads(threads)
  {
    BlockBfs<WD> bfs(rows, p.n);
    bfs.stop = stop;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(ranges.size()); ++k) {
      const auto [sb, se] = ranges[static_cast<std::size_t>(k)];
      if (cancel_requested(stop)) continue;
      AllPairsPartial part = partial_range<WD>(bfs, sb, se, o, p.n, have_popcnt, stop);
#pragma omp critical(mixgraph_all_pairs_partials)
      {
        if (!failed && !cancel_requested(stop)) try {
            done(static_cast<std::size_t>(k), std::move(part));
          } catch (...) {  // an exception may not leave an OpenMP region: rethrown below
            failed = std::current_exception();
          }
      }
    }
  }
  if (failed) std::rethrow_exception(failed);
  throw_if_cancelled(stop);
}

void finish_summary(DistanceSummary& s) {
  const pos_t n = s.n;
  detail::settle_histogram(s);
  const std::uint64_t pairs = std::uint64_t{n} * (n - 1) / 2;
  s.unreachable_pairs = pairs - s.reachable_pairs;
}

}  // namespace

DistanceSummary summary_from_profile(const DistanceProfile& prof, pos_t n, bool eccentricities) {
  if (prof.size() < n) throw UsageError("summary_from_profile: the profile is shorter than n");
  DistanceSummary s;
  s.n = n;
  s.from_profile = true;
  // integer sums per distance (the n - m pairs at offset m), the mean from the histogram at the end
  std::vector<std::uint64_t> hist(64, 0);
  for (pos_t m = 1; m < n; ++m) {
    const std::uint64_t pairs = n - m;
    const std::uint32_t d = prof[m];
    if (d == UNREACHABLE) {
      s.unreachable_pairs += pairs;
      continue;
    }
    if (d >= hist.size()) hist.resize(std::max<std::size_t>(std::size_t{d} + 1, 2 * hist.size()), 0);
    hist[d] += pairs;
  }
  s.histogram = std::move(hist);
  detail::settle_histogram(s);
  s.histogram.resize(std::size_t{s.diameter} + 1);
  if (eccentricities) {
    // ecc(j) = max_{1 <= m <= n-1-j, reachable} delta(m): a running maximum over m
    s.eccentricity.assign(n, 0);
    std::uint32_t run = 0;
    for (pos_t m = 1; m < n; ++m) {
      const std::uint32_t d = prof[m];
      if (d != UNREACHABLE) run = std::max(run, d);
      s.eccentricity[n - 1 - m] = run;
    }
  }
  return s;
}

DistanceSummary all_pairs_summary(const Pattern& p, const AllPairsOptions& opt) {
  const unsigned spb = opt.sources_per_block;
  if (spb != 64 && spb != 128 && spb != 256 && spb != 512)
    throw UsageError("all_pairs_summary: sources_per_block must be 64, 128, 256 or 512");
  const std::uint64_t wd = spb / 64;
  std::uint64_t bytes = static_cast<std::uint64_t>(thread_count(opt.threads)) * p.n * wd * 8 * 4 +
                        comm_graph_bytes(p) + std::uint64_t{p.n} * 4;
  if (opt.matrix) bytes += std::uint64_t{p.n} * p.n * 4;
  check_memory(bytes, opt.mem_limit, "all-pairs distances of " + p.spec + " at n = " + std::to_string(p.n));
  switch (spb) {
    case 64:
      return all_pairs_impl<1>(p, opt);
    case 128:
      return all_pairs_impl<2>(p, opt);
    default:
      return all_pairs_impl<4>(p, opt);
  }
}

void all_pairs_partials(const Pattern& p, const AllPairsOptions& opt,
                        const std::vector<std::pair<pos_t, pos_t>>& ranges,
                        const std::function<void(std::size_t, AllPairsPartial&&)>& done) {
  const unsigned spb = opt.sources_per_block;
  if (spb != 64 && spb != 128 && spb != 256 && spb != 512)
    throw UsageError("all_pairs_partials: sources_per_block must be 64, 128, 256 or 512");
  for (const auto& [b, e] : ranges)
    if (b >= e || e > p.n)
      throw UsageError("all_pairs_partials: source range [" + std::to_string(b) + ", " + std::to_string(e) +
                       ") is empty or outside 0.." + std::to_string(p.n));
  const std::uint64_t bytes =
      static_cast<std::uint64_t>(thread_count(opt.threads)) * p.n * (spb / 64) * 8 * 4 + comm_graph_bytes(p) +
      std::uint64_t{p.n} * 4;
  check_memory(bytes, opt.mem_limit, "all-pairs distances of " + p.spec + " at n = " + std::to_string(p.n));
  if (ranges.empty()) return;
  switch (spb) {
    case 64:
      return partials_impl<1>(p, opt, ranges, done);
    case 128:
      return partials_impl<2>(p, opt, ranges, done);
    default:
      return partials_impl<4>(p, opt, ranges, done);
  }
}

DistanceSummary merge_all_pairs(pos_t n, bool eccentricities, std::vector<AllPairsPartial> parts) {
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
  DistanceSummary s;
  s.n = n;
  if (eccentricities) s.eccentricity.assign(n, 0);
  s.histogram.assign(1, 0);
  pos_t next = 0;
  for (const auto& part : parts) {
    if (part.begin != next || part.end <= part.begin || part.end > n)
      throw RuntimeFailure("merge_all_pairs: the partials do not cover sources 0.." + std::to_string(n) +
                           " exactly once (at " + std::to_string(next) + " found [" +
                           std::to_string(part.begin) + ", " + std::to_string(part.end) + "))");
    if (eccentricities) {
      if (part.eccentricity.size() != part.end - part.begin)
        throw RuntimeFailure("merge_all_pairs: a partial lacks its eccentricities");
      std::copy(part.eccentricity.begin(), part.eccentricity.end(),
                s.eccentricity.begin() + static_cast<std::ptrdiff_t>(part.begin));
    }
    add_histogram(s.histogram, part.histogram);
    next = part.end;
  }
  if (next != n)
    throw RuntimeFailure("merge_all_pairs: the partials stop at source " + std::to_string(next) + " of " +
                         std::to_string(n));
  if (n == 0) return s;
  finish_summary(s);
  return s;
}

DistanceSummary distance_summary(const Pattern& p, const AllPairsOptions& opt) {
  if (profile_describes(p) && !opt.matrix)
    return summary_from_profile(distance_profile(p), p.n, opt.eccentricities);
  return all_pairs_summary(p, opt);
}

std::uint32_t copy_distance(const Pattern& p, pos_t N, int threads) {
  if (N == 0) return 0;
  if (std::uint64_t{N} * 2 > p.n)
    throw UsageError("copy_distance: the copy task of length " + std::to_string(N) +
                     " needs 2N = " + std::to_string(std::uint64_t{N} * 2) + " positions, the pattern has " +
                     std::to_string(p.n));
  if (p.translation_invariant()) {
    if (p.a_mode == AMode::Explicit && p.b_empty()) return distance_profile(p)[N];
    return offset_distance_profile(p.b_offsets, N + 1)[N];
  }
  // multi-source BFS over the sources 0..N-1, reading d(j + N, j)
  const Rows rows = make_rows(p);
  const pos_t per_block = 256;
  const std::uint64_t nblocks = (std::uint64_t{N} + per_block - 1) / per_block;
  std::uint32_t worst = 0;
  bool missing = false;
  const int nt = thread_count(threads);
  const std::atomic<bool>* stop = cancel_flag();
#pragma omp parallel num_threads(nt) reduction(max : worst) reduction(|| : missing)
  {
    BlockBfs<4> bfs(rows, p.n);
    bfs.stop = stop;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t bi = 0; bi < static_cast<std::int64_t>(nblocks); ++bi) {
      if (cancel_requested(stop)) continue;
      const pos_t s0 = static_cast<pos_t>(bi) * per_block;
      const pos_t count = std::min<pos_t>(per_block, N - s0);
      std::vector<std::uint32_t> got(count, UNREACHABLE);
      bfs.run(s0, count, [&](std::uint32_t level, pos_t v, const std::uint64_t* bits) {
        // the source j = v - N of this block, if any
        if (v < N + s0 || v >= N + s0 + count) return;
        const pos_t k = v - N - s0;
        if ((bits[k / 64] >> (k % 64)) & 1) got[k] = level;
      });
      for (auto g : got) {
        if (g == UNREACHABLE)
          missing = true;
        else
          worst = std::max(worst, g);
      }
    }
  }
  throw_if_cancelled(stop);
  return missing ? UNREACHABLE : worst;
}

const std::vector<std::string>& path_length_growth_classes() {
  static const std::vector<std::string> c = {"O(1)", "O(log n)", "O(sqrt n)", "O(n)"};
  return c;
}

PathLengthTable path_length_table(const std::string& spec, const std::vector<std::uint64_t>& ns,
                                  const AllPairsOptions& opt, std::uint64_t max_all_pairs_n) {
  PathLengthTable t = path_length_table(parse_pattern_spec(spec, false), ns, opt, max_all_pairs_n);
  t.pattern = spec;  // as given
  return t;
}

PathLengthTable path_length_table(const PatternSpec& tree, const std::vector<std::uint64_t>& ns,
                                  const AllPairsOptions& opt, std::uint64_t max_all_pairs_n) {
  PathLengthTable t;
  const std::string& spec = tree.text;
  t.pattern = spec;
  if (tree.has_matrix()) throw UsageError("--sweep does not apply to mtx: patterns (their n is fixed)");
  std::vector<double> xs, dia, cp, mean;
  for (std::uint64_t n : ns) {
    if (n < 1 || n > UINT32_MAX / 2)
      throw UsageError("sweep value n = " + std::to_string(n) + " is out of range");
    PathLengthRow row;
    row.n = n;
    // the pattern on 2n tokens: its first n positions are the pattern on n tokens (Def. 4.1 and 4.10 read
    // only earlier positions), so one build serves both the summary and the copy distance
    const Pattern p2 = make_pattern_within(tree, 2 * n, opt.mem_limit, "pattern " + spec);
    if (p2.translation_invariant()) {
      const Pattern p1 = make_pattern(tree, n + 1);
      const DistanceProfile prof = distance_profile(p1);  // delta(0..n)
      const auto s = summary_from_profile(prof, static_cast<pos_t>(n), false);
      row.diameter = s.diameter;
      row.mean_distance = s.mean_distance;
      row.unreachable_pairs = s.unreachable_pairs;
      row.copy_distance = prof[static_cast<pos_t>(n)];
      row.from_profile = true;
    } else {
      if (n > max_all_pairs_n)
        throw UsageError("pattern " + spec + " is not translation-invariant: n = " + std::to_string(n) +
                         " needs all-pairs distances (above " + std::to_string(max_all_pairs_n) +
                         "); add --all-pairs to run them anyway");
      const Pattern p1 = make_pattern(tree, n);
      AllPairsOptions o = opt;
      o.eccentricities = false;
      o.matrix = nullptr;
      const auto s = all_pairs_summary(p1, o);
      row.diameter = s.diameter;
      row.mean_distance = s.mean_distance;
      row.unreachable_pairs = s.unreachable_pairs;
      row.copy_distance = copy_distance(p2, static_cast<pos_t>(n), opt.threads);
    }
    xs.push_back(static_cast<double>(n));
    dia.push_back(row.diameter);
    cp.push_back(row.copy_distance == UNREACHABLE ? 0.0 : row.copy_distance);
    mean.push_back(row.mean_distance);
    t.rows.push_back(row);
    if (opt.row_done) opt.row_done(n);
  }
  const auto& cls = path_length_growth_classes();
  auto fits = [&](const std::vector<double>& y) {
    return PathLengthTable::Fits{fit_growth(xs, y, cls), fit_power(xs, y, kPathLengthBoundExponent)};
  };
  t.diameter_fit = fits(dia);
  t.copy_fit = fits(cp);
  t.mean_fit = fits(mean);
  t.diameter_growth = t.diameter_fit.menu.best;
  t.diameter_residual = t.diameter_fit.menu.residual;
  t.copy_growth = t.copy_fit.menu.best;
  t.copy_residual = t.copy_fit.menu.residual;
  t.mean_growth = t.mean_fit.menu.best;
  t.mean_residual = t.mean_fit.menu.residual;
  return t;
}

}  // namespace mixgraph
