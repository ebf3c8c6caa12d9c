// Report section "Propositions checked": the claim registry behind `mixgraph verify` (lib/claims/), run at
// the report's n on the report's patterns (as `mixgraph verify -p P ... --n-max n`): a claim about other
// patterns, or about no mixer pattern, is NOT APPLICABLE. A table with a one-line verdict per claim.
#include <algorithm>
#include <memory>

#include "mixgraph/analysis/format.hpp"
#include "mixgraph/analysis/report_section.hpp"
#include "mixgraph/claims.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/stack.hpp"

namespace mixgraph::analysis {
namespace {

ClaimContext claim_context(const ReportParams& params) {
  ClaimContext cc;
  cc.n_max = std::max<std::uint64_t>(2, params.n);
  cc.threads = params.threads;
  // The report's single-layer patterns (stacks are the "stacks" section's), with the trees the report
  // parsed: the claims build from them. With none, every claim runs on its own patterns, as `mixgraph
  // verify` does.
  cc.specs = std::make_shared<ClaimSpecs>();
  for (std::size_t k = 0; k < params.patterns.size(); ++k) {
    const std::string& spec = params.patterns[k];
    if (is_stack_spec(spec)) continue;
    cc.patterns.push_back(spec);
    if (k < params.trees.size()) cc.specs->add(spec, params.trees[k]);
  }
  return cc;
}

void render_verify(ReportContext& ctx, const std::vector<ClaimResult>& results) {
  const ClaimContext cc = claim_context(ctx.params);
  std::string as = "mixgraph verify";
  for (const auto& p : cc.patterns) as += " -p " + p;
  DataTable t{"verify",
              "The papers' propositions checked numerically (as `" + as + " --n-max " +
                  std::to_string(cc.n_max) + "`)",
              {"claim", "source", "number", "status", "checked", "worst", "counterexample", "seconds"},
              {}};
  std::size_t passed = 0, failed = 0, errors = 0, not_applicable = 0;
  std::string failures;
  for (const auto& r : results) {
    const auto& o = r.outcome;
    const std::string status = o.verdict.empty() ? claim_verdict(o) : o.verdict;
    passed += status == "PASSED", failed += status == "FAILED", errors += status == "ERROR";
    not_applicable += status == "NOT APPLICABLE";
    if (status != "PASSED" && status != "NOT APPLICABLE")
      failures += "- **" + status + "** `" + r.claim.id + "` (" + r.claim.number + "): " + r.claim.statement +
                  ". " + (o.counterexample ? "Counterexample: " + *o.counterexample + ". " : "") +
                  (o.error ? "Error: " + *o.error + ". " : "") + "\n";
    t.add({Cell::text(r.claim.id), Cell::text(r.claim.source), Cell::text(r.claim.number), Cell::text(status),
           Cell::text(o.checked), Cell::text(o.worst),
           o.counterexample ? Cell::text(*o.counterexample) : Cell::empty(), Cell::real(r.seconds, 3)});
    ctx.results[r.claim.id] = {{"status", status}, {"checked", o.checked}};
  }
  std::string on;
  for (const auto& p : cc.patterns) on += (on.empty() ? "`" : ", `") + p + "`";
  ctx.out.markdown(
      std::to_string(passed) + " of " + std::to_string(results.size() - not_applicable) +
      " propositions that concern " + (on.empty() ? "their own patterns" : "this report's patterns") +
      " held (" + std::to_string(failed) + " failed, " + std::to_string(errors) + " could not be checked; " +
      std::to_string(not_applicable) + " not applicable). Each claim runs on " +
      (on.empty() ? std::string("its own patterns") : on) + " up to n = " + std::to_string(cc.n_max) +
      "; `mixgraph verify` (with or without `-p`) gives the details." +
      (failures.empty() ? "" : "\n\n" + failures));
  ctx.out.table(t);
}

void section_verify(ReportContext& ctx) {
  const ClaimContext cc = claim_context(ctx.params);
  const auto claims = registered_claims();
  std::vector<ClaimResult> results;
  for (std::size_t k = 0; k < claims.size(); ++k) {
    if (ctx.label)
      ctx.label("verify: claim " + std::to_string(k + 1) + "/" + std::to_string(claims.size()) + " " +
                claims[k].id);
    auto r = run_claims({claims[k].id}, cc);
    results.insert(results.end(), r.begin(), r.end());
  }
  render_verify(ctx, results);
}

}  // namespace

ClaimContext report_claim_context(const ReportParams& params) {
  return claim_context(params);
}

void render_report_verify(ReportContext& ctx, const std::vector<ClaimResult>& results) {
  render_verify(ctx, results);
}

ReportSection verify_section() {
  // under several MPI ranks the CLI adds its units (tools/report_verify_units.cpp)
  return running_section("verify", "Propositions checked", 90, {}, section_verify);
}

}  // namespace mixgraph::analysis
