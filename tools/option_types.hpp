#pragma once
// The option grammar every subcommand shares (docs/cli.md, "Conventions"): the value types shown in --help,
// the checked number parser as a CLI11 transform, seeds, position lists with ranges, the output option.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/analysis/cuts.hpp"

namespace mixgraph::cli {

/// Type names shown in --help for text options that are not a closed set of choices. An option whose type
/// is plain TEXT must carry a validator that refuses unknown words (an enumeration, e.g. CLI::IsMember).
namespace type {
inline constexpr const char* kSpec = "SPEC";          ///< a pattern spec
inline constexpr const char* kCount = "COUNT";        ///< 4096, 2^20, 1e6, 10^8
inline constexpr const char* kUint64 = "UINT64";      ///< 0..2^64-1 (seeds)
inline constexpr const char* kFile = "FILE";          ///< a file the command reads or writes
inline constexpr const char* kDir = "DIR";            ///< a folder
inline constexpr const char* kList = "LIST";          ///< positions: 1,5,6 or ranges 1..5
inline constexpr const char* kSweep = "LO..HI|LIST";  ///< n values: powers of two LO..HI, or a list
inline constexpr const char* kPosition = "POS";       ///< one 1-indexed position
inline constexpr const char* kSize = "SIZE";          ///< bytes: 8G, 512M
inline constexpr const char* kId = "ID";              ///< a registered name (e.g. a claim id)
}  // namespace type

/// Parses a positive integer with the project's checked parser (4096, 2^20, 1e6) and passes it on in
/// decimal, so CLI11 stores it in any integer type (a value that does not fit is refused at parse time).
CLI::Validator checked_count(bool allow_zero = false);

/// A floating-point option's value: a finite number in [lo, hi] (NaN, inf, -inf and overflowing texts such
/// as 1e999 are refused at parse time, which CLI::Range alone lets NaN through). The bound shows in --help
/// as "[lo, hi]"; hi = infinity shows ">= lo" (the value itself must still be finite).
CLI::Validator finite_range(double lo, double hi);

/// A folder or file name that must not be empty (an empty --checkpoint would silently mean "none"):
/// refused at parse time (exit 2).
CLI::Validator nonempty_path();

/// Checks a count without changing the text (for options read later by parse_count, such as --n).
CLI::Validator count_text();

/// A COUNT option (4096, 2^20, 1e6 forms): checked at parse time (count_text), its text kept for
/// parse_count, shown as COUNT in --help.
CLI::Option* add_count_option(CLI::App& app, const std::string& names, std::string& text,
                              const std::string& help);

/// Positions (or cuts) "1,5,6", with ranges "1..5" (every value from 1 to 5): refused at parse time when
/// malformed. `extra` names words also accepted (e.g. "all").
CLI::Validator position_list(std::vector<std::string> extra = {});

/// A --pattern value that names a .mtx file without the `mtx:` prefix: "did you mean mtx:B.mtx?".
CLI::Validator pattern_spec();

/// Items of a position list: "1,5,6" or "1..5,9" (mixgraph/analysis/cuts.hpp).
using analysis::parse_position_list;

/// --seed: an unsigned 64-bit integer (0..2^64-1, also 2^k and 1e6 forms), default 1.
CLI::Option* add_seed_option(CLI::App& app, std::uint64_t& seed, const std::string& what);

/// -o/--output: the one file or folder a command writes. `legacy` are older names kept as aliases
/// (e.g. "--paths"); they are listed in docs/cli.md's alias table.
CLI::Option* add_output_option(CLI::App& app, std::string& target, const std::string& help,
                               const std::string& legacy = "", const char* type_name = type::kFile);

/// --format with these choices (CLI11 refuses any other at parse time, exit 2, listing them); `refused`
/// maps a choice this command does not offer to the reason given.
CLI::Option* add_format_option(CLI::App& app, std::string& format, const std::vector<std::string>& choices,
                               const std::vector<std::pair<std::string, std::string>>& refused = {});

}  // namespace mixgraph::cli
