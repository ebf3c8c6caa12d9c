#include "mixgraph/profile.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "mixgraph/cancel.hpp"
#include "mixgraph/error.hpp"

namespace mixgraph {

namespace {

/// Positions between two looks at the cancel flag (cancel.hpp) in the single-threaded loops: a power of two.
constexpr pos_t kCancelEvery = 1u << 16;

/// At the start of each block of kCancelEvery positions: looks at the cancel flag and grows v (reserved to
/// n) to the block's end. The pages of a large array are then first touched block by block inside the loop
/// that writes them (page faults cost about as much as the loop itself), not all at once before it, where a
/// cancel could not be seen.
template <class T>
void next_block(std::vector<T>& v, pos_t i, pos_t n, const std::atomic<bool>* stop) {
  if (i % kCancelEvery != 0) return;
  throw_if_cancelled(stop);
  v.resize(std::min<std::uint64_t>(n, std::uint64_t(i) + kCancelEvery));
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

/// Fills cache_size from last_reader via a difference array: j is in C_i for j <= i < last(j).
void cache_from_last_reader(const std::vector<pos_t>& last, PatternProfile& out, bool keep) {
  const pos_t n = static_cast<pos_t>(last.size());
  const std::atomic<bool>* stop = cancel_flag();
  // zeros from calloc (fresh pages for a large array): touched as the polled loop writes them
  const std::unique_ptr<std::int32_t[], FreeDeleter> diff(
      static_cast<std::int32_t*>(std::calloc(static_cast<std::size_t>(n) + 1, sizeof(std::int32_t))));
  if (!diff) throw std::bad_alloc();
  for (pos_t j = 0; j < n; ++j) {
    if (j % kCancelEvery == 0) throw_if_cancelled(stop);
    if (last[j] > j) {
      ++diff[j];
      --diff[last[j]];
    }
  }
  std::int64_t run = 0;
  if (keep) {
    out.cache_size.clear();
    out.cache_size.reserve(n);
  }
  for (pos_t i = 0; i < n; ++i) {
    if (keep)
      next_block(out.cache_size, i, n, stop);
    else if (i % kCancelEvery == 0)
      throw_if_cancelled(stop);
    run += diff[i];
    const auto c = static_cast<std::uint32_t>(run);
    if (keep) out.cache_size[i] = c;
    if (c > out.max_cache) {
      out.max_cache = c;
      out.argmax_cache = i;
    }
  }
}

/// nnz(A) from nnz(B): shared A adds the diagonal to B's reads, diagonal A is the diagonal alone, and an
/// explicit A counts its own reads (`explicit_nnz`, evaluated only then).
template <class F>
nnz_t nnz_a_of(const Pattern& p, nnz_t nnz_b, F&& explicit_nnz) {
  switch (p.a_mode) {
    case AMode::Shared:
      return nnz_b + p.n;
    case AMode::Diagonal:
      return p.n;
    case AMode::Explicit:
      return explicit_nnz();
  }
  return 0;
}

PatternProfile profile_translation_invariant(const Pattern& p, const ProfileOptions& opt) {
  PatternProfile out;
  const pos_t n = p.n;
  out.n = n;
  // U = positive offsets read through A or B.
  std::vector<pos_t> u = p.b_offsets;
  for (pos_t o : p.a_offsets)
    if (o > 0) u.push_back(o);
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  for (pos_t o : p.b_offsets) out.nnz_b += n - o;
  out.nnz_a = nnz_a_of(p, out.nnz_b, [&] {
    nnz_t s = 0;
    for (pos_t o : p.a_offsets) s += n - o;
    return s;
  });
  for (pos_t o : u) out.total_decode_cost += n - o;
  out.max_decode_cost = static_cast<std::uint32_t>(u.size());
  const std::atomic<bool>* stop = cancel_flag();
  if (opt.per_position) {
    out.decode_cost.reserve(n);
    std::size_t c = 0;
    for (pos_t i = 0; i < n; ++i) {  // position i reads i - o for every o <= i
      next_block(out.decode_cost, i, n, stop);
      while (c < u.size() && u[c] <= i) ++c;
      out.decode_cost[i] = static_cast<std::uint32_t>(c);
    }
  }
  // last_reader(j) = j + max{o in U : o <= n - 1 - j}; the bound shrinks as j grows.
  std::vector<pos_t> last;
  last.reserve(n);
  std::size_t c = u.size();
  for (pos_t j = 0; j < n; ++j) {
    next_block(last, j, n, stop);
    while (c > 0 && u[c - 1] > n - 1 - j) --c;
    last[j] = c > 0 ? j + u[c - 1] : j;
  }
  cache_from_last_reader(last, out, opt.per_position);
  return out;
}

PatternProfile profile_explicit(const Pattern& p, const ProfileOptions& opt) {
  PatternProfile out;
  const pos_t n = p.n;
  out.n = n;
  out.nnz_b = p.b.nnz();
  out.nnz_a = nnz_a_of(p, out.nnz_b, [&] { return p.a.nnz(); });
  const std::atomic<bool>* stop = cancel_flag();  // polled per block of rows; thrown after the region
  std::vector<pos_t> last;
  last.reserve(n);
  for (pos_t j = 0; j < n; ++j) {
    next_block(last, j, n, stop);
    last[j] = j;
  }
  if (opt.per_position) out.decode_cost.resize(n);
  const bool ce = p.family == PatternFamily::CacheEfficient;
  if (ce && opt.per_position) out.kept_set.resize(n);
  // last(j) = the largest reader of j. Threads take contiguous blocks of rows in order; each writes plain
  // stores into its own copy (rows ascend within a block, so the last store wins), and the copies are
  // merged by max: the result does not depend on the thread count.
  nnz_t total = 0;
  std::uint32_t max_cost = 0, max_kept = 0;
  const int threads = std::max(1, std::min(opt.threads > 0 ? opt.threads : omp_get_max_threads(),
                                           static_cast<int>(std::max<pos_t>(1, n / 4096))));
  std::vector<std::vector<pos_t>> copies(static_cast<std::size_t>(threads - 1));
#pragma omp parallel num_threads(threads) reduction(+ : total) reduction(max : max_cost, max_kept)
  {
    const int t = omp_get_thread_num();
    std::vector<pos_t>* mine = &last;
    if (t > 0) {
      copies[static_cast<std::size_t>(t - 1)].assign(n, 0);
      mine = &copies[static_cast<std::size_t>(t - 1)];
    }
    auto raise = [mine](pos_t j, pos_t i) { (*mine)[j] = i; };
    const pos_t lo = static_cast<pos_t>(static_cast<std::uint64_t>(n) * t / threads);
    const pos_t hi = static_cast<pos_t>(static_cast<std::uint64_t>(n) * (t + 1) / threads);
    for (pos_t i = lo; i < hi; ++i) {
      if ((i - lo) % 4096 == 0 && cancel_requested(stop)) break;
      std::uint32_t cost = 0;
      auto rb = p.b.row(i);
      if (p.a_mode != AMode::Explicit) {
        cost = static_cast<std::uint32_t>(rb.size());
        for (pos_t j : rb) raise(j, i);
      } else {
        auto ra = p.a.row(i);
        std::size_t x = 0, y = 0;
        while (x < rb.size() || y < ra.size()) {  // merge the two sorted rows, counting distinct j < i
          pos_t j;
          if (y == ra.size() || (x < rb.size() && rb[x] < ra[y]))
            j = rb[x++];
          else if (x == rb.size() || ra[y] < rb[x])
            j = ra[y++];
          else {
            j = rb[x++];
            ++y;
          }
          if (j < i) {
            ++cost;
            raise(j, i);
          }
        }
      }
      if (opt.per_position) out.decode_cost[i] = cost;
      total += cost;
      max_cost = std::max(max_cost, cost);
      if (ce) {
        // S_i: the reads plus i itself (A-only cache-efficient patterns keep i in A's row already).
        const std::uint32_t kept = p.a_mode == AMode::Explicit ? static_cast<std::uint32_t>(p.a.row_size(i))
                                                               : static_cast<std::uint32_t>(rb.size() + 1);
        if (opt.per_position) out.kept_set[i] = kept;
        max_kept = std::max(max_kept, kept);
      }
    }
  }
  throw_if_cancelled(stop);
  for (const auto& c : copies)
    for (pos_t j = 0; j < n; ++j) {
      if (j % kCancelEvery == 0) throw_if_cancelled(stop);
      last[j] = std::max(last[j], c[j]);
    }
  out.total_decode_cost = total;
  out.max_decode_cost = max_cost;
  out.max_kept_set = max_kept;
  cache_from_last_reader(last, out, opt.per_position);
  return out;
}

}  // namespace

PatternProfile cache_profile(const Pattern& p, const ProfileOptions& opt) {
  if (p.n == 0) throw UsageError("cache_profile: empty pattern (n = 0)");
  return p.translation_invariant() ? profile_translation_invariant(p, opt) : profile_explicit(p, opt);
}

std::vector<pos_t> b_reads(const Pattern& p, pos_t i) {
  std::vector<pos_t> r;
  for_each_b_read(p, i, [&](pos_t j) { r.push_back(j); });
  return r;
}

}  // namespace mixgraph
