#pragma once
// Brute-force pattern references for the pattern-family tests: reads, decode cost and single-source
// distances of a pattern against relations written directly from the definitions in docs/math.md §2.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "mixgraph/distances.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"

namespace pattern_ref {

using namespace mixgraph;
/// A brute-force pattern: for 1-indexed i, the sets of j read through B and through A.
struct Ref {
  std::function<bool(std::uint64_t, std::uint64_t)> b;  // b(i, j): i reads j through B (j < i)
  std::function<bool(std::uint64_t, std::uint64_t)> a;  // a(i, j): i reads j through A (j <= i)
};

/// The shared-A reference of a B relation: A reads B's positions and i itself.
inline Ref shared(std::function<bool(std::uint64_t, std::uint64_t)> b) {
  return {b, [b](std::uint64_t i, std::uint64_t j) { return j == i || b(i, j); }};
}

inline std::vector<pos_t> lib_b(const Pattern& p, pos_t i) {
  std::vector<pos_t> v;
  for_each_b_read(p, i, [&](pos_t j) { v.push_back(j); });
  return v;
}
inline std::vector<pos_t> lib_a(const Pattern& p, pos_t i) {
  std::vector<pos_t> v;
  for_each_a_read(p, i, [&](pos_t j) { v.push_back(j); });
  return v;
}

/// Reads (ascending, as the library promises), decode cost, and single-source distances against BFS on the
/// brute-force layered graph (x_j -> y_i through A as a first hop, y_j -> y_i through B; diagonal free).
inline void expect_matches(const std::string& spec, std::uint64_t n, const Ref& ref,
                           bool check_distances = true) {
  SCOPED_TRACE(spec + " n=" + std::to_string(n));
  const Pattern p = make_pattern(spec, n);
  ASSERT_EQ(p.n, n);
  const auto prof = cache_profile(p);
  for (std::uint64_t i = 1; i <= n; ++i) {
    std::vector<pos_t> eb, ea;
    std::set<std::uint64_t> decode;
    for (std::uint64_t j = 1; j <= i; ++j) {
      if (j < i && ref.b(i, j)) eb.push_back(static_cast<pos_t>(j - 1));
      if (ref.a(i, j)) ea.push_back(static_cast<pos_t>(j - 1));
      if (j < i && (ref.b(i, j) || ref.a(i, j))) decode.insert(j);
    }
    ASSERT_EQ(lib_b(p, static_cast<pos_t>(i - 1)), eb) << "B reads of position " << i;
    ASSERT_EQ(lib_a(p, static_cast<pos_t>(i - 1)), ea) << "A reads of position " << i;
    ASSERT_EQ(prof.decode_cost[i - 1], decode.size()) << "decode cost of position " << i;
  }
  if (!check_distances) return;
  for (std::uint64_t src : {std::uint64_t{1}, (n + 1) / 2, n}) {
    constexpr std::uint32_t inf = UNREACHABLE;
    std::vector<std::uint32_t> d(n + 1, inf);  // d[i] = d(i, src), 1-indexed
    for (std::uint64_t i = src; i <= n; ++i) {
      if (ref.a(i, src)) d[i] = i == src ? 0 : 1;
      for (std::uint64_t j = src; j < i; ++j)
        if (ref.b(i, j) && d[j] != inf) d[i] = std::min(d[i], d[j] + 1);
    }
    const auto got = single_source_distances(p, static_cast<pos_t>(src - 1));
    for (std::uint64_t i = 1; i <= n; ++i) ASSERT_EQ(got[i - 1], d[i]) << "d(" << i << ", " << src << ")";
  }
}

template <class E>
void expect_error(const std::string& spec, std::uint64_t n, const std::string& needle) {
  try {
    make_pattern(spec, n);
    FAIL() << "expected an error for '" << spec << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

}  // namespace pattern_ref
