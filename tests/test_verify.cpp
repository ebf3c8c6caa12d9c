// The claim registry: every claim passes on its true statement, and every claim's check can fail (the
// perturb hook corrupts one measured value and the check must report FAILED, not PASSED).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "mixgraph/claims.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern_spec.hpp"

using namespace mixgraph;

TEST(Verify, RegistryHasTheFoundationClaims) {
  std::vector<std::string> ids;
  for (const auto& c : registered_claims()) {
    ids.push_back(c.id);
    EXPECT_FALSE(c.statement.empty()) << c.id;
    EXPECT_FALSE(c.source.empty()) << c.id;
    EXPECT_TRUE(static_cast<bool>(c.check) != c.instances.has_value()) << c.id;  // one of the two ways
  }
  for (const char* id : {"fagnou.prop4.2", "fagnou.prop4.12", "fagnou.cache-chain", "fagnou.prop4.4",
                         "fagnou.cor4.5", "fagnou.cor4.5.log2-bound", "guo.loglinear.buckets",
                         "guo.loglinear.hodlr", "ghodsi.rank-gap", "ghodsi.heads", "fagnou.menger",
                         "fagnou.cache-rank-bound", "fagnou.eq1-eq2", "fagnou.weight-sharing"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
}

TEST(Verify, EveryClaimRunsAtSmallRangeAndEveryCheckCanFail) {
  for (const auto& c : registered_claims()) {
    ClaimContext ctx;
    // fagnou.menger costs O(n^4) (every cut of the dense pattern): 128 here, its cap (384) in the
    // cli_verify_limits test; at 512 it took nine tenths of this test
    ctx.n_max = c.id == "fagnou.menger" ? 128 : 512;
    const auto ok = run_claims({c.id}, ctx).at(0).outcome;
    ASSERT_TRUE(ok.passed.has_value()) << c.id << ": " << ok.error.value_or("");
    ClaimContext bad = ctx;
    bad.perturb = true;
    const auto r = run_claims({c.id}, bad).at(0).outcome;
    ASSERT_TRUE(r.passed.has_value()) << c.id << ": " << r.error.value_or("");
    EXPECT_FALSE(*r.passed) << c.id << " still PASSED with a perturbed result";
    EXPECT_TRUE(r.counterexample.has_value()) << c.id;
  }
}

TEST(Verify, FoundationClaimsHold) {
  ClaimContext ctx;
  ctx.n_max = 2048;
  for (const char* id : {"fagnou.prop4.2", "fagnou.prop4.12", "fagnou.cache-chain"}) {
    const auto o = run_claims({id}, ctx).at(0).outcome;
    ASSERT_TRUE(o.passed.has_value()) << id;
    EXPECT_TRUE(*o.passed) << id << ": " << o.counterexample.value_or("");
  }
  // Prop. 4.12's detail carries the f(0) > 1 counterexample: token 6 reads 5, the closed form says 1.
  const auto d = run_claims({"fagnou.prop4.12"}, ctx).at(0).outcome.detail;
  EXPECT_NE(d.find("token 6 reads 5 by the recursion, the closed form would say 1"), std::string::npos) << d;
}

TEST(Verify, Prop412StepsMatchesTheWorkedValuesAndCanFail) {
  // the step values worked out by hand in docs/math.md (Prop. 4.12): 2^k: p_k = 2^{k-1} (k >= 1);
  // k^2 + 1: 1, 1, 3, 6, 12, 12, 12, 24, 24
  ClaimContext ctx;
  ctx.patterns = {"pow2", "sq1"};
  ctx.n_max = 4096;
  const auto o = run_claims({"fagnou.prop4.12.steps"}, ctx).at(0).outcome;
  EXPECT_EQ(o.verdict, "PASSED") << o.counterexample.value_or("");
  EXPECT_NE(o.detail.find("pow2: p = 1, 1, 2, 4, 8, 16, 32, 64, 128, 256"), std::string::npos) << o.detail;
  EXPECT_NE(o.detail.find("sq1: p = 1, 1, 3, 6, 12, 12, 12, 24, 24"), std::string::npos) << o.detail;
  ctx.perturb = true;  // a wrong step (p_1 + 1) is a counterexample
  const auto bad = run_claims({"fagnou.prop4.12.steps"}, ctx).at(0).outcome;
  EXPECT_EQ(bad.verdict, "FAILED");
  ASSERT_TRUE(bad.counterexample.has_value());
  EXPECT_NE(bad.counterexample->find("k = 1"), std::string::npos) << *bad.counterexample;
}

TEST(Verify, CacheClaimsParseEachAskedSpecOnce) {
  // the claims about Def. 4.10 build the base and its +cache variant from one parse, at every n
  for (const std::string id :
       {"fagnou.cache-chain", "fagnou.prop4.12", "fagnou.prop4.12.steps", "fagnou.prop4.2"}) {
    SCOPED_TRACE(id);
    mixgraph::ClaimContext ctx;
    ctx.patterns = {"pow2+cache", "sq1"};
    ctx.n_max = 1024;
    const auto before = mixgraph::spec_parse_count();
    const auto r = mixgraph::run_claims({id}, ctx);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_NE(r[0].outcome.verdict, "ERROR") << r[0].outcome.checked;
    EXPECT_EQ(mixgraph::spec_parse_count() - before, 2u);
  }
}

TEST(Verify, EveryClaimBuildsFromTheParsedSpecsOfItsRun) {
  // asked patterns: every claim (those about other patterns, or about none, included) parses only them,
  // each once, however many lengths and instances it builds
  ClaimContext asked;
  asked.patterns = {"pow2", "sq1+cache"};
  asked.n_max = 64;
  auto before = spec_parse_count();
  auto r = run_claims({}, asked);
  EXPECT_EQ(spec_parse_count() - before, 2u);
  for (const auto& c : r) EXPECT_NE(c.outcome.verdict, "ERROR") << c.claim.id << ": " << *c.outcome.error;
  // the claims' own patterns: a second run with the same parsed specs parses nothing, so no claim parses
  // a spec outside them (at any n, in any instance); the first parsed each distinct spec once
  ClaimContext own;
  own.n_max = 64;
  own.specs = std::make_shared<ClaimSpecs>();
  before = spec_parse_count();
  const auto first = run_claims({}, own);
  const auto parsed = spec_parse_count() - before;
  EXPECT_GT(parsed, 1u);
  std::uint64_t one_by_one = 0;  // each claim alone: the specs two claims share are parsed once above
  for (const auto& c : registered_claims()) {
    ClaimContext alone = own;
    alone.specs = nullptr;
    before = spec_parse_count();
    run_claims({c.id}, alone);
    one_by_one += spec_parse_count() - before;
  }
  EXPECT_LT(parsed, one_by_one);
  before = spec_parse_count();
  const auto second = run_claims({}, own);
  EXPECT_EQ(spec_parse_count() - before, 0u);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t k = 0; k < first.size(); ++k) {  // the same findings from the kept trees
    EXPECT_EQ(first[k].outcome.verdict, second[k].outcome.verdict) << first[k].claim.id;
    EXPECT_EQ(first[k].outcome.checked, second[k].outcome.checked) << first[k].claim.id;
    EXPECT_EQ(first[k].outcome.worst, second[k].outcome.worst) << first[k].claim.id;
  }
  // the instances of a split claim share them too
  for (const std::string id : {"fagnou.menger", "fagnou.prop4.4", "fagnou.cache-rank-bound"}) {
    SCOPED_TRACE(id);
    before = spec_parse_count();
    const auto names = claim_instance_names(id, own);
    (void)claim_instance_costs(id, own);
    for (std::size_t i = 0; i < names.size(); ++i) (void)run_claim_instance(id, own, i);
    EXPECT_EQ(spec_parse_count() - before, 0u);
  }
}

TEST(Verify, ClaimSpecsKeepsEachSpecAndRefusesWhatDoesNotParse) {
  ClaimSpecs specs;
  auto before = spec_parse_count();
  const PatternSpec& a = specs.tree("pow2|sink:4");
  const PatternSpec& b = specs.tree("pow2|sink:4");
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a, parse_pattern_spec("pow2|sink:4"));
  EXPECT_EQ(spec_parse_count() - before, 2u);  // its parse and the comparison's
  specs.add("sq1", parse_pattern_spec("sq1"));
  before = spec_parse_count();
  EXPECT_EQ(specs.tree("sq1").text, "sq1");
  EXPECT_EQ(spec_parse_count() - before, 0u);
  before = spec_parse_count();  // a spec with blanks around it: kept under the spec trimmed too
  EXPECT_EQ(specs.tree(" window:3 ").text, "window:3");
  EXPECT_EQ(&specs.tree("window:3"), &specs.tree("window:3"));
  EXPECT_EQ(specs.tree("window:3"), parse_pattern_spec("window:3"));
  EXPECT_EQ(spec_parse_count() - before, 2u);  // its parse and the comparison's
  EXPECT_THROW(specs.tree("nosuchpattern"), UsageError);
  EXPECT_THROW(specs.tree("stack:pow2,ssm"), UsageError);  // single-layer patterns, as the claims build
}

