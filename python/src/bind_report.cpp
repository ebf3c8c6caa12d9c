// mixgraph._core._report: the report (analysis/report.hpp) called directly: the directory written as
// `mixgraph report` writes it, the result report.json's document (python/mixgraph/_commands.py, report()).
#include <memory>

#include "analysis_call.hpp"
#include "mixgraph/analysis/report.hpp"

namespace mixgraph::py {
namespace {

/// The caps: (CLI option, value as text; "" = the default), in report()'s order.
using Caps = std::vector<std::pair<std::string, std::string>>;

pb::object report(const std::string& out, const std::vector<std::string>& patterns, const std::string& n,
                  bool force, const std::string& seed, const Caps& caps, bool pdf, const std::string& threads,
                  const std::string& mem_limit, const pb::object& progress, std::int64_t total) {
  // the options checked as the CLI checks them
  for (const auto& p : patterns) cli_pattern_spec(p, "--pattern");
  if (!n.empty()) cli_count_text(n, "--n");
  analysis::ReportQuery q;
  q.seed = cli_checked_count(seed, "--seed", true);
  for (const auto& [flag, value] : caps) {
    if (value.empty()) continue;
    cli_count_text(value, flag);
    std::string* field = flag == "--dense-cap"       ? &q.dense_cap
                         : flag == "--heatmap-cap"   ? &q.heatmap_cap
                         : flag == "--svg-cap"       ? &q.svg_cap
                         : flag == "--all-pairs-cap" ? &q.all_pairs_cap
                         : flag == "--rank-cap"      ? &q.rank_cap
                         : flag == "--rank-cuts"     ? &q.rank_cuts
                         : flag == "--routing-cap"   ? &q.routing_cap
                         : flag == "--lp-cap"        ? &q.lp_cap
                                                     : nullptr;
    if (!field) throw UsageError("unknown cap " + flag);
    *field = value;
  }
  q.out = out;
  q.patterns = patterns;
  q.n_text = n;
  q.force = force;
  q.pdf = pdf;
  q.threads = cli_threads(threads.empty() ? "0" : threads);
  q.mem_limit = cli_mem_limit(mem_limit);
  auto manifest = std::make_shared<nlohmann::ordered_json>();
  run_analysis(q.threads, q.mem_limit, progress, total, [q, manifest](Job& job) {
    analysis::ReportQuery qj = q;
    // each step to the progress callback; Ctrl-C stops at the next step (the staging directory is removed)
    qj.on_step = [&job](std::size_t, std::size_t, const std::string& what) { job.stage(what); };
    *manifest = analysis::run_report(qj).manifest;
  });
  return document_to_py(*manifest);
}

}  // namespace

void bind_report(pb::module_& m) {
  m.def("_report", &report,
        "The report written to `out` as `mixgraph report` writes it; report.json's document.");
}

}  // namespace mixgraph::py
