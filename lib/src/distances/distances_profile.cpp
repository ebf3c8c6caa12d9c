// Distance profiles delta(m) of translation-invariant patterns (docs/math.md §3, Prop. 4.4): a
// level-synchronous BFS on bitsets over the implicit offsets, and the coin-change DP as the fallback for deep
// patterns.
#include <algorithm>
#include <cstring>

#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace mixgraph {

// ------------------------------------------------------------------------------------------------------
// DistanceProfile storage

DistanceProfile::DistanceProfile(pos_t n) : n_(n), width_(1), d8_(n, 0xFF) {}

void DistanceProfile::reserve_value(std::uint32_t v) {
  if (v == UNREACHABLE) return;
  if (width_ == 1 && v >= 0xFF) {
    d16_.assign(n_, 0xFFFF);
    for (pos_t m = 0; m < n_; ++m)
      if (d8_[m] != 0xFF) d16_[m] = d8_[m];
    std::vector<std::uint8_t>().swap(d8_);
    width_ = 2;
  }
  if (width_ == 2 && v >= 0xFFFF) {
    d32_.assign(n_, UNREACHABLE);
    for (pos_t m = 0; m < n_; ++m)
      if (d16_[m] != 0xFFFF) d32_[m] = d16_[m];
    std::vector<std::uint16_t>().swap(d16_);
    width_ = 4;
  }
}

void DistanceProfile::set(pos_t m, std::uint32_t v) {
  reserve_value(v);
  switch (width_) {
    case 1:
      d8_[m] = v == UNREACHABLE ? 0xFF : static_cast<std::uint8_t>(v);
      break;
    case 2:
      d16_[m] = v == UNREACHABLE ? 0xFFFF : static_cast<std::uint16_t>(v);
      break;
    default:
      d32_[m] = v;
      break;
  }
}

std::vector<std::uint32_t> DistanceProfile::to_vector() const {
  std::vector<std::uint32_t> v(n_);
  for (pos_t m = 0; m < n_; ++m) v[m] = (*this)[m];
  return v;
}

const char* to_string(ProfileMethod m) {
  switch (m) {
    case ProfileMethod::Auto:
      return "auto";
    case ProfileMethod::BitsetBfs:
      return "bitset-bfs";
    case ProfileMethod::Dp:
      return "dp";
  }
  return "?";
}

std::optional<ProfileMethod> profile_method_from(const std::string& name) {
  for (ProfileMethod m : {ProfileMethod::Auto, ProfileMethod::BitsetBfs, ProfileMethod::Dp})
    if (name == to_string(m)) return m;
  return std::nullopt;
}

namespace {

// ------------------------------------------------------------------------------------------------------
// Coin-change DP, SIMD over m for offsets >= kChunk, sequential for the short ones.

constexpr pos_t kChunk = 32;

/// Fills d[0..n) with delta(m) in type T (max = unreachable). Returns false when a value did not fit.
template <class T>
bool coin_change_dp(const std::vector<pos_t>& offsets, pos_t n, T* d) {
  constexpr T S = std::numeric_limits<T>::max();
  std::vector<pos_t> small, large;
  for (pos_t o : offsets) (o < kChunk ? small : large).push_back(o);
  alignas(64) T acc[kChunk];
  for (pos_t m0 = 0; m0 < n; m0 += kChunk) {
    const pos_t len = std::min<pos_t>(kChunk, n - m0);
    for (pos_t k = 0; k < kChunk; ++k) acc[k] = S;
    for (pos_t o : large) {
      if (o > m0 + len - 1) break;
      if (o <= m0) {
        const T* src = d + (m0 - o);
        if (len == kChunk) {
          for (pos_t k = 0; k < kChunk; ++k) acc[k] = std::min(acc[k], src[k]);
        } else {
          for (pos_t k = 0; k < len; ++k) acc[k] = std::min(acc[k], src[k]);
        }
      } else {
        for (pos_t k = o - m0; k < len; ++k) acc[k] = std::min(acc[k], d[m0 + k - o]);
      }
    }
    for (pos_t k = 0; k < len; ++k) {
      const pos_t m = m0 + k;
      if (m == 0) {
        d[0] = 0;
        continue;
      }
      T best = acc[k];
      for (pos_t o : small) {
        if (o > m) break;
        best = std::min(best, d[m - o]);
      }
      if (best == S) {
        d[m] = S;
      } else {
        if (best == S - 1) return false;
        d[m] = static_cast<T>(best + 1);
      }
    }
  }
  return true;
}

// ------------------------------------------------------------------------------------------------------
// Bitset BFS over implicit offsets.

constexpr pos_t kTile = 512;  // words per tile (32768 positions)

// The inner kernel, cloned for AVX2 where the compiler can (chosen at load time; plain x86-64 otherwise).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MIXGRAPH_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MIXGRAPH_SIMD_CLONES
#endif

/// acc[j] |= the bits of src shifted up by r positions, for j in [k0, len): src[j] << r with the top r bits
/// of src[j - 1] carried in (src[-1] must be readable).
MIXGRAPH_SIMD_CLONES
void or_shifted(std::uint64_t* __restrict acc, const std::uint64_t* __restrict src, std::uint64_t k0,
                std::uint64_t len, unsigned r) {
  for (std::uint64_t j = k0; j < len; ++j) acc[j] |= (src[j] << r) | ((src[j - 1] >> (63 - r)) >> 1);
}

struct BitsetBfs {
  const std::vector<pos_t>& offsets;
  pos_t n;
  std::uint64_t budget;  // word operations before giving up (0: none)
  DistanceProfile& out;