TEST(Verify, UnknownClaimAndErrors) {
  EXPECT_THROW(run_claims({"no.such.claim"}, {}), UsageError);
  ClaimContext ctx;
  ctx.patterns = {"nosuchpattern"};
  const auto o = run_claims({"fagnou.prop4.2"}, ctx).at(0).outcome;
  EXPECT_FALSE(o.passed.has_value());  // ERROR, with the reason
  ASSERT_TRUE(o.error.has_value());
  EXPECT_NE(o.error->find("unknown pattern"), std::string::npos);
}

TEST(Verify, CliJsonContract) {
  auto r = mixgraph::test::run_cli(
      "verify --claim fagnou.prop4.12 --claim fagnou.prop4.2 --n-max 256 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema"], "mixgraph.verify/1");
  ASSERT_EQ(j["claims"].size(), 2u);
  for (const auto& c : j["claims"]) {
    for (const char* k : {"id", "passed", "checked", "worst", "counterexample", "error"})
      EXPECT_TRUE(c.contains(k)) << k;
    EXPECT_EQ(c["passed"], true);
    EXPECT_TRUE(c["counterexample"].is_null());
    EXPECT_TRUE(c["error"].is_null());
  }
  auto bad = mixgraph::test::run_cli("verify --claim nope");
  EXPECT_EQ(bad.code, 2);
  // a pattern that does not parse is the user's usage error, refused before any claim runs
  auto err = mixgraph::test::run_cli("verify --claim fagnou.prop4.2 -p nosuch --format json");
  EXPECT_EQ(err.code, 2);
  EXPECT_EQ(err.err.rfind("mixgraph: error: unknown pattern 'nosuch'", 0), 0u) << err.err;
  EXPECT_TRUE(err.out.empty()) << err.out;
}

