// JSON of `mixgraph pattern` and `mixgraph distances` (result_json.hpp).
#include <algorithm>

#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/stack.hpp"

namespace mixgraph::json {

ojson distance(std::uint32_t d) {
  return d == UNREACHABLE ? ojson(nullptr) : ojson(d);
}

ojson distance_list(const std::vector<std::uint32_t>& d) {
  ojson a = ojson::array();
  for (auto x : d) a.push_back(distance(x));
  return a;
}

namespace {

template <class Profile>
void add_totals(ojson& j, const Profile& s) {
  j["nnz_A"] = s.nnz_a;
  j["nnz_B"] = s.nnz_b;
  j["total_decode_cost"] = s.total_decode_cost;
  j["max_decode_cost"] = s.max_decode_cost;
  j["max_cache"] = s.max_cache;
  j["max_cache_position"] = s.argmax_cache + 1;
}

}  // namespace

void add_profile_totals(ojson& j, const PatternProfile& s) {
  add_totals(j, s);
}

void add_profile_totals(ojson& j, const StackProfile& s) {
  add_totals(j, s);
}

ojson pattern_summary(const Pattern& p, const PatternProfile& s, bool lists) {
  ojson j;
  j["pattern"] = p.spec;
  j["n"] = p.n;
  j["family"] = to_string(p.family);
  j["a_mode"] = to_string(p.a_mode);
  if (p.family != PatternFamily::Matrix) {
    j["num_offsets"] = p.f_values.size();
    if (lists) j["offsets"] = p.f_values;
  }
  add_profile_totals(j, s);
  if (p.family == PatternFamily::CacheEfficient) j["max_kept_set"] = s.max_kept_set;
  if (is_loglinear(p)) j["decode_state"] = decode_state(p.n);
  return j;
}

void add_pattern_profile(ojson& j, const Pattern& p, const PatternProfile& s) {
  j["decode_cost"] = s.decode_cost;
  j["cache_size"] = s.cache_size;
  if (p.family == PatternFamily::CacheEfficient) j["kept_set_size"] = s.kept_set;
}

ojson distances(const DistancesResult& d, bool lists) {
  const Pattern& p = *d.pattern;
  const bool per_position = lists && !d.summary_only;
  ojson j;
  j["pattern"] = p.spec;
  j["n"] = p.n;
  j["family"] = to_string(p.family);
  j["a_mode"] = to_string(p.a_mode);
  j["translation_invariant"] = d.translation_invariant;
  if (d.has_summary) {
    j["figures_from"] = d.figures_from;
    j["diameter"] = d.sum.diameter;
    j["mean_distance"] = d.sum.mean_distance;
    j["histogram"] = d.sum.histogram;
    j["reachable_pairs"] = d.sum.reachable_pairs;
    j["unreachable_pairs"] = d.sum.unreachable_pairs;
    if (d.has_profile) {
      j["max_delta"] = d.sum.diameter;  // max finite delta(m) over 1 <= m < n
      if (per_position) j["profile"] = distance_list(d.profile);
    }
    if (per_position && !d.sum.eccentricity.empty()) j["eccentricity"] = d.sum.eccentricity;
  }
  if (!d.matrix_file.empty()) j["matrix_file"] = d.matrix_file;
  if (d.source) {
    j["source"] = *d.source + 1;
    if (lists) j["dist"] = distance_list(d.from);
    if (d.counts) {
      if (lists) {
        ojson c = ojson::array();
        for (pos_t i = 0; i < p.n; ++i) {
          if (d.path_counts.dist[i] == UNREACHABLE)
            c.push_back(nullptr);
          else
            c.push_back(d.path_counts.count[i]);
        }
        j["path_counts"] = std::move(c);
      }
      j["path_counts_overflow"] = d.path_counts.overflow;
    }
  }
  if (d.target) {
    j["target"] = *d.target + 1;
    if (lists) j["dist_to_target"] = distance_list(d.to);
  }
  if (d.source && d.target) j["distance"] = distance(d.from[*d.target]);
  return j;
}

ojson path_lengths(const std::vector<PathLengthTable>& tables) {
  auto growth = [](const PathLengthTable::Fits& f) {
    ojson g = menu_fit(f.menu);
    g["free"] = power_fit(f.free, kPathLengthBoundExponent);
    return g;
  };
  ojson sweep = ojson::array();
  for (const auto& t : tables) {
    ojson rows = ojson::array();
    for (const auto& r : t.rows) {
      std::uint32_t md = UNREACHABLE;
      if (r.from_profile)
        md = r.copy_distance == UNREACHABLE ? r.diameter : std::max(r.diameter, r.copy_distance);
      rows.push_back(ojson{{"n", r.n},
                           {"diameter", r.diameter},
                           {"copy_distance", distance(r.copy_distance)},
                           {"mean_distance", r.mean_distance},
                           {"max_delta", distance(md)},
                           {"unreachable_pairs", r.unreachable_pairs},
                           {"source_of_figures", r.from_profile ? "profile" : "all-pairs"}});
    }
    sweep.push_back(ojson{{"pattern", t.pattern},
                          {"rows", std::move(rows)},
                          {"growth",
                           {{"diameter", growth(t.diameter_fit)},
                            {"copy_distance", growth(t.copy_fit)},
                            {"mean_distance", growth(t.mean_fit)}}}});
  }
  return ojson{{"sweep", std::move(sweep)}};
}

}  // namespace mixgraph::json