  /// Returns false when the work budget ran out (out is then incomplete).
  bool run() {
    const std::uint64_t W = (static_cast<std::uint64_t>(n) + 63) / 64;
    const std::uint64_t ntiles = (W + kTile - 1) / kTile;
    // one padding word in front of each frontier array (word -1 reads as zero)
    std::vector<std::uint64_t> fbuf(W + 1, 0), nbuf(W + 1, 0), visited(W, 0);
    std::uint64_t* f = fbuf.data() + 1;
    std::uint64_t* nx = nbuf.data() + 1;
    std::vector<std::uint8_t> factive(ntiles, 0), nactive(ntiles, 0), dmark(ntiles, 0), full(ntiles, 0);
    const std::uint64_t last_mask = (n % 64) ? ((std::uint64_t{1} << (n % 64)) - 1) : ~std::uint64_t{0};
    // positions >= n count as visited, so nothing is ever recorded there
    visited[W - 1] = ~last_mask;
    f[0] = 1;
    visited[0] |= 1;
    out.set(0, 0);
    std::vector<std::uint64_t> active = {0};
    factive[0] = 1;
    std::vector<std::uint64_t> dest;
    std::uint64_t work = 0;
    std::vector<std::uint64_t> qs(offsets.size());
    std::vector<unsigned> rs(offsets.size());
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      qs[k] = offsets[k] >> 6;
      rs[k] = offsets[k] & 63;
    }
    for (std::uint32_t level = 1; !active.empty(); ++level) {
      out.reserve_value(level);
      std::uint8_t* const d8 = out.data8();
      // destination tiles: every active source tile shifted by every offset (two tiles each)
      dest.clear();
      for (std::uint64_t a : active)
        for (std::uint64_t q : qs) {
          const std::uint64_t lo = a * kTile + q;
          if (lo >= W) break;  // offsets ascending
          const std::uint64_t hi = std::min(W - 1, a * kTile + kTile + q);
          for (std::uint64_t t = lo / kTile; t <= hi / kTile; ++t)
            if (!dmark[t] && !full[t]) {
              dmark[t] = 1;
              dest.push_back(t);
            }
        }
      std::sort(dest.begin(), dest.end());
      std::uint64_t level_work = 0;
      const std::int64_t nd = static_cast<std::int64_t>(dest.size());
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : level_work) if (nd >= 16)
      for (std::int64_t di = 0; di < nd; ++di) {
        const std::uint64_t t = dest[static_cast<std::size_t>(di)];
        const std::uint64_t w0 = t * kTile, w1 = std::min(W, w0 + kTile);
        const std::uint64_t len = w1 - w0;
        alignas(64) std::uint64_t acc[kTile];
        std::memset(acc, 0, sizeof acc);
        for (std::size_t k = 0; k < qs.size(); ++k) {
          const std::uint64_t q = qs[k];
          if (q >= w1) break;
          // source words [w0 - q - 1, w1 - 1 - q] (clipped at -1): any active tile among them?
          const std::uint64_t s_hi = w1 - 1 - q;
          const std::uint64_t s_lo = w0 >= q + 1 ? w0 - q - 1 : 0;
          bool any = false;
          for (std::uint64_t st = s_lo / kTile; st <= s_hi / kTile; ++st) any |= factive[st] != 0;
          if (!any) continue;
          const std::uint64_t k0 = q > w0 ? q - w0 : 0;  // first destination word with w - q >= 0
          const unsigned r = rs[k];
          // src[j] = f[w0 + j - q] (only j >= k0 is read, so src[j - 1] >= f[-1], the padding word)
          or_shifted(acc, f + (static_cast<std::int64_t>(w0) - static_cast<std::int64_t>(q)), k0, len, r);
          level_work += len - k0;
        }
        bool nonzero = false, all_full = true;
        for (std::uint64_t j = 0; j < len; ++j) {
          const std::uint64_t w = w0 + j;
          const std::uint64_t x = acc[j] & ~visited[w];
          nx[w] = x;
          visited[w] |= x;
          all_full &= visited[w] == ~std::uint64_t{0};
          if (x) {
            nonzero = true;
            std::uint64_t bits = x;
            if (d8) {  // the common case: one byte per entry, written directly
              std::uint8_t* row = d8 + w * 64;
              const auto lv = static_cast<std::uint8_t>(level);
              while (bits) {
                row[__builtin_ctzll(bits)] = lv;
                bits &= bits - 1;
              }
            } else {
              while (bits) {
                const unsigned b = static_cast<unsigned>(__builtin_ctzll(bits));
                bits &= bits - 1;
                out.set(static_cast<pos_t>(w * 64 + b), level);
              }
            }
          }
        }
        nactive[t] = nonzero;
        if (all_full) full[t] = 1;
      }
      work += level_work;
      // clear the old frontier, swap
      const std::int64_t na = static_cast<std::int64_t>(active.size());
#pragma omp parallel for schedule(static) if (na >= 16)
      for (std::int64_t ai = 0; ai < na; ++ai) {
        const std::uint64_t a = active[static_cast<std::size_t>(ai)];
        const std::uint64_t w0 = a * kTile, w1 = std::min(W, w0 + kTile);
        std::memset(f + w0, 0, (w1 - w0) * sizeof(std::uint64_t));
        factive[a] = 0;
      }
      active.clear();
      for (std::uint64_t t : dest) {
        dmark[t] = 0;
        if (nactive[t]) {
          active.push_back(t);
          factive[t] = 1;
          nactive[t] = 0;
        }
      }
      std::swap(f, nx);
      if (budget && work > budget) return false;
    }
    return true;
  }
};

