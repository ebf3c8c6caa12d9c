// Patterns: named offsets, expressions, offsets lists, cache-efficient construction (Def. 4.10 vs a naive
// transcription and vs the closed form of Prop. 4.12), matrix patterns, and every bad-input refusal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"

using namespace mixgraph;

namespace {

std::vector<std::uint64_t> ref_offsets(std::uint64_t n, auto f) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t k = 0;; ++k) {
    const std::uint64_t x = f(k);
    if (x >= n) break;
    if (v.empty() || v.back() != x) v.push_back(x);
  }
  return v;
}

/// Def. 4.10 transcribed directly with std::set (1-indexed), independent of the library's pointer walk.
std::vector<std::set<std::uint64_t>> naive_cache_efficient(const std::vector<std::uint64_t>& f,
                                                           std::uint64_t n) {
  std::vector<std::set<std::uint64_t>> S(n + 1);
  for (std::uint64_t i = 1; i <= n; ++i) {
    std::set<std::uint64_t> allowed = S[i - 1];
    allowed.insert(i);
    std::set<std::uint64_t> s;
    for (auto fk : f)
      if (fk < i) s.insert(*allowed.lower_bound(i - fk));
    s.insert(i);
    S[i] = s;
  }
  return S;
}

std::set<std::uint64_t> row_set(const Csr& m, pos_t i) {
  std::set<std::uint64_t> s;
  for (pos_t j : m.row(i)) s.insert(j + 1);
  return s;
}

