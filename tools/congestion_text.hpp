#pragma once
// The text form of a congestion result's checked routings, shared by the single-layer and stacked commands.
#include <ostream>

#include "mixgraph/congestion.hpp"

namespace mixgraph::cli {

/// Prints the routings table (one row per checked routing) and one "skipped NAME: why" line per routing
/// that did not run; nothing when no routing ran or was skipped.
void print_routings(std::ostream& os, const CongestionResult& r);

}  // namespace mixgraph::cli
