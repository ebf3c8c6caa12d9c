#pragma once
// Per-head results of a heads:P1;P2;... pattern (the pattern itself is the union of its heads; docs/math.md
// §2): one JSON object per head (fields in a fixed order, `pattern` first), built on the same n as the
// combined pattern.
#include <nlohmann/json.hpp>

#include "mixgraph/analysis/heads.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::cli {

using analysis::head_distance_rows;  // mixgraph/analysis/heads.hpp
using analysis::head_pattern_rows;

/// Prints a table of the rows above (one line per head) after a blank line; nothing when rows is empty.
void print_head_rows(std::ostream& os, const nlohmann::ordered_json& rows);

}  // namespace mixgraph::cli
