#include "mixgraph/table.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace mixgraph {

std::string Cell::str() const {
  switch (kind) {
    case Kind::Empty:
      return "";
    case Kind::Integer:
      return std::to_string(i);
    case Kind::Real: {
      if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
      if (std::isnan(d)) return "nan";
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.*g", digits, d);
      std::string out = buf;
      if (out.find_first_of(".eni") == std::string::npos) out += ".0";  // 1 -> 1.0: reads as a real
      return out;
    }
    case Kind::Text:
      return s;
    case Kind::Unreachable:
      return "inf";
    case Kind::Boolean:
      return i ? "true" : "false";
  }
  return "";
}

std::string Cell::display() const {
  return kind == Kind::Empty ? "-" : str();
}

nlohmann::json Cell::json() const {
  switch (kind) {
    case Kind::Empty:
      return nullptr;
    case Kind::Integer:
      return i;
    case Kind::Real:
      return std::isfinite(d) ? nlohmann::json(d) : nlohmann::json(nullptr);
    case Kind::Text:
      return s;
    case Kind::Unreachable:
      return nullptr;
    case Kind::Boolean:
      return i != 0;
  }
  return nullptr;
}

void DataTable::add(std::vector<Cell> row) {
  if (row.size() != columns.size())
    throw std::invalid_argument("table '" + name + "': row has " + std::to_string(row.size()) +
                                " cells, expected " + std::to_string(columns.size()));
  rows.push_back(std::move(row));
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string left_out_line(const DataTable& t, std::size_t shown) {
  if (t.rows.size() <= shown) return "";
  return "(showing " + std::to_string(shown) + " of " + std::to_string(t.rows.size()) + " rows; tables/" +
         t.name + ".csv has them all)";
}

}  // namespace

std::string to_csv(const DataTable& t) {
  std::string out;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    if (c) out += ',';
    out += csv_field(t.columns[c]);
  }
  out += '\n';
  for (const auto& r : t.rows) {
    for (std::size_t c = 0; c < r.size(); ++c) {
      if (c) out += ',';
      out += csv_field(r[c].str());
    }
    out += '\n';
  }
  return out;
}

nlohmann::ordered_json to_json(const DataTable& t) {
  nlohmann::ordered_json j = {{"schema", "mixgraph.report.table/1"},
                              {"name", t.name},
                              {"caption", t.caption},
                              {"columns", t.columns},
                              {"rows", nlohmann::ordered_json::array()}};
  for (const auto& r : t.rows) {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < r.size(); ++c) o[t.columns[c]] = r[c].json();
    j["rows"].push_back(std::move(o));
  }
  return j;
}

std::string to_markdown(const DataTable& t, std::size_t max_rows) {
  std::string out = "|";
  for (const auto& c : t.columns) out.append(" ").append(md_cell(c)).append(" |");
  out += "\n|";
  for (std::size_t c = 0; c < t.columns.size(); ++c) out += "---|";
  out += '\n';
  const std::size_t shown = std::min(max_rows, t.rows.size());
  for (std::size_t r = 0; r < shown; ++r) {
    out += "|";
    for (const auto& cell : t.rows[r]) out.append(" ").append(md_cell(cell.display())).append(" |");
    out += '\n';
  }
  const auto more = left_out_line(t, shown);
  if (!more.empty()) out += "\n" + more + "\n";
  return out;
}

std::string to_html(const DataTable& t, std::size_t max_rows) {
  std::string out = "<table border=\"1\" class=\"dataframe\">\n<thead><tr>";
  for (const auto& c : t.columns) out += "<th>" + html_escape(c) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  const std::size_t shown = std::min(max_rows, t.rows.size());
  for (std::size_t r = 0; r < shown; ++r) {
    out += "<tr>";
    for (const auto& cell : t.rows[r]) {
      const bool num = cell.kind == Cell::Kind::Integer || cell.kind == Cell::Kind::Real ||
                       cell.kind == Cell::Kind::Unreachable;
      out += num ? "<td style=\"text-align: right\">" : "<td style=\"text-align: left\">";
      out += html_escape(cell.display()) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  const auto more = left_out_line(t, shown);
  if (!more.empty()) out += "<p>" + html_escape(more) + "</p>\n";
  return out;
}

std::string base64_encode(const std::string& bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += alphabet[v & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 1) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += "==";
  } else if (rest == 2) {
    const unsigned v =
        (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += alphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

}  // namespace mixgraph
