#pragma once
// Decode cost and cache profile (docs/math.md §2).
//
//   auto prof = mixgraph::cache_profile(mixgraph::make_pattern("pow2+cache", 1 << 20));
//   prof.max_cache;  // max_i |C_i|
#include <cstdint>
#include <vector>

#include "mixgraph/pattern.hpp"

namespace mixgraph {

struct ProfileOptions {
  int threads = 0;           ///< 0: all cores (OpenMP default)
  bool per_position = true;  ///< keep the per-position vectors (false: totals only, less memory)
};

struct PatternProfile {
  pos_t n = 0;
  nnz_t nnz_a = 0;              ///< nonzeros of A (diagonal included where A has it)
  nnz_t nnz_b = 0;              ///< nonzeros of B
  nnz_t total_decode_cost = 0;  ///< sum over i of decode_cost(i): whole-sequence work
  std::uint32_t max_decode_cost = 0;
  std::uint32_t max_cache = 0;     ///< max_i |C_i|
  pos_t argmax_cache = 0;          ///< 0-indexed position of the first maximum
  std::uint32_t max_kept_set = 0;  ///< cache-efficient patterns: max_i |S_i| (0 otherwise)
  /// Per position (0-indexed): distinct j < i read through A or B; |C_i|; |S_i| (cache-efficient only).
  std::vector<std::uint32_t> decode_cost;
  std::vector<std::uint32_t> cache_size;
  std::vector<std::uint32_t> kept_set;
};

/// Decode cost and cache of every position. C_i = { j <= i : some t in (i, n] reads j through A or B }.
/// j is in C_i exactly for j <= i < last_reader(j), so one pass over the reads finds last_reader and a
/// difference array gives every |C_i|. Translation-invariant patterns never materialise edges:
/// last_reader(j) = j + (largest read offset <= n - 1 - j), O(n + |F|) in all.
/// Explicit patterns: O(n + nnz). Memory O(n) beyond the pattern itself. Under a CancelScope
/// (mixgraph/cancel.hpp) whose flag is set, it stops within 2^16 positions and throws Cancelled.
PatternProfile cache_profile(const Pattern& p, const ProfileOptions& opt = {});

/// Sorted positions (0-indexed) that position i reads through B.
std::vector<pos_t> b_reads(const Pattern& p, pos_t i);

}  // namespace mixgraph
