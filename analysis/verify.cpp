// mixgraph::analysis::verify (verify.hpp).
#include "mixgraph/analysis/verify.hpp"

#include <memory>

#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::analysis {

std::vector<std::string> verify_claim_ids(const VerifyQuery& q) {
  if (!q.claims.empty()) return q.claims;
  std::vector<std::string> v;
  for (const auto& c : registered_claims()) v.push_back(c.id);
  return v;
}

ClaimContext verify_context(const VerifyQuery& q) {
  // a pattern the user names must parse (exit 2 with the parser's message) before any claim runs; one that
  // parses but is outside a claim's scope is that claim's NOT APPLICABLE, as the claims decide. The trees
  // parsed here are the claims' (ctx.specs): every claim builds from them, with no second parse.
  ClaimContext ctx;
  ctx.specs = std::make_shared<ClaimSpecs>();
  for (const auto& spec : q.patterns) {
    const PatternSpec& tree = ctx.specs->tree(spec);
    make_pattern(tree, tree.has_matrix() ? 0 : 64);
  }
  ctx.patterns = q.patterns;
  ctx.threads = q.threads;
  if (!q.n_max.empty()) ctx.n_max = parse_count(q.n_max, "--n-max");
  if (!q.n_max.empty() && (ctx.n_max < 2 || ctx.n_max > (1ull << 24)))
    throw UsageError("--n-max must be between 2 and 2^24 (got " + q.n_max + ")");
  return ctx;
}

std::string verify_status(const ClaimOutcome& o) {
  return o.verdict.empty() ? claim_verdict(o) : o.verdict;
}

namespace {
ojson claim_json(const ClaimResult& r) {
  const auto& o = r.outcome;
  ojson j = {{"id", r.claim.id},
             {"source", r.claim.source},
             {"number", r.claim.number},
             {"statement", r.claim.statement},
             {"applies_to", r.claim.applies_to},
             {"status", verify_status(o)},
             {"checked", o.checked},
             {"worst", o.worst},
             {"detail", o.detail},
             {"seconds", r.seconds}};
  j["passed"] = json::value_or_null(o.passed);
  j["counterexample"] = json::value_or_null(o.counterexample);
  j["error"] = json::value_or_null(o.error);
  j["instances"] = o.instances;
  j["not_applicable"] = ojson::array();
  for (const auto& k : o.not_applicable)
    j["not_applicable"].push_back({{"pattern", k.pattern}, {"reason", k.reason}});
  return j;
}
}  // namespace

Document verify_document(const VerifyQuery& q, const ClaimContext& ctx,
                         const std::vector<ClaimResult>& results) {
  std::size_t passed = 0, failed = 0, errors = 0, not_applicable = 0;
  for (const auto& r : results) {
    const auto s = verify_status(r.outcome);
    (s == "PASSED" ? passed : s == "FAILED" ? failed : s == "ERROR" ? errors : not_applicable)++;
  }
  Document d;
  d.schema = d.command = "verify";
  d.parameters = {{"claims", q.claims}, {"patterns", q.patterns}};
  d.parameters["n_max"] = ctx.n_max ? nlohmann::json(ctx.n_max) : nlohmann::json("default");
  d.body["claims"] = ojson::array();
  for (const auto& r : results) d.body["claims"].push_back(claim_json(r));
  d.body["summary"] = {
      {"passed", passed}, {"failed", failed}, {"errors", errors}, {"not_applicable", not_applicable}};
  return d;
}

VerifyResult verify(const VerifyQuery& q) {
  const ClaimContext ctx = verify_context(q);
  const auto ids = verify_claim_ids(q);
  VerifyResult res;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (q.progress) q.progress(ids[i], i + 1, ids.size());
    auto r = run_claims({ids[i]}, ctx);
    res.results.insert(res.results.end(), r.begin(), r.end());
  }
  res.document = verify_document(q, ctx, res.results);
  return res;
}

}  // namespace mixgraph::analysis
