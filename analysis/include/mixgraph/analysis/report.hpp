#pragma once
// The report: every analysis for a set of patterns on n tokens, written to a directory as tables (CSV +
// JSON), figures (PNG, SVG for small n), report.md, report.ipynb and report.json. The directory is written
// beside `out` and swapped in whole at the end (report_staging.hpp): an error or a stop (a throw from
// on_step) leaves `out` as it was. `mixgraph report` and mixgraph.report() call run_report.
//
//   mixgraph::analysis::ReportQuery q;
//   q.out = "rep";
//   q.patterns = {"pow2", "ssm"};
//   q.n_text = "256";
//   auto r = mixgraph::analysis::run_report(q);  // r.manifest: report.json
#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/analysis/report_section.hpp"
#include "mixgraph/table.hpp"

namespace mixgraph::analysis {

/// What one running section gives rank 0 under several MPI ranks (the CLI's shards, tools/report_shards.hpp):
/// the serialised section (`whole`), or each unit's result in order (ReportSection::units), which rank 0
/// renders; `seconds`: the time it took on the ranks that ran it.
struct SectionOutcome {
  std::string whole;
  std::vector<std::string> units;
  double seconds = 0;
};

/// The hooks a front end that splits the sections over processes provides (the CLI under MPI).
struct ReportShards {
  /// Runs `todo` (the running sections, in document order) over the processes. Returns one outcome per
  /// section on the process that writes the report, std::nullopt on the others. start(i, what) and
  /// progress(i, run, stage) report section i's steps.
  std::function<std::optional<std::vector<SectionOutcome>>(
      const std::vector<const ReportSection*>& todo, const ReportParams& params,
      std::vector<PatternRun>& runs, double fig_width, FigureStyle style,
      const std::function<void(std::size_t, const std::string&)>& start,
      const std::function<void(std::size_t, const PatternRun&, const std::string&)>& progress)>
      run;
  /// Writes a section's outcome into `out` and `table1`; returns its key numbers and sets `seconds`.
  std::function<nlohmann::json(const std::string& whole, ReportWriter& out,
                               std::map<std::string, std::map<std::string, Cell>>& table1, double& seconds)>
      import;
};

struct ReportQuery {
  std::string out;                    ///< the report's directory (as given; a symbolic link: its target)
  std::vector<std::string> patterns;  ///< specs; empty: pow2, pow2+cache, sq1, sq1+cache, ssm
  std::string n_text;                 ///< tokens as --n takes them; "" = 1024 (mtx: files: their own n)
  bool force = false;                 ///< replace an existing report in `out`
  std::uint64_t seed = 1;
  /// The caps as --dense-cap ... --lp-cap take them ("2^14" and the like).
  std::string dense_cap = "1024", heatmap_cap = "16384", svg_cap = "128", all_pairs_cap = "2^14",
              rank_cap = "1024", rank_cuts = "16", routing_cap = "1024", lp_cap = "32";
  bool pdf = false;
  std::vector<std::string> only_sections;  ///< run only these section ids (the others are marked skipped)
  std::vector<std::string> skip_sections;  ///< run every section but these
  double fig_width = 0;                    ///< printed figure width in inches; 0: the screen layout
  std::string style = "screen";            ///< screen | paper
  int threads = 0;
  std::uint64_t mem_limit = 0;
  std::vector<ReportSection> sections;  ///< empty: report_sections()
  /// Called as step `index` of `steps` starts (each pattern's build, each running section and pattern, the
  /// documents); may throw to stop the report (nothing is swapped in).
  std::function<void(std::size_t index, std::size_t steps, const std::string& what)> on_step;
  ReportShards shards;  ///< empty: one process runs every section
};

struct ReportResult {
  bool written = false;             ///< false on the processes that only computed shards
  nlohmann::ordered_json manifest;  ///< report.json as written
  DataTable table1;                 ///< Table 1, measured beside the paper's entries
  std::vector<std::string> files;   ///< every file written, report.json last
  std::vector<ReportNote> notes;    ///< what was left out, and why
};

/// The sections in the order they are listed (`--sections` names them); the documents order them by
/// ReportSection::order.
std::vector<ReportSection> report_sections();

/// Checks the query (UsageError before anything is built or written: n, caps, section ids, `out`), builds
/// every pattern (a bad spec fails before anything is written; each spec is parsed once), runs the sections
/// and writes the report. Cost: the sections' (docs/scaling.md).
ReportResult run_report(const ReportQuery& q);

}  // namespace mixgraph::analysis