TEST(Verify, DistanceClaims) {
  ClaimContext ctx;
  ctx.n_max = 4096;
  for (const char* id : {"fagnou.prop4.4", "fagnou.cor4.5"}) {
    ClaimContext c = ctx;
    if (std::string(id) == "fagnou.prop4.4") c.n_max = 768;  // all pairs of 8 patterns
    const auto o = run_claims({id}, c).at(0).outcome;
    ASSERT_TRUE(o.passed.has_value()) << id << o.error.value_or("");
    EXPECT_TRUE(*o.passed) << id << ": " << o.counterexample.value_or("");
  }
  // The printed log2 bound fails exactly at i - j = 2^p - 1, and the corrected bound holds.
  const auto o = run_claims({"fagnou.cor4.5.log2-bound"}, ctx).at(0).outcome;
  ASSERT_TRUE(o.passed.has_value());
  EXPECT_FALSE(*o.passed);
  ASSERT_TRUE(o.counterexample.has_value());
  EXPECT_EQ(o.counterexample->rfind("i-j = 1: d = 1 > log2(1)", 0), 0u) << *o.counterexample;
  EXPECT_NE(o.counterexample->find("i-j = 3: d = 2"), std::string::npos);
  EXPECT_NE(o.counterexample->find("i-j = 7: d = 3"), std::string::npos);
  EXPECT_NE(o.counterexample->find("(12 in all)"), std::string::npos) << *o.counterexample;
  EXPECT_NE(o.detail.find("floor(log2(i-j)) + 1: holds"), std::string::npos) << o.detail;
}

