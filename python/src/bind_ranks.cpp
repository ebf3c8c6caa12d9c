// mixgraph.cut_ranks: cut-rank profiles of M = (I - B)^{-1} A, numeric and Menger flow (`mixgraph rank`).
#include <pybind11/stl.h>

#include "common.hpp"
#include "interrupt.hpp"
#include "json_py.hpp"
#include "mixgraph/analysis/rank_query.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::py {
namespace {

/// The cuts argument into the query: None (the default cuts), 'all', a count or a list of cuts.
void cuts_into(const pb::object& c, analysis::RankQuery& q) {
  if (c.is_none()) return;
  if (pb::isinstance<pb::str>(c)) {
    if (c.cast<std::string>() == "all") {
      q.cuts = "all";
      return;
    }
    throw UsageError("cuts must be None, 'all', a count or a list of cuts");
  }
  if (pb::isinstance<pb::int_>(c)) {
    q.cut_count = c.cast<long long>();
    return;
  }
  q.cut_list.emplace();
  for (auto item : c) q.cut_list->push_back(item.cast<long long>());
}

pb::tuple cut_ranks(const pb::object& pat, const pb::object& n_obj, const std::string& method,
                    const pb::object& cuts, std::uint64_t seed, double tol, bool dyadic,
                    const pb::object& mem, const pb::object& progress) {
  analysis::RankQuery q;  // the CLI's checks and work (mixgraph/analysis/rank_query.hpp), named as here
  q.names = {"n", "method", "tol", "cuts", "dyadic=True"};
  q.method = method;
  q.seed = seed;
  q.tol = tol;
  q.mem_limit = mem_limit_from(mem);
  q.dyadic = dyadic;
  analysis::check_rank_tol(q);
  PatternPtr h;
  if (pb::isinstance<pb::str>(pat)) {  // checked before the pattern is built, from the one parse
    q.pattern = pat.cast<std::string>();
    const PatternSpec tree = parse_pattern_spec(q.pattern, false);
    const auto n = n_from(n_obj, tree);
    if (!tree.has_matrix()) validate_n(n);  // as the Pattern constructor does
    analysis::check_rank_spec(q, tree, n);
    h = pattern_from_tree(q.pattern, tree, n, q.mem_limit);
  } else {
    h = pattern_from(pat, n_obj);
  }
  q.built = std::shared_ptr<const Pattern>(h, &h->p);
  cuts_into(cuts, q);
  auto plan = std::make_shared<const analysis::RankPlan>(analysis::rank_prepare(q));
  auto c = std::make_shared<analysis::RankResult>();
  // on a worker thread (Ctrl-C, progress): Ctrl-C raises at once, the work stops at its next stage
  run_interruptible(
      [c, plan, q](Job& job) {
        analysis::RankQuery w = q;
        w.stage = [&job](const std::string& stage) { job.stage(stage); };
        // progress after each cut; Ctrl-C stops the loops at their next cut
        w.per_cut = [&job](const std::string& what, std::uint64_t done, std::uint64_t total) {
          job.step(what, done, total);
        };
        *c = analysis::rank_compute(w, *plan);
      },
      progress, dyadic ? 3 : 2, {});
  // to_dict() is the CLI's JSON (json_py.hpp); the attributes are its fields with numpy views for the lists
  const CutRankProfile& r = c->profile;
  pb::dict j;
  j["cuts"] = shared_view(r.cuts, c);
  j["cut_rank_numeric"] = r.numeric_done ? pb::object(shared_view(r.numeric, c)) : pb::none();
  j["cut_rank_flow"] = r.flow_done ? pb::object(shared_view(r.flow, c)) : pb::none();
  j["cache_at_cut"] = shared_view(r.cache_at_cut, c);
  j["numeric_above_flow"] = shared_view(r.numeric_above_flow, c);
  if (!r.sketch_columns.empty()) j["sketch_columns"] = shared_view(r.sketch_columns, c);
  return pb::make_tuple(j, pb::dict(), json_fn([c, plan](bool) { return analysis::rank_json(*plan, *c); }));
}

}  // namespace

void bind_ranks(pb::module_& m) {
  m.def("_cut_ranks", &cut_ranks, pb::arg("pattern"), pb::arg("n") = pb::none(), pb::arg("method") = "both",
        pb::arg("cuts") = pb::none(), pb::arg("seed") = 1, pb::arg("tol") = 0.0, pb::arg("dyadic") = false,
        pb::arg("mem_limit") = pb::none(), pb::arg("progress") = pb::none());
}

}  // namespace mixgraph::py
