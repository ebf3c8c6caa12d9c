// JSON of `mixgraph congestion` (result_json.hpp).
#include "mixgraph/analysis/result_json.hpp"

namespace mixgraph::json {
ojson congestion(const CongestionResult& r, bool loads) {
  ojson j;
  j["pattern"] = r.pattern;
  j["copy_length"] = r.N;
  j["tokens"] = 2ULL * r.N;
  j["translation_invariant"] = r.translation_invariant;
  j["copy_possible"] = r.copy_possible;
  std::vector<std::uint64_t> bad;
  for (auto i : r.impossible_inputs) bad.push_back(static_cast<std::uint64_t>(i) + 1);
  j["impossible_inputs"] = bad;
  j["impossible_reason"] = r.copy_possible ? ojson(nullptr) : ojson(r.impossible_reason);
  if (!r.copy_possible) {
    for (const char* k : {"copy_distance", "min_distance", "distance_sum", "lower_bound", "lower_bound_name"})
      j[k] = nullptr;
    j["lower_bounds"] = {{"prop47", nullptr}, {"cut", nullptr}, {"lp", nullptr}, {"ip", nullptr}};
    j["lower_bound_notes"] = ojson::object();
    for (const char* k :
         {"kappa", "lp_value", "prop48_bound", "upper_bound", "congestion", "best_routing", "gap"})
      j[k] = nullptr;
    j["optimal"] = false;
    j["routings"] = ojson::array();
    j["skipped"] = ojson::array();
    return j;
  }
  j["copy_distance"] = r.copy_distance;
  j["min_distance"] = r.min_distance;
  j["distance_sum"] = r.distance_sum;
  j["lower_bound"] = r.lower_bound;
  j["lower_bound_name"] = r.lower_bound_name;
  j["lower_bounds"] = ojson::object();
  j["lower_bound_notes"] = ojson::object();
  for (auto& b : r.lower_bounds) {
    j["lower_bounds"][b.name] = value_or_null(b.value);
    j["lower_bound_notes"][b.name] = b.note;
  }
  j["kappa"] = value_or_null(r.kappa);
  j["lp_value"] = value_or_null(r.lp_value);
  j["prop48_bound"] = value_or_null(r.prop48_bound);
  j["upper_bound"] = value_or_null(r.upper_bound);
  j["congestion"] = value_or_null(r.congestion);
  j["best_routing"] = r.best_routing.empty() ? ojson(nullptr) : ojson(r.best_routing);
  j["gap"] = r.upper_bound ? ojson(*r.upper_bound - r.lower_bound) : ojson(nullptr);
  j["optimal"] = r.optimal;
  j["routings"] = ojson::array();
  for (auto& s : r.routings) {
    ojson o = {{"name", s.name},
               {"congestion", s.congestion},
               {"argmax_position", s.argmax + 1},
               {"positions_at_max", s.num_at_max},
               {"path_length", {{"min", s.min_len}, {"mean", s.mean_len}, {"max", s.max_len}}},
               {"seconds", s.seconds},
               {"note", s.note}};
    std::vector<std::uint64_t> hist(s.congestion + 1, 0);
    for (auto l : s.loads) ++hist[l];
    o["load_histogram"] = hist;
    if (loads) o["loads"] = s.loads;
    j["routings"].push_back(std::move(o));
  }
  j["skipped"] = ojson::array();
  for (auto& [name, why] : r.skipped) j["skipped"].push_back({{"name", name}, {"reason", why}});
  return j;
}

}  // namespace mixgraph::json
