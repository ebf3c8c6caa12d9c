// Named pattern families (dilated, strided) and the union operator: every pattern's reads, decode cost and
// distances against brute-force constructions written directly from the definitions in docs/math.md §2.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"

using namespace mixgraph;

namespace {

/// A brute-force pattern: for 1-indexed i, the sets of j read through B and through A.
struct Ref {
  std::function<bool(std::uint64_t, std::uint64_t)> b;  // b(i, j): i reads j through B (j < i)
  std::function<bool(std::uint64_t, std::uint64_t)> a;  // a(i, j): i reads j through A (j <= i)
};

/// The shared-A reference of a B relation: A reads B's positions and i itself.
Ref shared(std::function<bool(std::uint64_t, std::uint64_t)> b) {
  return {b, [b](std::uint64_t i, std::uint64_t j) { return j == i || b(i, j); }};
}

std::vector<pos_t> lib_b(const Pattern& p, pos_t i) {
  std::vector<pos_t> v;
  for_each_b_read(p, i, [&](pos_t j) { v.push_back(j); });
  return v;
}
std::vector<pos_t> lib_a(const Pattern& p, pos_t i) {
  std::vector<pos_t> v;
  for_each_a_read(p, i, [&](pos_t j) { v.push_back(j); });
  return v;
}

/// Reads (ascending, as the library promises), decode cost, and single-source distances against BFS on the
/// brute-force layered graph (x_j -> y_i through A as a first hop, y_j -> y_i through B; diagonal free).
void expect_matches(const std::string& spec, std::uint64_t n, const Ref& ref, bool check_distances = true) {
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

}  // namespace

TEST(PatternFamilies, DilatedReadsRTimesOneToW) {
  for (std::uint64_t n : {1u, 2u, 7u, 64u, 200u})
    for (std::uint64_t w : {1u, 3u, 8u})
      for (std::uint64_t r : {1u, 2u, 5u, 300u}) {
        expect_matches("dilated:" + std::to_string(w) + "," + std::to_string(r), n,
                       shared([=](std::uint64_t i, std::uint64_t j) {
                         return (i - j) % r == 0 && (i - j) / r >= 1 && (i - j) / r <= w;
                       }));
      }
  EXPECT_EQ(make_pattern("dilated:4,3", 100).family, PatternFamily::TranslationInvariant);
  EXPECT_EQ(make_pattern("dilated:4,3", 100).a_mode, AMode::Shared);
  // dilated:w,1 is window:w
  EXPECT_EQ(make_pattern("dilated:9,1", 50).b_offsets, make_pattern("window:9", 50).b_offsets);
}

TEST(PatternFamilies, StridedReadsLocalWindowAndEveryMultiple) {
  for (std::uint64_t n : {1u, 2u, 7u, 64u, 200u})
    for (std::uint64_t w : {1u, 4u, 16u})
      for (std::uint64_t s : {1u, 3u, 8u, 500u}) {
        expect_matches(
            "strided:" + std::to_string(w) + "," + std::to_string(s), n,
            shared([=](std::uint64_t i, std::uint64_t j) { return i - j <= w || (i - j) % s == 0; }));
      }
  EXPECT_EQ(make_pattern("strided:3,7", 100).family, PatternFamily::TranslationInvariant);
}

TEST(PatternFamilies, RefusesBadParameters) {
  expect_error<UsageError>("dilated:0,2", 10, ">= 1");
  expect_error<UsageError>("dilated:3,0", 10, ">= 1");
  expect_error<UsageError>("dilated:3", 10, "dilated:w,r");
  expect_error<UsageError>("dilated:3,2,1", 10, "dilated:w,r");
  expect_error<UsageError>("dilated:a,2", 10, "not a positive integer");
  expect_error<UsageError>("strided:4,0", 10, ">= 1");
  expect_error<UsageError>("strided:4", 10, "strided:w,s");
  expect_error<UsageError>("strided:-1,2", 10, "not a positive integer");
  expect_error<UsageError>("dilated:2,2", 0, "n must be >= 1");
}
