// Report sections whose analyses are being built in other branches. When one merges, replace its entry
// here by a section with a `run` (see report_section.hpp) and drop `pending`.
#include "report_section.hpp"

namespace mixgraph::cli {
namespace {

ReportSectionRegistrar reg_distances(
    {.id = "distances",
     .title = "Shortest paths",
     .order = 50,
     .pending = "issue 3",
     .table1_columns = {"shortest_path"},
     .planned = "the distance matrix d(i, j) as a heatmap, the distance profile over offsets m and the "
                "distance table (`tables/distances_<pattern>.csv`), diameters with unreachable counts",
     .run = {}});
ReportSectionRegistrar reg_congestion(
    {.id = "congestion",
     .title = "Copy task and congestion",
     .order = 60,
     .pending = "issue 4",
     .table1_columns = {"congestion"},
     .planned = "the congestion table for copy lengths up to n/2 (powers of two and others) with lower and "
                "upper bounds, and the node load of the best routing as a plot",
     .run = {}});
ReportSectionRegistrar reg_ranks(
    {.id = "ranks",
     .title = "Interaction rank",
     .order = 70,
     .pending = "issue 5",
     .table1_columns = {},
     .planned = "the cut-rank profile r(K) (all cuts up to n = 1024, then 16 cuts) "
                "and a plot of cut rank against cache size",
     .run = {}});
ReportSectionRegistrar reg_validation(
    {.id = "validation",
     .title = "Solver validation",
     .order = 80,
     .pending = "issue 6",
     .table1_columns = {},
     .planned = "CPU/GPU solves of the mixer checked against dense references "
                "(errors per semiring)",
     .run = {}});
ReportSectionRegistrar reg_verify({.id = "verify",
                                   .title = "Propositions checked",
                                   .order = 90,
                                   .pending = "issue 8",
                                   .table1_columns = {},
                                   .planned = "which of the papers' propositions held at this n, with "
                                              "counterexamples where one failed",
                                   .run = {}});

}  // namespace
}  // namespace mixgraph::cli
