#pragma once
// Internal helpers for human-readable details (not installed).
#include <sstream>
#include <string>

namespace mixgraph::detail {

/// v in scientific notation with 3 digits after the point, e.g. "1.234e-07".
inline std::string sci(double v) {
  std::ostringstream s;
  s.precision(3);
  s << std::scientific << v;
  return s.str();
}

}  // namespace mixgraph::detail
