// mixgraph.congestion: the copy task's routings, loads and certified bounds (`mixgraph congestion`).
#include <pybind11/stl.h>

#include "common.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/error.hpp"

namespace mixgraph::py {
namespace {

pb::object opt(const std::optional<std::uint32_t>& v) {
  return v ? pb::cast(*v) : pb::none();
}

pb::tuple congestion(const pb::object& pat, const pb::object& N_obj, const pb::object& routing, bool lp,
                     std::uint64_t seed, bool paths, const pb::object& mem) {
  std::string spec;
  if (pb::isinstance<PatternHolder>(pat))
    spec = pat.cast<PatternHolder&>().p.spec;
  else if (pb::isinstance<pb::str>(pat))
    spec = pat.cast<std::string>();
  else
    throw UsageError("pattern must be a spec string or a mixgraph.Pattern");
  const std::uint64_t N = n_from(N_obj, spec);
  CongestionOptions co;
  co.seed = seed;
  co.lp = lp;
  co.mem_limit = mem_limit_from(mem);
  co.keep_paths = paths;
  if (!routing.is_none()) {
    const auto r = routing.cast<std::string>();
    if (r != "shift" && r != "random" && r != "minmax" && r != "all")
      throw UsageError("routing must be shift, random, minmax or all (got '" + r + "')");
    co.routings_forced = true;
    co.shift = r == "shift" || r == "all";
    co.random = r == "random" || r == "all";
    co.minmax = r == "minmax" || r == "all";
  }
  CongestionResult r;
  {
    pb::gil_scoped_release release;
    r = analyse_congestion(spec, N, co);
  }
  pb::dict j, extra;
  j["pattern"] = r.pattern;
  j["copy_length"] = r.N;
  j["tokens"] = 2ULL * r.N;
  j["translation_invariant"] = r.translation_invariant;
  j["copy_possible"] = r.copy_possible;
  std::vector<std::uint64_t> bad;
  for (auto i : r.impossible_inputs) bad.push_back(static_cast<std::uint64_t>(i) + 1);
  j["impossible_inputs"] = to_numpy(std::move(bad));
  j["impossible_reason"] = r.copy_possible ? pb::none() : pb::cast(r.impossible_reason);
  if (!r.copy_possible) {
    for (const char* k :
         {"copy_distance", "min_distance", "distance_sum", "lower_bound", "lower_bound_name", "kappa",
          "lp_value", "prop48_bound", "upper_bound", "congestion", "best_routing", "gap"})
      j[k] = pb::none();
    pb::dict lb;
    for (const char* k : {"prop47", "cut", "lp", "ip"}) lb[k] = pb::none();
    j["lower_bounds"] = lb;
    j["lower_bound_notes"] = pb::dict();
    j["routings"] = pb::list();
    j["skipped"] = pb::list();
    j["optimal"] = false;
    return pb::make_tuple(j, extra);
  }
  j["copy_distance"] = r.copy_distance;
  j["min_distance"] = r.min_distance;
  j["distance_sum"] = r.distance_sum;
  j["lower_bound"] = r.lower_bound;
  j["lower_bound_name"] = r.lower_bound_name;
  pb::dict lbs, notes;
  for (auto& b : r.lower_bounds) {
    lbs[b.name.c_str()] = opt(b.value);
    notes[b.name.c_str()] = b.note;
  }
  j["lower_bounds"] = lbs;
  j["lower_bound_notes"] = notes;
  j["kappa"] = r.kappa ? pb::cast(*r.kappa) : pb::none();
  j["lp_value"] = r.lp_value ? pb::cast(*r.lp_value) : pb::none();
  j["prop48_bound"] = opt(r.prop48_bound);
  j["upper_bound"] = opt(r.upper_bound);
  j["congestion"] = opt(r.congestion);
  j["best_routing"] = r.best_routing.empty() ? pb::none() : pb::cast(r.best_routing);
  j["gap"] = r.upper_bound ? pb::cast(*r.upper_bound - r.lower_bound) : pb::none();
  j["optimal"] = r.optimal;
  pb::list routings;
  for (auto& s : r.routings) {
    pb::dict o;
    o["name"] = s.name;
    o["congestion"] = s.congestion;
    o["argmax_position"] = s.argmax + 1;
    o["positions_at_max"] = s.num_at_max;
    pb::dict len;
    len["min"] = s.min_len;
    len["mean"] = s.mean_len;
    len["max"] = s.max_len;
    o["path_length"] = len;
    o["seconds"] = s.seconds;
    o["note"] = s.note;
    std::vector<std::uint64_t> hist(s.congestion + 1, 0);
    for (auto l : s.loads) ++hist[l];
    o["load_histogram"] = to_numpy(std::move(hist));
    o["loads"] = to_numpy(std::move(s.loads));
    routings.append(o);
  }
  j["routings"] = routings;
  pb::list skipped;
  for (auto& [name, why] : r.skipped) {
    pb::dict s;
    s["name"] = name;
    s["reason"] = why;
    skipped.append(s);
  }
  j["skipped"] = skipped;
  if (paths) {
    pb::dict all;
    for (auto& rt : r.paths) {
      pb::list l;
      for (std::size_t i = 0; i + 1 < rt.ptr.size(); ++i) {
        std::vector<pos_t> path;
        for (auto k = rt.ptr[i]; k < rt.ptr[i + 1]; ++k) path.push_back(rt.nodes[k] + 1);
        l.append(to_numpy(std::move(path)));
      }
      all[rt.name.c_str()] = l;
    }
    extra["paths"] = all;
  }
  return pb::make_tuple(j, extra);
}

}  // namespace

void bind_congestion(pb::module_& m) {
  m.def("_congestion", &congestion, pb::arg("pattern"), pb::arg("N") = pb::none(),
        pb::arg("routing") = pb::none(), pb::arg("lp") = false, pb::arg("seed") = 1, pb::arg("paths") = false,
        pb::arg("mem_limit") = pb::none());
}

}  // namespace mixgraph::py
