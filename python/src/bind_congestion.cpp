// mixgraph.congestion: the copy task's routings, loads and certified bounds (`mixgraph congestion`).
#include <pybind11/stl.h>

#include "common.hpp"
#include "interrupt.hpp"
#include "json_py.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/error.hpp"

namespace mixgraph::py {
namespace {

pb::tuple congestion(const pb::object& pat, const pb::object& N_obj, const pb::object& routing, bool lp,
                     std::uint64_t seed, bool paths, const pb::object& mem) {
  std::string spec;  // as given (a Pattern's spec); the tree is a Pattern's own or the one parse of the text
  std::shared_ptr<const PatternSpec> tree;
  if (pb::isinstance<PatternHolder>(pat)) {
    const Pattern& p = pat.cast<PatternHolder&>().p;
    spec = p.spec;
    tree = std::make_shared<const PatternSpec>(p.tree);
  } else if (pb::isinstance<pb::str>(pat)) {
    spec = pat.cast<std::string>();
    tree = std::make_shared<const PatternSpec>(parse_pattern_spec(spec, false));
  } else {
    throw UsageError("pattern must be a spec string or a mixgraph.Pattern");
  }
  const std::uint64_t N = n_from(N_obj, *tree);
  CongestionOptions co;
  co.seed = seed;
  co.lp = lp;
  co.mem_limit = mem_limit_from(mem);
  co.keep_paths = paths;
  if (!routing.is_none()) {
    const auto r = routing.cast<std::string>();
    if (!select_routings(co, r))
      throw UsageError("routing must be shift, random, minmax or all (got '" + r + "')");
  }
  auto res = std::make_shared<CongestionResult>();
  run_cancellable([res, spec, tree, N, co] {  // Ctrl-C: interrupt.hpp
    *res = analyse_congestion(*tree, N, co);
    res->pattern = spec;  // as given
  });
  const CongestionResult& r = *res;
  // attributes: the JSON fields (json_py.hpp) with numpy arrays for the lists; to_dict() is the CLI's JSON
  pb::dict j, extra;
  std::vector<std::uint64_t> bad;
  for (auto i : r.impossible_inputs) bad.push_back(static_cast<std::uint64_t>(i) + 1);
  j["impossible_inputs"] = to_numpy(std::move(bad));
  pb::list routings = json_to_py(json::congestion(r, false)["routings"]);
  for (std::size_t k = 0; k < r.routings.size(); ++k)
    routings[k]["loads"] = shared_view(r.routings[k].loads, res);
  j["routings"] = routings;
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
    res->paths.clear();
    res->paths.shrink_to_fit();
  }
  return pb::make_tuple(j, extra, json_fn([res](bool lists) { return json::congestion(*res, lists); }));
}

}  // namespace

void bind_congestion(pb::module_& m) {
  m.def("_congestion", &congestion, pb::arg("pattern"), pb::arg("N") = pb::none(),
        pb::arg("routing") = pb::none(), pb::arg("lp") = false, pb::arg("seed") = 1, pb::arg("paths") = false,
        pb::arg("mem_limit") = pb::none());
}

}  // namespace mixgraph::py
