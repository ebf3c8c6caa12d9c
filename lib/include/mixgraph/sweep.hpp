#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mixgraph {

/// "LO..HI": every power of two from LO to HI (LO and HI need not be powers of two: the powers of two
/// in [LO, HI], plus LO and HI themselves); or an explicit comma list "1000,3000,10000".
/// Sorted, de-duplicated; throws UsageError on malformed text or values < 1.
std::vector<std::uint64_t> parse_sweep(const std::string& text);

/// Parse a list of positive integers "1,5,6" (whitespace allowed). Throws UsageError naming the bad item.
std::vector<std::uint64_t> parse_uint_list(const std::string& text, const std::string& what);

/// Parse a positive integer, allowing 2^k, 1e6 and 10^8 forms. Throws UsageError.
std::uint64_t parse_count(const std::string& text, const std::string& what);

}  // namespace mixgraph
