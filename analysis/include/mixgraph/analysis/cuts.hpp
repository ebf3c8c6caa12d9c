#pragma once
// Position and cut lists as the analyses take them in text: "1,5,6", ranges "1..5", a count of evenly spaced
// cuts, or "all" (the CLI's --cuts and --rows; the Python package passes the same text).
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/pattern.hpp"

namespace mixgraph::analysis {

/// Items of a position list: "1,5,6" or "1..5,9" (a range is every value from LO to HI; at most 2^24
/// values in all, checked before anything is allocated). Throws UsageError naming `what`.
std::vector<std::uint64_t> parse_position_list(const std::string& text, const std::string& what);

/// Cuts of n positions from --cuts' text: "" (none: the caller's default), "all" (1..n-1), a count of evenly
/// spaced cuts, or a list ("1,128,255", "1..8"; a single cut is written "128,"). A cut outside 1..n-1 is
/// refused (UsageError naming the option `name`: the CLI's --cuts, Python's cuts).
std::vector<pos_t> parse_cuts(const std::string& text, pos_t n, const std::string& name = "--cuts");

}  // namespace mixgraph::analysis
