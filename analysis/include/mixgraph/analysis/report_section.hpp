#pragma once
// Sections of the report (mixgraph/analysis/report.hpp). Each analysis contributes one ReportSection: a
// function that calls the analysis (in lib/) for every pattern and hands plain tables, matrices and vectors
// to the ReportWriter (notebooks_export/). Adding one is a function in an analysis/report/report_<area>.cpp,
// declared below and listed in report_sections() (analysis/report/report.cpp):
//
//   void run_distances(ReportContext& ctx) {
//     for (auto& r : ctx.runs) {
//       ctx.progress(r, "distances");
//       auto d = mixgraph::distances(r.pattern, ...);                 // lib/
//       ctx.out.table(...);                                           // tables/<name>.csv + .json
//       ctx.out.heatmap("d_" + r.stem, view, opts, "caption");        // figures/d_<stem>.png
//       ctx.table1[r.spec]["shortest_path"] = mixgraph::Cell::integer(d.diameter);
//       ctx.results[r.spec] = {{"diameter", d.diameter}};             // report.json
//     }
//   }
//   ReportSection distances_section() {
//     return running_section("distances", "Shortest paths", 50, {"shortest_path"}, run_distances);
//   }
//
// A section whose analysis is not available in this build can be listed as pending (pending_section): the
// report then says what it would add and marks its Table 1 columns "pending (<why>)".
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mixgraph/claims.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/pattern_spec.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/report_writer.hpp"
#include "mixgraph/table.hpp"

