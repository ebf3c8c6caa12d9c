// mixgraph verify: the papers' propositions, checked numerically, with counterexamples.
#include <iostream>

#include "mixgraph/claims.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/sweep.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "registry.hpp"
#include "result_json.hpp"
#include "shard_commands.hpp"
#include "shard_run.hpp"
#include "stage_hook.hpp"

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
  return o.verdict.empty() ? claim_verdict(o) : o.verdict;
}

std::string skips_text(const ClaimOutcome& o) {
  std::string s;
  for (const auto& k : o.not_applicable) s += (s.empty() ? "" : "; ") + k.pattern + " (" + k.reason + ")";
  return s;
}

ojson to_json(const ClaimResult& r) {
  const auto& o = r.outcome;
  ojson j = {{"id", r.claim.id},
             {"source", r.claim.source},
             {"number", r.claim.number},
             {"statement", r.claim.statement},
             {"applies_to", r.claim.applies_to},
             {"status", status(o)},
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
  // a pattern the user names must parse (exit 2 with the parser's message) before any claim runs; one that
  // parses but is outside a claim's scope is that claim's NOT APPLICABLE, as the claims decide
  for (const auto& spec : o.patterns) {
    const PatternSpec tree = parse_pattern_spec(spec, false);
    make_pattern(tree, tree.has_matrix() ? 0 : 64);
  }
  ClaimContext ctx;
  ctx.patterns = o.patterns;
  ctx.threads = o.common.threads;
  if (!o.n_max.empty()) ctx.n_max = parse_count(o.n_max, "--n-max");
  if (!o.n_max.empty() && (ctx.n_max < 2 || ctx.n_max > (1ull << 24)))
    throw UsageError("--n-max must be between 2 and 2^24 (got " + o.n_max + ")");
  std::vector<ClaimResult> results;
  // Run one at a time so progress can be shown.
  const auto ids = o.claims.empty() ? [] {
    std::vector<std::string> v;
    for (const auto& c : registered_claims()) v.push_back(c.id);
    return v;
  }()
                                    : o.claims;
  // several MPI ranks or a checkpoint folder: one shard per claim instance or claim (docs/scaling.md)
  if (sharded(o.checkpoint_dir)) {
    auto merged = sharded_claims(ids, ctx, o.checkpoint_dir);
    if (!merged) return 0;  // ranks other than 0 print nothing
    results = std::move(*merged);
  }
  for (const auto& id : results.empty() ? ids : std::vector<std::string>{}) {
    stage(id);
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
  nlohmann::json params = {{"claims", o.claims}, {"patterns", o.patterns}, {"format", o.common.format}};
  params["n_max"] = ctx.n_max ? nlohmann::json(ctx.n_max) : nlohmann::json("default");
  switch (o.common.fmt()) {
    case Format::Json: {
      auto j = json_header("verify", 1, params);
      j["claims"] = ojson::array();
      for (const auto& r : results) j["claims"].push_back(to_json(r));
      j["summary"] = {
          {"passed", passed}, {"failed", failed}, {"errors", errors}, {"not_applicable", not_applicable}};
      print_json(std::cout, j);
      break;
    }
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
      app.add_option("--n-max", o->n_max,
                     "Largest n to check, 2..2^24 (default: each claim's own range; a check whose work grows "
                     "faster than n clamps it to a limit of its own and says so in 'checked')")
          ->check(count_text())
          ->type_name(type::kCount);
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
