// Numbers in text (format.hpp).
#include "mixgraph/analysis/format.hpp"

#include <cstdio>

namespace mixgraph::analysis {

std::string fmt_double(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  std::string s = buf;
  // a real always reads as one (pandas: float64, not int64): 1 -> 1.0
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}

std::string congestion_verdict(const CongestionResult& r) {
  if (!r.copy_possible) return "impossible";
  if (!r.upper_bound) return "no routing";
  return r.optimal || *r.upper_bound == r.lower_bound ? "optimal" : "open";
}

}  // namespace mixgraph::analysis
