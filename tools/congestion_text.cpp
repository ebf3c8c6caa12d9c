#include "congestion_text.hpp"

#include <string>

#include "output.hpp"

namespace mixgraph::cli {

void print_routings(std::ostream& os, const CongestionResult& r) {
  if (!r.routings.empty()) {
    os << "\n";
    Table t({"routing", "congestion", "positions at max", "first at", "path length min/mean/max", "seconds",
             "how"});
    for (auto& s : r.routings)
      t.add(
          {s.name, std::to_string(s.congestion), std::to_string(s.num_at_max), std::to_string(s.argmax + 1),
           std::to_string(s.min_len) + " / " + fmt_double(s.mean_len, 4) + " / " + std::to_string(s.max_len),
           fmt_double(s.seconds, 3), s.note});
    t.print_text(os);
  }
  for (auto& [name, why] : r.skipped) os << "skipped " << name << ": " << why << "\n";
}

}  // namespace mixgraph::cli
