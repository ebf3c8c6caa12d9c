// mixgraph verify: the papers' propositions, checked numerically, with counterexamples.
#include <iostream>

#include "mixgraph/analysis/verify.hpp"
#include "mixgraph/claims.hpp"
#include "mixgraph/error.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "registry.hpp"
#include "shard_commands.hpp"
#include "shard_run.hpp"

namespace mixgraph::cli {
namespace {

struct VerifyOptions {
  CommonOptions common;
  std::vector<std::string> claims;
  std::vector<std::string> patterns;
  std::string n_max;
  bool list = false;
  std::string checkpoint_dir;
};

std::string status(const ClaimOutcome& o) {
  return analysis::verify_status(o);
}

std::string skips_text(const ClaimOutcome& o) {
  std::string s;
  for (const auto& k : o.not_applicable) s += (s.empty() ? "" : "; ") + k.pattern + " (" + k.reason + ")";
  return s;
}

int run_verify(const VerifyOptions& o) {
  o.common.apply();
  if (o.list) {
    if (o.common.fmt() == Format::Json) {  // schema mixgraph.verify.list/1
      auto j = json_header("verify.list", 1, {{"format", o.common.format}, {"list", true}});
      j["command"] = "verify";
      j["claims"] = ojson::array();
      for (const auto& c : registered_claims())
        j["claims"].push_back({{"id", c.id},
                               {"source", c.source},
                               {"number", c.number},
                               {"statement", c.statement},
                               {"applies_to", c.applies_to}});
      print_json(std::cout, j);
      return 0;
    }
    Table t({"id", "source", "statement"});
    for (const auto& c : registered_claims()) t.add({c.id, c.number, c.statement});
    if (o.common.fmt() == Format::Csv)
      t.print_csv(std::cout);
    else
      t.print_text(std::cout);
    return 0;
  }
  analysis::VerifyQuery q;
  q.claims = o.claims;
  q.patterns = o.patterns;
  q.n_max = o.n_max;
  q.threads = o.common.threads;
  const ClaimContext ctx = analysis::verify_context(q);
  const auto ids = analysis::verify_claim_ids(q);
  std::vector<ClaimResult> results;
  // several MPI ranks or a checkpoint folder: one shard per claim instance or claim (docs/scaling.md)
  if (sharded(o.checkpoint_dir)) {
    auto merged = sharded_claims(ids, ctx, o.checkpoint_dir);
    if (!merged) return 0;  // ranks other than 0 print nothing
    results = std::move(*merged);
  }
  // Run one at a time so progress can be shown.
  for (const auto& id : results.empty() ? ids : std::vector<std::string>{}) {
    if (stderr_is_tty()) std::cerr << "\r[verify] " << id << " ..." << std::string(20, ' ') << std::flush;
    auto r = run_claims({id}, ctx);
    results.insert(results.end(), r.begin(), r.end());
  }
  if (stderr_is_tty()) std::cerr << "\r" << std::string(70, ' ') << "\r";
  std::size_t passed = 0, failed = 0, errors = 0, not_applicable = 0;
  for (const auto& r : results) {
    const auto s = status(r.outcome);
    (s == "PASSED" ? passed : s == "FAILED" ? failed : s == "ERROR" ? errors : not_applicable)++;
  }
  switch (o.common.fmt()) {
    case Format::Json:
      print_json(std::cout, analysis::verify_document(q, ctx, results).json(o.common.format));
      break;
    case Format::Csv: {
      Table t({"id", "status", "statement", "checked", "worst", "counterexample", "error", "not_applicable"});
      for (const auto& r : results)
        t.add({r.claim.id, status(r.outcome), r.claim.statement, r.outcome.checked, r.outcome.worst,
               r.outcome.counterexample.value_or(""), r.outcome.error.value_or(""), skips_text(r.outcome)});
      t.print_csv(std::cout);
      break;
    }
    case Format::Table: {
      for (const auto& r : results) {
        const auto& c = r.claim;
        const auto& oc = r.outcome;
        std::cout << status(oc) << "  " << c.id << "  (" << c.number << ", " << c.source << ")\n";
        std::vector<std::pair<std::string, std::string>> kv = {
            {"  statement", c.statement}, {"  checked", oc.checked}, {"  worst", oc.worst}};
        if (oc.counterexample) kv.push_back({"  counterexample", *oc.counterexample});
        if (oc.error) kv.push_back({"  error", *oc.error});
        if (!oc.not_applicable.empty()) kv.push_back({"  not applicable", skips_text(oc)});
        if (!oc.detail.empty()) kv.push_back({"  detail", oc.detail});
        kv.push_back({"  time", fmt_double(r.seconds, 3) + " s"});
        print_kv(std::cout, kv);
        std::cout << "\n";
      }
      std::cout << passed << " passed, " << failed << " failed, " << errors << " errors, " << not_applicable
                << " not applicable"
                << (failed ? " (a failed claim is a finding: the statement does not hold as printed)" : "")
                << "\n";
      break;
    }
  }
  return 0;
}

Registrar reg_cmd_verify(
    "verify",
    "Check the papers' propositions numerically (PASSED / FAILED with counterexamples / NOT APPLICABLE / "
    "ERROR); exit 0 even when claims fail",
    80, [](CLI::App& app) -> std::function<int()> {
      auto o = std::make_shared<VerifyOptions>();
      app.add_option("--claim", o->claims, "Claim id to check (repeatable; default: all). See --list")
          ->type_name(type::kId);
      app.add_option("--pattern,-p", o->patterns,
                     "Restrict the claims to these patterns (repeatable; default: each claim's own)")
          ->check(pattern_spec())
          ->type_name(type::kSpec);
      add_count_option(
          app, "--n-max", o->n_max,
          "Largest n to check, 2..2^24 (default: each claim's own range; a check whose work grows "
          "faster than n clamps it to a limit of its own and says so in 'checked')");
      app.add_flag("--list", o->list, "List the registered claims and exit");
      app.add_option("--checkpoint", o->checkpoint_dir,
                     "Keep each finished claim's (or claim instance's) result in this folder; a re-run with "
                     "the same parameters checks only the missing ones (docs/scaling.md)")
          ->check(nonempty_path())
          ->type_name(type::kDir);
      add_common_options(app, o->common);
      return [o] { return run_verify(*o); };
    });

}  // namespace
}  // namespace mixgraph::cli
