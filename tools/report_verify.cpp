// Report section "Propositions checked": the claim registry behind `mixgraph verify` (lib/claims/), run at
// the report's n (each claim on its own patterns), as a table with a one-line verdict per claim.
#include <algorithm>

#include "mixgraph/claims.hpp"
#include "output.hpp"
#include "report_section.hpp"

namespace mixgraph::cli {
namespace {

void run_verify(ReportContext& ctx) {
  ClaimContext cc;
  cc.n_max = std::max<std::uint64_t>(2, ctx.params.n);
  cc.threads = ctx.params.threads;
  if (!ctx.runs.empty()) ctx.progress(ctx.runs.front(), "propositions (mixgraph verify)");
  const auto results = run_claims({}, cc);
  DataTable t{"verify",
              "The papers' propositions checked numerically (as `mixgraph verify --n-max " +
                  std::to_string(cc.n_max) + "`)",
              {"claim", "source", "number", "status", "checked", "worst", "counterexample", "seconds"},
              {}};
  std::size_t passed = 0, failed = 0, errors = 0;
  std::string failures;
  for (const auto& r : results) {
    const auto& o = r.outcome;
    const std::string status = o.verdict.empty() ? claim_verdict(o) : o.verdict;
    passed += status == "PASSED", failed += status == "FAILED", errors += status == "ERROR";
    if (status != "PASSED")
      failures += "- **" + status + "** `" + r.claim.id + "` (" + r.claim.number + "): " + r.claim.statement +
                  ". " + (o.counterexample ? "Counterexample: " + *o.counterexample + ". " : "") +
                  (o.error ? "Error: " + *o.error + ". " : "") + "\n";
    t.add({Cell::text(r.claim.id), Cell::text(r.claim.source), Cell::text(r.claim.number), Cell::text(status),
           Cell::text(o.checked), Cell::text(o.worst),
           o.counterexample ? Cell::text(*o.counterexample) : Cell::empty(), Cell::real(r.seconds, 3)});
    ctx.results[r.claim.id] = {{"status", status}, {"checked", o.checked}};
  }
  ctx.out.markdown(
      std::to_string(passed) + " of " + std::to_string(results.size()) + " propositions held (" +
      std::to_string(failed) + " failed, " + std::to_string(errors) +
      " could not be checked). Each claim runs on its own patterns up to n = " + std::to_string(cc.n_max) +
      "; `mixgraph verify` gives the details." + (failures.empty() ? "" : "\n\n" + failures));
  ctx.out.table(t);
}

ReportSectionRegistrar reg_verify("verify", "Propositions checked", 90, {}, run_verify);

}  // namespace
}  // namespace mixgraph::cli
