#include "congestion_text.hpp"

#include <string>

#include "mixgraph/analysis/format.hpp"
#include "mixgraph/error.hpp"
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

std::string bound_or_dash(const std::optional<std::uint32_t>& v) {
  return v ? std::to_string(*v) : "-";
}

const RoutingStats* find_routing(const CongestionResult& r, const std::string& name) {
  for (const auto& s : r.routings)
    if (s.name == name) return &s;
  return nullptr;
}

std::string verdict(const CongestionResult& r) {
  return analysis::congestion_verdict(r);
}

std::vector<std::string> congestion_row_header(const std::vector<std::string>& extra) {
  std::vector<std::string> h = {"pattern", "N"};
  h.insert(h.end(), extra.begin(), extra.end());
  for (const char* c : {"copy_distance", "prop47", "cut", "lp", "ip", "lower", "prop48", "shift", "random",
                        "minmax", "exact", "upper", "gap", "status"})
    h.push_back(c);
  return h;
}

std::vector<std::string> congestion_row(const CongestionResult& r, const std::vector<std::string>& extra) {
  std::vector<std::string> row = {r.pattern, std::to_string(r.N)};
  row.insert(row.end(), extra.begin(), extra.end());
  if (!r.copy_possible) {
    row.push_back("inf");
    row.resize(row.size() + 12, "-");  // prop47 .. gap
    row.push_back(verdict(r));
    return row;
  }
  row.push_back(std::to_string(r.copy_distance));
  for (const auto& b : r.lower_bounds) row.push_back(bound_or_dash(b.value));
  row.push_back(std::to_string(r.lower_bound));
  row.push_back(bound_or_dash(r.prop48_bound));
  for (const char* name : {"shift", "random", "minmax", "exact"}) {
    const auto* s = find_routing(r, name);
    row.push_back(s ? std::to_string(s->congestion) : "-");
  }
  row.push_back(bound_or_dash(r.upper_bound));
  row.push_back(r.upper_bound ? std::to_string(*r.upper_bound - r.lower_bound) : "-");
  row.push_back(verdict(r));
  return row;
}

void add_bound_lines(std::vector<std::pair<std::string, std::string>>& kv, const CongestionResult& r,
                     std::pair<std::string, std::string> prop48) {
  for (const auto& b : r.lower_bounds)
    kv.push_back({"lower bound " + b.name, bound_or_dash(b.value) + "  (" + b.note + ")"});
  kv.push_back({"best lower bound", std::to_string(r.lower_bound) + " (" + r.lower_bound_name + ")"});
  kv.push_back(std::move(prop48));
  kv.push_back({"upper bound",
                bound_or_dash(r.upper_bound) + (r.best_routing.empty() ? "" : " (" + r.best_routing + ")")});
  if (r.upper_bound)
    kv.push_back({"gap", std::to_string(*r.upper_bound - r.lower_bound) + (r.optimal ? "  optimal" : "")});
}

std::size_t paths_routing_index(const CongestionResult& r, const std::string& which) {
  std::size_t k = r.routings.size();
  for (std::size_t i = 0; i < r.routings.size(); ++i)
    if (r.routings[i].name == which) k = i;
  if (k == r.routings.size() && r.copy_possible)
    throw UsageError("--output: no routing '" + which + "' was computed");
  return k;
}

}  // namespace mixgraph::cli