TEST(Verify, LogLinearBucketsEighteenNotNineteen) {
  ClaimContext ctx;
  ctx.n_max = 131072;
  const auto o = run_claims({"guo.loglinear.buckets"}, ctx).at(0).outcome;
  ASSERT_TRUE(o.passed.has_value()) << o.error.value_or("");
  EXPECT_TRUE(*o.passed) << o.counterexample.value_or("");
  EXPECT_EQ(o.worst, "max non-empty buckets 18 at query t = 131071 (T = 131072)");
  EXPECT_NE(o.detail.find("ceil(log2 t + 1) + 1 gives 19"), std::string::npos) << o.detail;
  // Reference: the largest 1 + popcount(t) over t < 131072, counted here.
  unsigned best = 0;
  for (unsigned t = 0; t < 131072; ++t)
    best = std::max(best, 1u + static_cast<unsigned>(__builtin_popcount(t)));
  EXPECT_EQ(best, 18u);
}

TEST(Verify, LogLinearHodlrAndRotationExample) {
  ClaimContext ctx;
  ctx.n_max = 1024;
  for (const char* id : {"guo.loglinear.hodlr", "ghodsi.rank-gap", "ghodsi.heads"}) {
    const auto o = run_claims({id}, ctx).at(0).outcome;
    ASSERT_TRUE(o.passed.has_value()) << id << ": " << o.error.value_or("");
    EXPECT_TRUE(*o.passed) << id << ": " << o.counterexample.value_or("");
  }
  // The rotation example: k = 2, the smallest single-head error is sqrt(2) at n = 2 (rows sqrt(n - tau)
  // vec(R^tau): one head keeps the larger of the two orthogonal parts, here the tau = 0 row).
  const auto o = run_claims({"ghodsi.rank-gap"}, ctx).at(0).outcome;
  EXPECT_NE(o.detail.find("k = 2 at every n"), std::string::npos) << o.detail;
  EXPECT_EQ(o.worst, "smallest single-head Frobenius error 1.414 (n = 2)");
}

TEST(Verify, MengerAndCacheBoundContrast) {
  ClaimContext ctx;
  ctx.n_max = 128;
  for (const char* id :
       {"fagnou.menger", "fagnou.cache-rank-bound", "fagnou.eq1-eq2", "fagnou.weight-sharing"}) {
    const auto o = run_claims({id}, ctx).at(0).outcome;
    ASSERT_TRUE(o.passed.has_value()) << id << ": " << o.error.value_or("");
    EXPECT_TRUE(*o.passed) << id << ": " << o.counterexample.value_or("");
  }
  const auto d = run_claims({"fagnou.cache-rank-bound"}, ctx).at(0).outcome.detail;
  EXPECT_NE(d.find("pow2 r(128) = 128"), std::string::npos) << d;
  EXPECT_NE(d.find("pow2+cache max r = 14"), std::string::npos) << d;
  EXPECT_NE(d.find("max cache 8"), std::string::npos) << d;
}
