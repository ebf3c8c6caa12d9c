// Report sections whose analyses are being built in other branches. When one merges, delete its entry
// here and register the real section in its own tools/report_<area>.cpp (report_section.hpp shows how);
// keep the id, title, order and Table 1 columns.
#include "report_section.hpp"

namespace mixgraph::cli {
namespace {

ReportSectionRegistrar reg_distances(pending_section(
    "distances", "Shortest paths", 50, "issue 3", {"shortest_path"},
    "the distance matrix d(i, j) as a heatmap, the distance profile over offsets m and the distance table "
    "(`tables/distances_<pattern>.csv`), diameters with unreachable counts"));
ReportSectionRegistrar reg_congestion(pending_section(
    "congestion", "Copy task and congestion", 60, "issue 4", {"congestion"},
    "the congestion table for copy lengths up to n/2 (powers of two and others) with lower and upper bounds, "
    "and the node load of the best routing as a plot"));
ReportSectionRegistrar reg_ranks(pending_section("ranks", "Interaction rank", 70, "issue 5", {},
                                                 "the cut-rank profile r(K) (all cuts up to n = 1024, then "
                                                 "16 cuts) and a plot of cut rank against cache size"));
ReportSectionRegistrar reg_validation(
    pending_section("validation", "Solver validation", 80, "issue 6", {},
                    "CPU/GPU solves of the mixer checked against dense references (errors per semiring)"));
}  // namespace
}  // namespace mixgraph::cli
