#pragma once
// The shared output module: table / csv / json, common options, and the JSON header every command emits.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "mixgraph/analysis/option_checks.hpp"
#include "mixgraph/pattern_spec.hpp"

namespace mixgraph::cli {

enum class Format { Table, Csv, Json };

/// The largest --threads accepted (mixgraph/analysis/option_checks.hpp).
using analysis::kMaxThreads;

/// Options most commands share.
struct CommonOptions {
  std::string format = "table";
  int threads = 0;        ///< 0: all cores
  std::string mem_limit;  ///< "" = physical memory
  Format fmt() const;
  std::uint64_t mem_limit_bytes() const;
  /// Checks --threads (0..kMaxThreads) and applies it to OpenMP; makes --mem-limit the default limit of
  /// every memory check (file readers included).
  void apply() const;
};

/// True for `mtx:` pattern specs (their files give n).
bool is_mtx_spec(const std::string& spec);
/// --n for a pattern spec: parsed from n_text; required (UsageError, with `hint` appended) unless the spec
/// is an `mtx:` file, for which an empty n_text gives 0 (the file's size decides).
std::uint64_t pattern_n(const std::string& spec, const std::string& n_text, const std::string& hint = "");
/// The same for a parsed spec: n may be left out when a piece of it is an mtx: matrix (has_matrix).
std::uint64_t pattern_n(const PatternSpec& spec, const std::string& n_text, const std::string& hint = "");

void add_common_options(CLI::App& app, CommonOptions& o, bool with_format = true);

/// Every JSON object mixgraph prints keeps its fields in insertion order (docs/formats.md).
using ojson = nlohmann::ordered_json;

/// {"schema": "mixgraph.<command>/<schema_version>", "mixgraph_version", "command", "parameters"}: the
/// first four fields of every JSON document; the command's fields follow in the order they are added.
ojson json_header(const std::string& command, int schema_version, const ojson& params);

/// Pretty JSON where arrays of scalars stay on one line (per-position lists of length n stay readable).
void print_json(std::ostream& os, const ojson& j);

/// A simple aligned text table / CSV writer.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print_text(std::ostream& os) const;
  void print_csv(std::ostream& os) const;
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

/// Key/value listing for one-result table output.
void print_kv(std::ostream& os, const std::vector<std::pair<std::string, std::string>>& kv);

std::string csv_escape(const std::string& s);

/// The cell conventions of every CSV and table mixgraph writes (docs/formats.md): a missing value (not
/// computed, not applicable) is an empty CSV cell and `-` in text and Markdown tables; booleans are `true` /
/// `false`; unreachable distances are `inf`.
inline constexpr const char* kMissingText = "-";
inline const char* bool_cell(bool b) {
  return b ? "true" : "false";
}
std::string fmt_double(double v, int digits = 6);
/// "1, 2, 4, ..., 2048 (showing 8 of 12; --format json lists all)".
std::string fmt_list(const std::vector<std::uint64_t>& v, std::size_t show = 16);

/// True when stderr is a terminal (progress lines are shown only then).
bool stderr_is_tty();

}  // namespace mixgraph::cli
