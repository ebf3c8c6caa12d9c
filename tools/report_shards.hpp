#pragma once
// `report` under several MPI ranks: each running section is a shard, assigned by a per-section cost model
// (report_section_cost) and run on its rank in a ReportWriter of its own (in a private temporary folder);
// the section's files, blocks, notes, Table 1 cells and key numbers travel to rank 0 as bytes, and rank 0
// replays them in document order into the report's staging directory, so the report is the one a single
// process writes. Only rank 0 writes the report; a rank that dies fails the job before anything is swapped
// in.
#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/analysis/report.hpp"

namespace mixgraph::cli {

using analysis::PatternRun;
using analysis::ReportContext;
using analysis::ReportParams;
using analysis::ReportSection;
using analysis::SectionOutcome;

/// The modelled cost (seconds on one thread, measured: docs/scaling.md) of running section `id` for these
/// patterns at the report's n and caps. Only the ratios matter to the plan.
double report_section_cost(const std::string& id, const ReportParams& params,
                           const std::vector<PatternRun>& runs);

/// Called on the computing rank before a shard runs: (index among the running sections, what runs).
using SectionStart = std::function<void(std::size_t, const std::string&)>;

/// Runs `todo` (the running sections, in document order) over the ranks; collective. A section is one
/// shard, or one shard per unit when it has units. Rank 0 gets one outcome per section, in order; the
/// other ranks std::nullopt. `progress(i, run, stage)` is section i's progress callback on its rank.
std::optional<std::vector<SectionOutcome>> run_report_section_shards(
    const std::vector<const ReportSection*>& todo, const ReportParams& params, std::vector<PatternRun>& runs,
    double fig_width, FigureStyle style, const SectionStart& start,
    const std::function<void(std::size_t, const PatternRun&, const std::string&)>& progress);

/// Rank 0: writes a section's files into out.dir(), appends its blocks, notes and notebook code to `out`,
/// its Table 1 cells to `table1`; returns its key numbers (report.json) and sets `seconds` (the time it
/// took on its rank).
nlohmann::json import_report_section(const std::string& outcome, ReportWriter& out,
                                     std::map<std::string, std::map<std::string, Cell>>& table1,
                                     double& seconds);

/// Gives the sections made of units (verify's claims, report_verify_units.cpp) their unit hooks.
void add_report_units(std::vector<ReportSection>& sections);

}  // namespace mixgraph::cli
