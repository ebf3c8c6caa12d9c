#pragma once
// The text forms of a congestion result (the routings table, the CSV row, the bound lines, the verdict) and
// the routing whose paths --output writes, shared by the single-layer and stacked commands and the report.
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "mixgraph/congestion.hpp"

namespace mixgraph::cli {

/// Prints the routings table (one row per checked routing) and one "skipped NAME: why" line per routing
/// that did not run; nothing when no routing ran or was skipped.
void print_routings(std::ostream& os, const CongestionResult& r);

/// A bound's cell: the number, or "-" when it was not computed.
std::string bound_or_dash(const std::optional<std::uint32_t>& v);

/// The checked routing named `name`, or nullptr.
const RoutingStats* find_routing(const CongestionResult& r, const std::string& name);

/// "impossible", "no routing", "optimal" (r.optimal, or the upper bound meets the lower bound) or "open".
std::string verdict(const CongestionResult& r);

/// The CSV and table row: pattern, N, then `extra` (a stack's depth), then copy_distance, the four lower
/// bounds, lower, prop48, the congestion of shift, random, minmax and exact, upper, gap and the verdict
/// ("inf" and "-" when the copy is impossible). Its header is congestion_row_header(extra names).
std::vector<std::string> congestion_row(const CongestionResult& r,
                                        const std::vector<std::string>& extra = {});
std::vector<std::string> congestion_row_header(const std::vector<std::string>& extra = {});

/// The lines after a possible copy's "copy distance d" line: each lower bound with its note, the best
/// lower bound, `prop48` (label and text: they differ between a pattern and a stack), the upper bound with
/// the best routing, and the gap ("  optimal" when the result is).
void add_bound_lines(std::vector<std::pair<std::string, std::string>>& kv, const CongestionResult& r,
                     std::pair<std::string, std::string> prop48);

/// The routing whose paths --output writes: its index in r.routings, or r.routings.size() when the copy is
/// impossible (no paths). UsageError when the copy is possible and no routing `which` was computed.
std::size_t paths_routing_index(const CongestionResult& r, const std::string& which);

}  // namespace mixgraph::cli
