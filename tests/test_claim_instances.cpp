// Claims split into instances: running every instance alone and merging gives exactly the whole claim's
// outcome, a failure planted in any one instance makes the merged claim FAIL with that instance's
// counterexample, and the merge rules match a brute-force fold over the parts' findings in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "mixgraph/claims.hpp"

using namespace mixgraph;

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

std::string cat(std::string a, const std::string& b) {
  a.append(b);
  return a;
}

void expect_same(const ClaimResult& a, const ClaimResult& b) {
  const auto &x = a.outcome, &y = b.outcome;
  EXPECT_EQ(x.verdict, y.verdict);
  EXPECT_EQ(x.passed, y.passed);
  EXPECT_EQ(x.checked, y.checked);
  EXPECT_EQ(x.worst, y.worst);
  EXPECT_EQ(x.counterexample, y.counterexample);
  EXPECT_EQ(x.error, y.error);
  EXPECT_EQ(x.detail, y.detail);
  EXPECT_EQ(x.instances, y.instances);
  ASSERT_EQ(x.not_applicable.size(), y.not_applicable.size());
  for (std::size_t i = 0; i < x.not_applicable.size(); ++i) {
    EXPECT_EQ(x.not_applicable[i].pattern, y.not_applicable[i].pattern);
    EXPECT_EQ(x.not_applicable[i].reason, y.not_applicable[i].reason);
  }
}

/// Every instance run alone, last to first (as ranks finish in any order), put back in order.
std::vector<ClaimPart> run_parts(const std::string& id, const ClaimContext& ctx, std::size_t perturbed) {
  const auto names = claim_instance_names(id, ctx);
  std::vector<ClaimPart> parts(names.size());
  for (std::size_t i = names.size(); i-- > 0;) {
    ClaimContext one = ctx;
    one.perturb = i == perturbed;
    parts[i] = run_claim_instance(id, one, i);
  }
  return parts;
}

struct Case {
  std::string id;
  ClaimContext ctx;
};

std::vector<Case> cases() {
  std::vector<Case> v;
  ClaimContext small;
  small.n_max = 64;
  small.threads = 1;
  ClaimContext some = small;  // with patterns out of scope for some claims (NOT APPLICABLE parts)
  some.patterns = {"pow2+cache", "sq1", "window:3"};
  ClaimContext tiny = small;  // one of n = 2, 17, 64, 100 below the cap: fewer lengths
  tiny.n_max = 20;
  for (const char* id : {"fagnou.menger", "fagnou.prop4.4", "fagnou.cache-rank-bound"})
    for (const auto& c : {small, some, tiny}) v.push_back({id, c});
  // above prop4.4's n_limit (2048): the clamp note must survive the merge; a cheap pattern checked at the
  // clamped n (pow2: every pair in ~0.1 s, where window:3 and offsets:2 took ~5 s) and one out of scope
  ClaimContext clamped = small;
  clamped.n_max = 3000;
  clamped.patterns = {"pow2", "fib+cache"};
  v.push_back({"fagnou.prop4.4", clamped});
  return v;
}

std::string label(const Case& c) {
  std::string p;
  for (const auto& s : c.ctx.patterns) p = cat(cat(p, " "), s);
  return cat(cat(cat(c.id, " n_max="), std::to_string(c.ctx.n_max)), p);
}

}  // namespace

TEST(ClaimInstances, HeavyClaimsSplit) {
  std::size_t split = 0;
  for (const auto& c : registered_claims()) split += c.instances.has_value();
  EXPECT_GE(split, 3u);
  ClaimContext ctx;
  EXPECT_GT(claim_instance_names("fagnou.menger", ctx).size(), 7u);
  EXPECT_EQ(claim_instance_costs("fagnou.menger", ctx).size(),
            claim_instance_names("fagnou.menger", ctx).size());
  EXPECT_TRUE(claim_instance_names("fagnou.prop4.12", ctx).empty());  // not split: runs whole
  ctx.n_max = 1;
  EXPECT_TRUE(claim_instance_names("fagnou.menger", ctx).empty());  // the empty range runs whole (ERROR)
}

TEST(ClaimInstances, MergedEqualsWhole) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(label(c));
    const auto whole = run_claims({c.id}, c.ctx).at(0);
    ASSERT_GT(claim_instance_names(c.id, c.ctx).size(), 1u);
    const auto merged = merge_claim_instances(c.id, c.ctx, run_parts(c.id, c.ctx, kNone));
    expect_same(whole, merged);
    EXPECT_EQ(merged.claim.id, c.id);
    if (c.ctx.n_max > 2048 && c.id == "fagnou.prop4.4") {  // the clamped case: checked at 2048, said so
      EXPECT_NE(merged.outcome.checked.find("n = 2048"), std::string::npos) << merged.outcome.checked;
      EXPECT_NE(merged.outcome.checked.find("clamped to 2048"), std::string::npos) << merged.outcome.checked;
      EXPECT_EQ(merged.outcome.verdict, "PASSED");
      EXPECT_EQ(merged.outcome.not_applicable.size(), 1u);
    }
  }
}

