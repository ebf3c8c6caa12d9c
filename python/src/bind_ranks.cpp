// mixgraph.cut_ranks: cut-rank profiles of M = (I - B)^{-1} A, numeric and Menger flow (`mixgraph rank`).
#include <pybind11/stl.h>

#include <cmath>

#include "common.hpp"
#include "interrupt.hpp"
#include "json_py.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/rank_progress.hpp"

namespace mixgraph::py {
namespace {

std::vector<pos_t> cuts_from(const pb::object& c, pos_t n) {
  if (c.is_none()) return {};
  if (pb::isinstance<pb::str>(c)) {
    if (c.cast<std::string>() == "all") return all_cuts(n);
    throw UsageError("cuts must be None, 'all', a count or a list of cuts");
  }
  if (pb::isinstance<pb::int_>(c)) {
    const auto k = c.cast<long long>();
    if (k < 1) throw UsageError("cuts: a count must be >= 1");
    return spaced_cuts(n, static_cast<std::uint64_t>(k));
  }
  std::vector<pos_t> out;
  for (auto item : c) {
    const auto k = item.cast<long long>();
    if (k < 1 || static_cast<std::uint64_t>(k) >= n)
      throw UsageError("cuts: cut " + std::to_string(k) + " is outside 1.." + std::to_string(n - 1) +
                       " (cut K separates positions 1..K from K+1..n)");
    out.push_back(static_cast<pos_t>(k));
  }
  if (out.empty()) throw UsageError("cuts selected no cut");
  return out;
}

CutRankMethod method_from(const std::string& m) {
  if (m == "both") return CutRankMethod::Both;
  if (m == "dense") return CutRankMethod::Dense;
  if (m == "sketch") return CutRankMethod::Sketch;
  if (m == "flow") return CutRankMethod::Flow;
  if (m == "exact") return CutRankMethod::Exact;
  throw UsageError("method must be both, exact, dense, sketch or flow (got '" + m + "')");
}

pb::tuple cut_ranks(const pb::object& pat, const pb::object& n_obj, const std::string& method,
                    const pb::object& cuts, std::uint64_t seed, double tol, bool dyadic,
                    const pb::object& mem, const pb::object& progress) {
  if (!std::isfinite(tol) || tol < 0 || tol > 1)  // as the CLI's --tol: NaN would keep every pivot, inf none
    throw UsageError("tol must be a finite number in [0, 1] (0 = the default rule; got " +
                     std::to_string(tol) + ")");
  if (pb::isinstance<pb::str>(pat)) {
    const auto spec = pat.cast<std::string>();
    const PatternSpec tree = parse_pattern_spec(spec, false);
    const auto n = n_from(n_obj, tree);
    if (!tree.has_matrix() && n < 2) throw UsageError("n must be >= 2 (cut K needs positions on both sides)");
    check_memory(estimate_pattern_bytes(tree, n, true) * 3, mem_limit_from(mem),
                 "pattern " + spec + " with weights at n = " + std::to_string(n));
  }
  const PatternPtr h = pattern_from(pat, n_obj);
  const Pattern& p = h->p;
  if (p.n < 2) throw UsageError("n must be >= 2 (cut K needs positions on both sides)");
  CutRankParams params;
  params.seed = seed;
  params.tol = tol;
  params.mem_limit = mem_limit_from(mem);
  params.method = method_from(method);
  params.cuts = cuts_from(cuts, p.n);
  if (dyadic && p.n > 4096) throw UsageError("dyadic=True needs the dense operator: n <= 4096");
  struct Computed {
    CutRankProfile r;
    std::optional<json::RankContrast> contrast;
    DyadicRanks dy;
  };
  auto c = std::make_shared<Computed>();
  // on a worker thread (Ctrl-C, progress): Ctrl-C raises at once, the work stops at its next stage
  run_interruptible(
      [c, h, params, dyadic, seed](Job& job) {
        const Pattern& q = h->p;
        job.stage("cut ranks");
        {  // progress after each cut; Ctrl-C stops the loops at their next cut
          const CutProgressHook per_cut = [&job](const std::string& what, std::uint64_t done,
                                                 std::uint64_t total) { job.step(what, done, total); };
          const CutProgressScope scope(&per_cut);
          c->r = cut_rank_profile(q, params);
        }
        if (dyadic) {
          job.stage("dyadic blocks");
          check_memory(8ull * q.n * q.n * 2, params.mem_limit, "dense operator for dyadic=True");
          const auto iw = induced_weights(q, seed);
          c->dy = dyadic_block_ranks_transposed(dense_operator_transposed(iw.w), c->r.tolerance);
        }
        job.stage("contrast");
        c->contrast = json::rank_contrast(q, c->r, seed, params.mem_limit);
      },
      progress, dyadic ? 3 : 2, {});
  // to_dict() is the CLI's JSON (json_py.hpp); the attributes are its fields with numpy views for the lists
  const CutRankProfile& r = c->r;
  pb::dict j;
  j["cuts"] = shared_view(r.cuts, c);
  j["cut_rank_numeric"] = r.numeric_done ? pb::object(shared_view(r.numeric, c)) : pb::none();
  j["cut_rank_flow"] = r.flow_done ? pb::object(shared_view(r.flow, c)) : pb::none();
  j["cache_at_cut"] = shared_view(r.cache_at_cut, c);
  j["numeric_above_flow"] = shared_view(r.numeric_above_flow, c);
  if (!r.sketch_columns.empty()) j["sketch_columns"] = shared_view(r.sketch_columns, c);
  return pb::make_tuple(j, pb::dict(), json_fn([c, h, dyadic](bool) {
                          return json::cut_ranks(h->p, c->r, c->contrast, dyadic ? &c->dy : nullptr);
                        }));
}

}  // namespace

void bind_ranks(pb::module_& m) {
  m.def("_cut_ranks", &cut_ranks, pb::arg("pattern"), pb::arg("n") = pb::none(), pb::arg("method") = "both",
        pb::arg("cuts") = pb::none(), pb::arg("seed") = 1, pb::arg("tol") = 0.0, pb::arg("dyadic") = false,
        pb::arg("mem_limit") = pb::none(), pb::arg("progress") = pb::none());
}

}  // namespace mixgraph::py
