// Report sections whose analyses are not available yet. When one becomes available, delete its entry
// here and register the real section in its own tools/report_<area>.cpp (report_section.hpp shows how);
// keep the id, title, order and Table 1 columns. A pending entry looks like
//
//   ReportSectionRegistrar reg_x(pending_section("x", "Title", 100, "not built yet", {"table1_column"},
//                                                "what the section will add (Markdown)"));
//
// Every analysis has its section now (report_distances.cpp, report_congestion.cpp, report_ranks.cpp,
// report_validation.cpp): nothing is pending.
#include "report_section.hpp"
