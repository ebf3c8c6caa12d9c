#pragma once
// Internal text helpers: spec parsing and human-readable details (not installed).
#include <sstream>
#include <string>

namespace mixgraph::detail {

/// s without leading and trailing spaces, tabs and line ends (the spec parsers' trim).
inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\n\r");
  const auto e = s.find_last_not_of(" \t\n\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/// v in scientific notation with 3 digits after the point, e.g. "1.234e-07".
inline std::string sci(double v) {
  std::ostringstream s;
  s.precision(3);
  s << std::scientific << v;
  return s.str();
}

}  // namespace mixgraph::detail
