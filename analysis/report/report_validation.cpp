// Report section "Solver validation" (lib/include/mixgraph/validate.hpp): the checks of
// `mixgraph validate` for every pattern on the CPU (fast solve vs the recurrence of Eq. 1 vs dense Eigen for
// small n; the (min,+), (or,and) and path-count semirings vs the graph code), as one pass/fail table.
#include <algorithm>
#include <chrono>

#include "mixgraph/analysis/format.hpp"
#include "mixgraph/analysis/report_section.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/validate.hpp"

namespace mixgraph::analysis {
namespace {

void run_validation(ReportContext& ctx) {
  const auto& P = ctx.params;
  DataTable t{"validation",
              "The solve engine checked against independent references on the CPU (as `mixgraph validate "
              "--backend cpu`), random weights and inputs (seed " +
                  std::to_string(P.seed) + ")",
              {"pattern", "n", "check", "passed", "detail"},
              {}};
  DataTable s{"validation_summary",
              "Validation per pattern: checks passed, kernels that ran, sources of the semiring checks",
              {"pattern", "n", "checks", "passed", "failed", "kernels", "sources", "all_sources", "seconds"},
              {}};
  std::size_t total = 0, failed = 0;
  std::string failures;
  for (const auto& r : ctx.runs) {
    ctx.progress(r, "solver validation");
    ValidateOptions vo;
    vo.threads = P.threads;
    vo.seed = P.seed;
    const auto t0 = std::chrono::steady_clock::now();
    ValidateResult v;
    try {
      v = validate_solve(r.pattern, vo);
    } catch (const std::exception& e) {  // RuntimeFailure (memory, work), UsageError (size): noted, not fatal
      ctx.out.note("skipped", "solver validation of " + r.spec + ": " + e.what());
      continue;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::size_t ok = 0;
    for (const auto& c : v.checks) {
      t.add({Cell::text(r.spec), u64(r.pattern.n), Cell::text(c.name), Cell::boolean(c.passed),
             Cell::text(c.detail)});
      ok += c.passed;
      if (!c.passed) failures += "- **FAILED** `" + r.spec + "`: " + c.name + ": " + c.detail + "\n";
    }
    std::string kernels;
    for (const auto& k : v.kernels) kernels += (kernels.empty() ? "" : ", ") + k;
    s.add({Cell::text(r.spec), u64(r.pattern.n), u64(v.checks.size()), u64(ok), u64(v.checks.size() - ok),
           Cell::text(kernels), u64(v.sources), Cell::boolean(v.all_sources), Cell::real(secs, 3)});
    total += v.checks.size();
    failed += v.checks.size() - ok;
    ctx.results[r.spec] = {
        {"checks", v.checks.size()}, {"passed", ok}, {"all_passed", v.all_passed}, {"kernels", v.kernels}};
  }
  ctx.out.markdown(
      std::to_string(total - failed) + " of " + std::to_string(total) +
      " solver checks passed. Real solves: the fast CPU solve against the plain recurrence of Eq. 1 "
      "and (n <= 2048) a dense Eigen solve; semirings: (min,+) distances, (or,and) reachability "
      "and shortest-path counts against the graph code. The GPU is not used here: run `mixgraph "
      "validate --backend gpu` for it." +
      (failures.empty() ? "" : "\n\n" + failures));
  ctx.out.table(s);
  ctx.out.table(t, 100);
}

}  // namespace

ReportSection validation_section() {
  return running_section("validation", "Solver validation", 80, {}, run_validation);
}

}  // namespace mixgraph::analysis