TEST(ClaimInstances, PlantedFailureInOneInstanceFailsTheMergedClaim) {
  std::size_t planted = 0;
  for (const auto& c : cases()) {
    SCOPED_TRACE(label(c));
    const auto names = claim_instance_names(c.id, c.ctx);
    const auto clean = run_parts(c.id, c.ctx, kNone);
    if (merge_claim_parts(clean).counterexample_count > 0) continue;  // fails already (out of its scope)
    bool first_measured = true;
    for (std::size_t k = 0; k < names.size(); ++k) {
      if (clean[k].checked == 0) continue;  // out of scope, or no cut: nothing to corrupt
      SCOPED_TRACE(names[k]);
      auto parts = clean;
      ClaimContext one = c.ctx;
      one.perturb = true;
      parts[k] = run_claim_instance(c.id, one, k);
      ASSERT_EQ(parts[k].counterexample_count, 1u);
      const auto& cex = parts[k].counterexamples.at(0);
      EXPECT_EQ(cex.rfind(names[k].substr(0, names[k].find(' ')), 0), 0u) << cex;  // names its pattern
      const auto merged = merge_claim_instances(c.id, c.ctx, parts);
      ++planted;
      EXPECT_EQ(merged.outcome.verdict, "FAILED");
      EXPECT_EQ(merged.outcome.counterexample, cex);
      if (first_measured) {  // the whole claim's own test hook perturbs this very instance
        ClaimContext p = c.ctx;
        p.perturb = true;
        expect_same(run_claims({c.id}, p).at(0), merged);
        first_measured = false;
      }
    }
  }
  EXPECT_GE(planted, 20u);
}

TEST(ClaimInstances, AnInstanceThatThrowsMakesTheClaimAnError) {
  ClaimContext ctx;
  ctx.n_max = 32;
  ctx.patterns = {"pow2", "no-such-pattern:1"};
  const auto whole = run_claims({"fagnou.menger"}, ctx).at(0);
  ASSERT_EQ(whole.outcome.verdict, "ERROR");
  expect_same(whole, merge_claim_instances("fagnou.menger", ctx, run_parts("fagnou.menger", ctx, kNone)));
}

// The merge against a brute-force fold over the findings in order (what one loop over every instance
// would have collected).
TEST(ClaimInstances, MergeRulesMatchAFoldInOrder) {
  std::mt19937_64 rng(11);
  for (int t = 0; t < 200; ++t) {
    std::vector<ClaimPart> parts(1 + rng() % 6);
    std::vector<std::string> all_cex;
    std::vector<std::pair<double, std::string>> measured;
    std::vector<double> sums;
    std::vector<std::string> skips;
    std::uint64_t checked = 0;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      auto& p = parts[k];
      const int m = static_cast<int>(rng() % 5);
      for (int i = 0; i < m; ++i) {
        const double v = static_cast<double>(rng() % 4) + (rng() % 9 == 0 ? INFINITY : 0.0);
        const std::string at = cat(cat(std::to_string(k), "."), std::to_string(i));
        measured.push_back({v, at});
        ++p.checked, ++checked;
        if (v > p.worst) p.worst = v, p.worst_at = at;
        if (rng() % 3 == 0) {
          p.add_counterexample(cat("cex ", at));
          all_cex.push_back(cat("cex ", at));
        }
      }
      p.sum = static_cast<double>(rng() % 1000) * 1e-17;
      sums.push_back(p.sum);
      if (rng() % 4 == 0) {
        p.not_applicable.push_back({cat("p", std::to_string(k)), "why"});
        skips.push_back(cat("p", std::to_string(k)));
      } else if (k > 0 && !skips.empty() && rng() % 3 == 0) {  // the last skip again: listed once
        p.not_applicable.push_back({skips.back(), "why"});
      }
    }
    const auto m = merge_claim_parts(parts);
    EXPECT_EQ(m.checked, checked);
    EXPECT_EQ(m.counterexample_count, all_cex.size());
    all_cex.resize(std::min<std::size_t>(all_cex.size(), 5));
    EXPECT_EQ(m.counterexamples, all_cex);
    double worst = 0, sum = 0;
    std::string at;
    for (const auto& [v, a] : measured)
      if (v > worst) worst = v, at = a;
    for (double s : sums) sum += s;
    EXPECT_EQ(m.worst, worst);
    EXPECT_EQ(m.worst_at, at);
    EXPECT_EQ(m.sum, sum);
    ASSERT_EQ(m.not_applicable.size(), skips.size());
    for (std::size_t i = 0; i < skips.size(); ++i) EXPECT_EQ(m.not_applicable[i].pattern, skips[i]);
  }
}