template <class E>
void expect_pattern_error(const std::string& spec, std::uint64_t n, const std::string& needle) {
  try {
    make_pattern(spec, n);
    FAIL() << "expected an error for '" << spec << "'";
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Pattern, NamedOffsetsMatchTheirDefinitions) {
  for (std::uint64_t n : {1u, 2u, 3u, 17u, 100u, 4097u}) {
    EXPECT_EQ(make_pattern("pow2", n).f_values, ref_offsets(n, [](auto k) { return std::uint64_t{1} << k; }));
    EXPECT_EQ(make_pattern("pow:3", n).f_values, ref_offsets(n, [](auto k) {
                return static_cast<std::uint64_t>(std::llround(std::pow(3.0, k)));
              }));
    EXPECT_EQ(make_pattern("sq1", n).f_values, ref_offsets(n, [](auto k) { return k * k + 1; }));
    EXPECT_EQ(make_pattern("sq", n).f_values, ref_offsets(n, [](auto k) { return (k + 1) * (k + 1); }));
    EXPECT_EQ(make_pattern("window:5", n).f_values,
              ref_offsets(n, [](auto k) { return k < 5 ? k + 1 : std::uint64_t{1} << 40; }));
    EXPECT_EQ(make_pattern("dense", n).f_values, ref_offsets(n, [](auto k) { return k + 1; }));
  }
  auto fib = make_pattern("fib", 100).f_values;
  EXPECT_EQ(fib, (std::vector<std::uint64_t>{1, 2, 3, 5, 8, 13, 21, 34, 55, 89}));
}

TEST(Pattern, ReadsAndAModes) {
  auto p = make_pattern("pow2", 100);
  EXPECT_EQ(p.a_mode, AMode::Shared);
  std::vector<pos_t> r;
  for_each_b_read(p, 19, [&](pos_t j) { r.push_back(j + 1); });  // position 20
  EXPECT_EQ(r, (std::vector<pos_t>{4, 12, 16, 18, 19}));
  std::vector<pos_t> a;
  for_each_a_read(p, 19, [&](pos_t j) { a.push_back(j + 1); });
  EXPECT_EQ(a, (std::vector<pos_t>{4, 12, 16, 18, 19, 20}));

  auto s = make_pattern("ssm", 10);
  EXPECT_EQ(s.a_mode, AMode::Diagonal);
  a.clear();
  for_each_a_read(s, 5, [&](pos_t j) { a.push_back(j); });
  EXPECT_EQ(a, (std::vector<pos_t>{5}));

  auto l = make_pattern("local:3", 10);
  EXPECT_TRUE(l.b_empty());
  a.clear();
  for_each_a_read(l, 5, [&](pos_t j) { a.push_back(j); });
  EXPECT_EQ(a, (std::vector<pos_t>{2, 3, 4, 5}));

  auto at = make_pattern("attention", 8);
  a.clear();
  for_each_a_read(at, 7, [&](pos_t j) { a.push_back(j); });
  EXPECT_EQ(a.size(), 8u);
}

TEST(Pattern, OffsetsListIsSortedAndDeduplicated) {
  EXPECT_EQ(make_pattern("offsets:6,1,5,5", 100).f_values, (std::vector<std::uint64_t>{1, 5, 6}));
  EXPECT_EQ(make_pattern("offsets:6,1,50", 10).f_values, (std::vector<std::uint64_t>{1, 6}));
  expect_pattern_error<UsageError>("offsets:1,0", 10, "must be >= 1");
  expect_pattern_error<UsageError>("offsets:1,,2", 10, "empty item");
  expect_pattern_error<UsageError>("offsets:1,x", 10, "not a positive integer");
}

#ifdef MIXGRAPH_HAVE_MUPARSER
TEST(Expression, EvaluatesAndStopsAtN) {
  EXPECT_EQ(make_pattern("expr:3^k", 100).f_values, (std::vector<std::uint64_t>{1, 3, 9, 27, 81}));
  EXPECT_EQ(make_pattern("expr:k^3+1", 100).f_values, (std::vector<std::uint64_t>{1, 2, 9, 28, 65}));
  EXPECT_EQ(make_pattern("expr:2^k", 5000).f_values, make_pattern("pow2", 5000).f_values);
  EXPECT_EQ(make_pattern("expr:k^2+1", 5000).f_values, make_pattern("sq1", 5000).f_values);
  // floor / ceil / round exist; equal values merge.
  EXPECT_EQ(make_pattern("expr:floor(k/2)+1", 6).f_values, (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(make_pattern("expr:ceil(1.5*k)+1", 12).f_values,
            (std::vector<std::uint64_t>{1, 3, 4, 6, 7, 9, 10}));
  EXPECT_EQ(make_pattern("expr:round(k*0.5)+1", 5).f_values, (std::vector<std::uint64_t>{1, 2, 3, 4}));
  // whitespace and +cache suffix on an expression
  auto ce = make_pattern("expr:k^3+1+cache", 200);
  EXPECT_EQ(ce.family, PatternFamily::CacheEfficient);
  EXPECT_EQ(ce.base, "expr:k^3+1");
}

TEST(Expression, RefusesBadFunctionsNamingKAndValue) {
  expect_pattern_error<UsageError>("expr:1", 100, "f(63) = 1 repeats the same value 64 times");
  expect_pattern_error<UsageError>("expr:k/2+1", 100, "f(1) = 1.5 is not an integer");
  expect_pattern_error<UsageError>("expr:10-k", 100, "f(1) = 9 decreases");
  expect_pattern_error<UsageError>("expr:k", 100, "f(0) = 0 is below 1");
  expect_pattern_error<UsageError>("expr:sqrt(k-1)", 100, "f(0) = nan is not finite");
  expect_pattern_error<UsageError>("expr:1/k+1", 100, "f(0) = inf is not finite");
  expect_pattern_error<UsageError>("expr:3^(k", 100, "malformed expression");
  expect_pattern_error<UsageError>("expr:3^k+", 100, "at character");
  expect_pattern_error<UsageError>("expr:3^j", 100, "malformed expression");
  expect_pattern_error<UsageError>("expr:", 100, "empty");
}
#else
TEST(Expression, SaysNotBuiltIn) {
  expect_pattern_error<RuntimeFailure>("expr:3^k", 100, "not built in");
}
#endif

TEST(Pattern, RefusesUnknownNamesAndBadN) {
  expect_pattern_error<UsageError>("pow3", 10, "valid patterns: pow2");
  expect_pattern_error<UsageError>("", 10, "empty pattern");
  expect_pattern_error<UsageError>("pow:1", 10, "must be >= 2");
  expect_pattern_error<UsageError>("pow:x", 10, "not a positive integer");
  expect_pattern_error<UsageError>("window:0", 10, "must be >= 1");
  expect_pattern_error<UsageError>("pow2", 0, "n must be >= 1");
  expect_pattern_error<UsageError>("pow2", 1ull << 33, "fit in 32 bits");
  expect_pattern_error<UsageError>("+cache", 10, "needs a pattern before it");
  expect_pattern_error<UsageError>("pow2+cache+cache", 10, "translation-invariant patterns only");
  expect_pattern_error<UsageError>("mtx:x.mtx+cache", 10, "an mtx: pattern has no offsets");
}

TEST(CacheEfficient, PaperExamples) {
  auto p = make_pattern("pow2+cache", 64);
  EXPECT_EQ(row_set(p.b, 19), (std::set<std::uint64_t>{8, 12, 16, 18, 19}));
  EXPECT_EQ(row_set(p.b, 63), (std::set<std::uint64_t>{32, 48, 56, 60, 62, 63}));
  EXPECT_EQ(closed_form_factors(make_pattern("pow2", 1000).f_values),
            (std::vector<std::uint64_t>{1, 1, 2, 4, 8, 16, 32, 64, 128, 256}));
  const auto a = closed_form_factors(make_pattern("sq1", 1000).f_values);
  EXPECT_EQ(std::vector<std::uint64_t>(a.begin(), a.begin() + 9),
            (std::vector<std::uint64_t>{1, 1, 3, 6, 12, 12, 12, 24, 24}));
}

TEST(CacheEfficient, RecursionMatchesNaiveDefinitionAndClosedForm) {
  std::mt19937_64 rng(7);
  std::vector<std::vector<std::uint64_t>> fs = {
      make_pattern("pow2", 300).f_values, make_pattern("sq1", 300).f_values,
      make_pattern("fib", 300).f_values, make_pattern("pow:3", 300).f_values,
      make_pattern("window:4", 300).f_values};
  for (int t = 0; t < 25; ++t) {  // random increasing f with f(0) = 1
    std::vector<std::uint64_t> f = {1};
    while (true) {
      const std::uint64_t next = f.back() + 1 + rng() % (f.size() * 3 + 2);
      if (next >= 300) break;
      f.push_back(next);
    }
    fs.push_back(f);
  }
  for (const auto& f : fs) {
    const pos_t n = 300;
    const Csr rec = cache_efficient_reads(f, n);
    const auto naive = naive_cache_efficient(f, n);
    const auto closed = cache_efficient_closed_form(f, n);
    ASSERT_TRUE(closed.has_value());
    for (pos_t i = 0; i < n; ++i) {
      auto expect = naive[i + 1];
      expect.erase(i + 1);
      ASSERT_EQ(row_set(rec, i), expect) << "position " << i + 1;
      ASSERT_EQ(row_set(*closed, i), expect) << "closed form, position " << i + 1;
    }
  }
}

TEST(CacheEfficient, ClosedFormFailsWhenF0IsAboveOne) {
  // docs/math.md §2: offsets {5}: the recursion makes token 6 read 5, the closed form would say 1.
  const std::vector<std::uint64_t> f = {5};
  EXPECT_FALSE(cache_efficient_closed_form(f, 20).has_value());
  const Csr rec = cache_efficient_reads(f, 20);
  EXPECT_EQ(row_set(rec, 5), (std::set<std::uint64_t>{5}));
  const auto naive = naive_cache_efficient(f, 20);
  for (pos_t i = 0; i < 20; ++i) {
    auto expect = naive[i + 1];
    expect.erase(i + 1);
    EXPECT_EQ(row_set(rec, i), expect);
  }
  auto p = make_pattern("offsets:5+cache", 20);
  EXPECT_EQ(row_set(p.b, 5), (std::set<std::uint64_t>{5}));
}

TEST(CacheEfficient, AOnlyBasesRoundAReads) {
  auto p = make_pattern("local:3+cache", 20);
  EXPECT_EQ(p.a_mode, AMode::Explicit);
  EXPECT_TRUE(p.b_empty());
  // window offsets 1..3 have a_k = 1: rounding changes nothing, so A keeps i-3..i.
  for (pos_t i = 0; i < 20; ++i) {
    std::vector<pos_t> a;
    for_each_a_read(p, i, [&](pos_t j) { a.push_back(j); });
    std::vector<pos_t> expect;
    for (pos_t j = i >= 3 ? i - 3 : 0; j <= i; ++j) expect.push_back(j);
    EXPECT_EQ(a, expect);
  }
}
