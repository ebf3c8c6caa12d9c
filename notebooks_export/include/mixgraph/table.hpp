#pragma once
// Plain tables for reports: one model, written as CSV, JSON, Markdown and HTML.
//
//   mixgraph::DataTable t{"summary", "Pattern summary", {"pattern", "nnz_B"}};
//   t.add({mixgraph::Cell::text("pow2"), mixgraph::Cell::integer(9217)});
//   std::string csv = mixgraph::to_csv(t);
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mixgraph {

/// One table cell. Unreachable is `inf` in CSV and Markdown and `null` in JSON; Empty (missing: not
/// computed, not applicable) is an empty CSV field, `-` in Markdown and HTML and `null` in JSON; Boolean is
/// `true` / `false` everywhere (docs/formats.md). Text may say why a value is missing ("pending (...)").
struct Cell {
  enum class Kind { Empty, Integer, Real, Text, Unreachable, Boolean };
  Kind kind = Kind::Empty;
  std::int64_t i = 0;
  double d = 0;
  std::string s;
  int digits = 6;  ///< Real: significant digits in text output (JSON keeps the full double)

  static Cell empty() { return {}; }
  static Cell integer(std::int64_t v) { return {Kind::Integer, v, 0, {}, 6}; }
  static Cell real(double v, int digits = 6) { return {Kind::Real, 0, v, {}, digits}; }
  static Cell text(std::string v) { return {Kind::Text, 0, 0, std::move(v), 6}; }
  static Cell unreachable() { return {Kind::Unreachable, 0, 0, {}, 6}; }
  static Cell boolean(bool v) { return {Kind::Boolean, v ? 1 : 0, 0, {}, 6}; }
  /// How the cell reads in CSV (reals with `digits` significant digits; Empty is "").
  std::string str() const;
  /// How the cell reads in Markdown and HTML: str(), but Empty is "-".
  std::string display() const;
  nlohmann::json json() const;
};

struct DataTable {
  std::string name;     ///< file stem: tables/<name>.csv and tables/<name>.json
  std::string caption;  ///< one line saying what the table holds
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;

  /// Appends a row; throws std::invalid_argument when its width differs from `columns`.
  void add(std::vector<Cell> row);
};

/// CSV with one header row; fields with commas, quotes or newlines are quoted (RFC 4180). O(cells).
std::string to_csv(const DataTable& t);
/// {"schema": "mixgraph.report.table/1", "name", "caption", "columns": [...], "rows": [{column: value}]};
/// unreachable and empty cells are null; rows keep the column order. O(cells).
nlohmann::ordered_json to_json(const DataTable& t);
/// A GitHub-flavoured Markdown table of the first `max_rows` rows, then a line saying how many were left
/// out (when any). `|` in cells is escaped; unreachable reads "inf". O(shown cells).
std::string to_markdown(const DataTable& t, std::size_t max_rows = 50);
/// An HTML <table> (escaped) of the first `max_rows` rows, with the same "left out" line. O(shown cells).
std::string to_html(const DataTable& t, std::size_t max_rows = 50);

/// Standard base64 (RFC 4648, with padding). O(size).
std::string base64_encode(const std::string& bytes);

}  // namespace mixgraph
