#pragma once
// Numbers as the analyses write them in text (tables, notes, report.md) and the CLI prints them.
#include <string>

#include "mixgraph/congestion.hpp"

namespace mixgraph::analysis {

/// v with `digits` significant digits (%g); a real always reads as one: 1 -> "1.0" (pandas: float64).
std::string fmt_double(double v, int digits = 6);

/// The copy task's status in one word: "impossible", "no routing", "optimal" (the bounds meet) or "open".
std::string congestion_verdict(const CongestionResult& r);

}  // namespace mixgraph::analysis
