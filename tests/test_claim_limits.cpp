// A claim's n_limit: run_claims clamps a larger --n-max to it and says so in `checked`; below the limit, or
// without one, the check sees the n_max asked for. Checked with test claims that record the n they got.
#include <gtest/gtest.h>

#include <cstdint>

#include "mixgraph/claims.hpp"

namespace {

std::uint64_t g_seen = 0;

mixgraph::ClaimOutcome record(const mixgraph::ClaimContext& ctx) {
  g_seen = ctx.n_max;
  mixgraph::ClaimOutcome o;
  o.checked = "n = 2.." + std::to_string(ctx.n_max);
  o.instances = 1;
  return o;
}

const mixgraph::ClaimRegistrar limited({"test.limited", "test", "-", "records n_max", "-", record, 100});
const mixgraph::ClaimRegistrar unlimited({"test.unlimited", "test", "-", "records n_max", "-", record});

mixgraph::ClaimResult run_one(const std::string& id, std::uint64_t n_max) {
  mixgraph::ClaimContext ctx;
  ctx.n_max = n_max;
  const auto r = mixgraph::run_claims({id}, ctx);
  EXPECT_EQ(r.size(), 1u);
  return r.at(0);
}

}  // namespace

TEST(ClaimLimits, AboveTheLimitIsClampedAndSaid) {
  g_seen = 0;
  const auto r = run_one("test.limited", 1ull << 24);
  EXPECT_EQ(g_seen, 100u);
  EXPECT_EQ(r.outcome.checked,
            "n = 2..100 (--n-max 16777216 clamped to 100, this check's limit: its work grows "
            "faster than n)");
  EXPECT_EQ(r.outcome.verdict, "PASSED");
}

TEST(ClaimLimits, AtOrBelowTheLimitIsUntouched) {
  for (std::uint64_t n : {2ull, 99ull, 100ull}) {
    g_seen = 0;
    const auto r = run_one("test.limited", n);
    EXPECT_EQ(g_seen, n);
    EXPECT_EQ(r.outcome.checked, "n = 2.." + std::to_string(n));
  }
}

TEST(ClaimLimits, DefaultRangeAndNoLimitAreUntouched) {
  g_seen = 7;
  run_one("test.limited", 0);  // 0: the claim's own default range, not clamped to anything
  EXPECT_EQ(g_seen, 0u);
  g_seen = 0;
  const auto r = run_one("test.unlimited", 1ull << 24);
  EXPECT_EQ(g_seen, 1ull << 24);
  EXPECT_EQ(r.outcome.checked.find("clamped"), std::string::npos);
}

TEST(ClaimLimits, TheRegisteredSuperLinearChecksHaveLimits) {
  // every pair (prop4.4) or every cut (cache-rank-bound): without a limit, --n-max 2^24 would run for hours
  for (const auto& c : mixgraph::registered_claims())
    if (c.id == "fagnou.prop4.4" || c.id == "fagnou.cache-rank-bound") {
      EXPECT_GT(c.n_limit, 0u) << c.id;
      EXPECT_LE(c.n_limit, 1u << 14) << c.id;
    }
}
