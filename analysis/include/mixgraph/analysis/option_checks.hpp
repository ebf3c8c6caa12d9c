#pragma once
// The checks of option values both front ends share: text in, the reason it is refused out ("" = accepted),
// without the option's name in front. The CLI's validators (tools/option_types.cpp) hand the reason to CLI11,
// which writes "--flag: <reason>"; the Python package (python/src/analysis_call.cpp) throws UsageError
// "--flag: <reason>" itself. One text per refusal, so both give the same message (docs/cli.md,
// "Conventions"). Each check is O(length of the text) and allocates only its message.
#include <cstdint>
#include <string>
#include <vector>

namespace mixgraph::analysis {

/// The largest thread count accepted (--threads, threads=): more only exhausts the OpenMP runtime.
inline constexpr int kMaxThreads = 1024;

/// Why `text` is not a count as parse_count (mixgraph/sweep.hpp) takes it (4096, 2^20, 1e6, 10^8), or "".
/// The text is only checked; the caller parses it later.
std::string count_text_problem(const std::string& text);

/// `text` as a checked count: 1..2^64-1, or 0..2^64-1 with allow_zero (seeds). Returns the reason it is
/// refused, or "" with `value` set.
std::string checked_count_problem(const std::string& text, bool allow_zero, std::uint64_t& value);

/// Why `text` is not a position list ("1,5,6", ranges "1..5"; a trailing comma makes a one-item list,
/// "128,"), or "" (analysis::parse_position_list, mixgraph/analysis/cuts.hpp).
std::string position_list_problem(const std::string& text);

/// A floating-point value's bound as shown in --help and in messages: "[lo, hi]", or ">= lo" when hi is
/// infinity (numbers without trailing zeros: 0.5, 20).
std::string finite_range_bound(double lo, double hi);

/// Why `text` is not a finite number in [lo, hi] ("'x' is not a number", "'nan' is not a finite number (give
/// a value in [0, 1])", "'2' must be in [0, 1]"), or "". NaN, inf and overflowing texts (1e999) are refused.
std::string finite_range_problem(const std::string& text, double lo, double hi);

/// Why `text` is not one of `choices` ("foo not in {a,b,c}", the words of CLI11's IsMember), or "".
std::string member_problem(const std::string& text, const std::vector<std::string>& choices);

/// Why `threads` is not a thread count 0..kMaxThreads ("must be between 0 (all cores) and 1024 (got 5000)"),
/// or "". 0 means all cores.
std::string threads_problem(long long threads);

}  // namespace mixgraph::analysis
