// The decode state of log-linear attention (loglinear_decode_state, docs/math.md §2) against a decoder
// simulated here: a Fenwick hierarchy of buckets that merges two equal ones as a binary counter carries,
// and, for small n, the distinct levels of every (query, key) pair counted one by one.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "mixgraph/error.hpp"
#include "mixgraph/hierarchical.hpp"

namespace {

struct Simulated {
  std::uint32_t levels = 0, max_states = 0;
  std::uint64_t max_states_position = 0, total_states = 0;
};

/// Decodes n tokens: before query t the decoder holds one bucket per block of earlier keys (sizes are
/// powers of two); query t reads them and its own key (level 0), then its key joins as a block of size 1
/// and equal blocks merge. The level of a block of size 2^(l-1) is l.
Simulated simulate(std::uint64_t n) {
  Simulated s;
  std::vector<std::uint64_t> blocks;  // sizes, largest first
  std::uint32_t top_level = 0;
  for (std::uint64_t t = 0; t < n; ++t) {
    const auto reads = static_cast<std::uint32_t>(blocks.size() + 1);
    s.total_states += reads;
    if (reads > s.max_states) {
      s.max_states = reads;
      s.max_states_position = t + 1;
    }
    for (auto b : blocks) {
      std::uint32_t l = 1;
      while ((std::uint64_t{1} << (l - 1)) < b) ++l;
      top_level = std::max(top_level, l);
    }
    blocks.push_back(1);
    while (blocks.size() >= 2 && blocks[blocks.size() - 1] == blocks[blocks.size() - 2]) {
      blocks.pop_back();
      blocks.back() *= 2;
    }
  }
  s.levels = top_level + 1;
  return s;
}

/// The number of distinct levels over all pairs s <= t < n, the level found by scanning for the highest
/// differing bit (not bit_width).
std::uint32_t distinct_levels(std::uint64_t n) {
  std::set<std::uint32_t> seen;
  for (std::uint64_t t = 0; t < n; ++t)
    for (std::uint64_t s = 0; s <= t; ++s) {
      std::uint32_t l = 0;
      for (std::uint32_t b = 0; b < 64; ++b)
        if (((t >> b) & 1) != ((s >> b) & 1)) l = b + 1;
      seen.insert(l);
    }
  return static_cast<std::uint32_t>(seen.size());
}

}  // namespace

TEST(LogLinearDecodeState, MatchesSimulatedFenwickDecoder) {
  std::vector<std::uint64_t> ns;
  for (std::uint64_t n = 1; n <= 300; ++n) ns.push_back(n);
  for (std::uint64_t n : {511, 512, 513, 1000, 1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536, 100000})
    ns.push_back(n);
  for (auto n : ns) {
    const auto got = mixgraph::loglinear_decode_state(n);
    const auto ref = simulate(n);
    EXPECT_EQ(got.n, n);
    EXPECT_EQ(got.max_states, ref.max_states) << "n = " << n;
    EXPECT_EQ(got.max_kept_states + 1, ref.max_states) << "n = " << n;
    EXPECT_EQ(got.max_states_position, ref.max_states_position) << "n = " << n;
    EXPECT_EQ(got.total_states, ref.total_states) << "n = " << n;
    EXPECT_EQ(got.levels, ref.levels) << "n = " << n;
    // the buckets of `rank loglinear` are the states one query reads
    EXPECT_EQ(got.max_states, mixgraph::loglinear_summary(n, 1, 0).max_levels) << "n = " << n;
  }
}

TEST(LogLinearDecodeState, LevelsAreTheDistinctLevelsOfThePairs) {
  for (std::uint64_t n : {1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 100, 128, 129})
    EXPECT_EQ(mixgraph::loglinear_decode_state(n).levels, distinct_levels(n)) << "n = " << n;
}

TEST(LogLinearDecodeState, RefusesEmptySequence) {
  EXPECT_THROW(mixgraph::loglinear_decode_state(0), mixgraph::UsageError);
}