namespace mixgraph::analysis {

/// The report's parameters (after defaults); every cap is a flag of `mixgraph report`.
struct ReportParams {
  std::vector<std::string> patterns;
  std::vector<PatternSpec> trees;  ///< patterns parsed, once each (mixgraph/pattern_spec.hpp)
  std::uint64_t n = 1024;
  std::uint64_t seed = 1;
  std::uint64_t dense_cap = 1024;     ///< --dense-cap: |M| heatmaps (dense (I-B)^{-1}A) only for n <= this
  std::uint64_t heatmap_cap = 16384;  ///< --heatmap-cap: mask heatmaps only for n <= this
  std::uint64_t svg_cap = 128;        ///< --svg-cap: heatmaps also as SVG for n <= this
  std::uint64_t sweep_min = 16;       ///< the internal sweep runs powers of two from here to n
  // Caps for the distances, ranks and congestion sections:
  std::uint64_t all_pairs_cap =
      16384;                         ///< --all-pairs-cap: all-pairs distances (d(i,j) heatmap) for n <= this
  std::uint64_t rank_cap = 1024;     ///< --rank-cap: every cut rank for n <= this, else --rank-cuts cuts
  std::uint64_t rank_cuts = 16;      ///< --rank-cuts: evenly spaced cuts above --rank-cap
  std::uint64_t routing_cap = 1024;  ///< --routing-cap: congestion-minimising routing up to this copy length
  std::uint64_t lp_cap = 32;         ///< --lp-cap: LP congestion lower bounds up to this copy length
  bool pdf = false;                  ///< --pdf: every figure also as PDF
  int threads = 0;
  std::uint64_t mem_limit = 0;
};

/// One pattern of the report, built once and shared by every section.
struct PatternRun {
  std::string spec;  ///< as given on the command line
  PatternSpec tree;  ///< spec parsed: the sections build the pattern at other n from it
  std::string stem;  ///< file-name stem (unique within the report)
  Pattern pattern;
  PatternProfile profile;  ///< per-position decode cost and cache at n
};

struct ReportContext {
  const ReportParams& params;
  std::vector<PatternRun>& runs;
  ReportWriter& out;
  /// Table 1 cells: pattern spec -> column id -> value. Columns: time_per_token, time_per_token_fit,
  /// cache, cache_fit, shortest_path, congestion (see cmd_report.cpp, table1_columns()).
  std::map<std::string, std::map<std::string, Cell>>& table1;
  /// Key numbers of this section for report.json ("sections"[i]["results"]).
  nlohmann::json& results;
  /// A progress line on stderr (only when it is a terminal): "[report 3/20] pow2: masks".
  std::function<void(const PatternRun&, const std::string&)> progress;
  /// A progress line not about one pattern (e.g. "verify: claim 3/20 fagnou.menger"); may be empty.
  std::function<void(const std::string&)> label = {};
};

struct ReportSection {
  std::string id;                           ///< "profile", "distances", ...: report.json's section id
  std::string title;                        ///< the section heading in report.md / report.ipynb
  int order = 100;                          ///< position in the documents (Table 1 is 5)
  std::string pending;                      ///< why the analysis is not available (no `run`)
  std::vector<std::string> table1_columns;  ///< Table 1 columns this section fills
  std::string planned;                      ///< pending sections: what the section will add (Markdown)
  std::function<void(ReportContext&)> run;  ///< emits blocks and files; never prints
  /// Optional, for a section made of independent units of work (verify's claims): `units` names them,
  /// `unit(params, runs, i)` computes unit i's result as bytes (it writes nothing), and `render(ctx,
  /// results)` writes the section from every unit's result in order; `run` must equal rendering what the
  /// units give. Under several MPI ranks each unit is then a shard of its own, and rank 0 renders.
  std::function<std::vector<std::string>(const ReportParams&)> units;
  std::function<std::string(const ReportParams&, const std::vector<PatternRun>&, std::size_t)> unit;
  /// Optional: each unit's modelled seconds (default: the section's modelled cost in equal shares).
  std::function<std::vector<double>(const ReportParams&)> unit_costs;
  std::function<void(ReportContext&, const std::vector<std::string>&)> render;
};

/// A section's id, title, order and Table 1 columns (running_section and pending_section add the rest).
inline ReportSection named_section(std::string id, std::string title, int order,
                                   std::vector<std::string> table1_columns) {
  ReportSection s;
  s.id = std::move(id);
  s.title = std::move(title);
  s.order = order;
  s.table1_columns = std::move(table1_columns);
  return s;
}

/// A section that runs.
inline ReportSection running_section(std::string id, std::string title, int order,
                                     std::vector<std::string> table1_columns,
                                     std::function<void(ReportContext&)> run) {
  ReportSection s = named_section(std::move(id), std::move(title), order, std::move(table1_columns));
  s.run = std::move(run);
  return s;
}

/// Table cells and labels shared by the section files.
inline Cell u64(std::uint64_t v) {
  return Cell::integer(static_cast<std::int64_t>(v));
}
inline std::string nstr(std::uint64_t n) {
  return std::to_string(n);
}

/// Whether a figure is skipped for size (n > cap); then a "capped" note: "<what> skipped: n = N > <option>
/// CAP<why>; raise <option> to draw <it>".
inline bool skipped_over_cap(ReportContext& ctx, std::uint64_t n, std::uint64_t cap,
                             const std::string& option, const std::string& what, const std::string& why,
                             const std::string& it) {
  if (n <= cap) return false;
  ctx.out.note("capped", what + " skipped: n = " + nstr(n) + " > " + option + " " + nstr(cap) + why +
                             "; raise " + option + " to draw " + it);
  return true;
}

/// A section whose analysis is not available: `issue` says why, `planned` what it would add (Markdown).
inline ReportSection pending_section(std::string id, std::string title, int order, std::string issue,
                                     std::vector<std::string> table1_columns, std::string planned) {
  ReportSection s = named_section(std::move(id), std::move(title), order, std::move(table1_columns));
  s.pending = std::move(issue);
  s.planned = std::move(planned);
  return s;
}

/// The sections (analysis/report/report_<area>.cpp).
ReportSection summary_section();
ReportSection profile_section();
ReportSection masks_section();
ReportSection operator_section();
ReportSection distances_section();
ReportSection congestion_section();
ReportSection ranks_section();
ReportSection stacks_section();
ReportSection validation_section();
ReportSection verify_section();

/// The "verify" section's claims for these parameters (the report's single-layer patterns, n_max = n), and
/// the section drawn from the claims' results (under several MPI ranks the CLI renders the claims' shards).
ClaimContext report_claim_context(const ReportParams& params);
void render_report_verify(ReportContext& ctx, const std::vector<ClaimResult>& results);

}  // namespace mixgraph::analysis