template <class T>
bool dp_into(const std::vector<pos_t>& offsets, pos_t n, DistanceProfile& out, std::uint32_t reserve) {
  std::vector<T> d(n);
  if (!coin_change_dp<T>(offsets, n, d.data())) return false;
  out = DistanceProfile(n);
  out.reserve_value(reserve);
  constexpr T S = std::numeric_limits<T>::max();
  for (pos_t m = 0; m < n; ++m) out.set(m, d[m] == S ? UNREACHABLE : d[m]);
  return true;
}

DistanceProfile profile_by_dp(const std::vector<pos_t>& offsets, pos_t n) {
  DistanceProfile out;
  if (dp_into<std::uint8_t>(offsets, n, out, 0)) return out;
  if (dp_into<std::uint16_t>(offsets, n, out, 0xFF)) return out;
  dp_into<std::uint32_t>(offsets, n, out, 0xFFFF);
  return out;
}

}  // namespace

DistanceProfile offset_distance_profile(const std::vector<pos_t>& offsets, pos_t n, ProfileMethod method) {
  for (std::size_t k = 0; k < offsets.size(); ++k)
    if (offsets[k] == 0 || (k && offsets[k] <= offsets[k - 1]))
      throw UsageError("offset_distance_profile: offsets must be >= 1, ascending and distinct");
  if (n == 0) return DistanceProfile(0);
  std::vector<pos_t> offs;
  for (pos_t o : offsets)
    if (o < n) offs.push_back(o);
  if (method == ProfileMethod::Dp) return profile_by_dp(offs, n);
  DistanceProfile out(n);
  // Auto: give up on the BFS once it has spent n |F| word operations, about what the DP costs (n |F|
  // element steps, measured at about the same speed per step at n = 10^8); deep patterns (ssm, window:w)
  // have many thin levels and get there quickly.
  const std::uint64_t budget =
      method == ProfileMethod::Auto ? std::max<std::uint64_t>(1u << 16, std::uint64_t{n} * offs.size()) : 0;
  BitsetBfs bfs{offs, n, budget, out};
  if (bfs.run()) return out;
  return profile_by_dp(offs, n);
}

DistanceProfile distance_profile(const Pattern& p, ProfileMethod method) {
  if (!p.translation_invariant())
    throw UsageError("pattern '" + p.spec +
                     "' is not translation-invariant: it has no distance profile; use all-pairs distances");
  if (p.a_mode == AMode::Explicit && p.b_empty()) {
    DistanceProfile out(p.n);
    if (p.n) out.set(0, 0);
    for (pos_t o : p.a_offsets)
      if (o > 0 && o < p.n) out.set(o, 1);
    return out;
  }
  if (p.a_mode == AMode::Explicit)
    throw UsageError("pattern '" + p.spec +
                     "': translation-invariant patterns with both explicit A and B are "
                     "not supported by the profile");
  return offset_distance_profile(p.b_offsets, p.n, method);
}

}  // namespace mixgraph
