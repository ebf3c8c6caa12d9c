// mixgraph.distances: the numbers of `mixgraph distances` (one n) as arrays.
#include <pybind11/stl.h>

#include "common.hpp"
#include "interrupt.hpp"
#include "json_py.hpp"
#include "mixgraph/analysis/distances_query.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::py {

PatternPtr pattern_from(const pb::object& p, const pb::object& n, const pb::object& mem_limit) {
  if (pb::isinstance<PatternHolder>(p)) {
    if (!n.is_none()) throw UsageError("give n only with a spec string, not with a Pattern");
    return p.cast<PatternPtr>();
  }
  if (!pb::isinstance<pb::str>(p))
    throw UsageError("pattern must be a mixgraph.Pattern or a spec string (got " +
                     pb::repr(p).cast<std::string>() + ")");
  return pb::module_::import("mixgraph._core").attr("Pattern")(p, n, 0, mem_limit).cast<PatternPtr>();
}

namespace {

/// The distance matrix is returned up to this n (n^2 uint32 entries).
constexpr std::uint64_t kMatrixMax = std::uint64_t{1} << 15;

pb::tuple distances(const pb::object& pat, const pb::object& n, const pb::object& source_obj,
                    const pb::object& target_obj, bool counts, bool all_pairs, bool summary, bool matrix,
                    const std::string& method_text, int threads, const pb::object& mem) {
  check_threads(threads);
  ensure_threads(threads);  // a process limit: a clear error, not the OpenMP runtime's exit
  const PatternPtr h = pattern_from(pat, n, mem);
  const Pattern& p = h->p;
  // the checks, the route and the work: analysis/distances_query.hpp, in this package's words
  auto position = [](const pb::object& v) -> std::optional<analysis::PositionArg> {
    if (v.is_none()) return std::nullopt;
    const long long k = v.cast<long long>();
    return analysis::PositionArg{std::to_string(k), k};
  };
  const analysis::DistancesQuery q{
      .pattern = &p,
      .pattern_text = p.spec,
      .source = position(source_obj),
      .target = position(target_obj),
      .counts = counts,
      .all_pairs = all_pairs,
      .summary = summary,
      .matrix = matrix,
      .matrix_max = kMatrixMax,
      .method = method_text,
      .threads = threads,
      .mem_limit = mem_limit_from(mem),
      .progress = {},        // none: the call runs as one stage
      .all_pairs_hook = {},  // all_pairs_summary in this process
      .words = {.source = "source",
                .target = "target",
                .method = "method",
                .counts_needs_source = "counts=True needs source=j",
                .matrix_gives = "matrix=True returns",
                .matrix_instead = "use the summary figures or source/target instead",
                .all_pairs = "pass all_pairs=True",
                .one_row = "source=j / target=i"}};
  const analysis::DistancesPlan plan = analysis::distances_plan(q);
  // the work on a worker thread (Ctrl-C: interrupt.hpp), on data it owns
  auto w = std::make_shared<analysis::DistancesAnswer>();
  auto heads =
      std::make_shared<nlohmann::ordered_json>();  // heads:P1;P2;...: each head's figures (the CLI's)
  run_cancellable([w, heads, h, q, plan] {
    *w = *analysis::distances_compute(q, plan);
    if (plan.has_summary && !h->p.heads.empty()) *heads = analysis::distances_head_rows(q);
  });
  // to_dict() is the CLI's JSON (json_py.hpp); the attributes are its fields with numpy views for the lists
  auto d = std::make_shared<json::DistancesResult>(std::move(w->result));
  pb::dict j, extra;
  if (plan.has_summary) {
    j["histogram"] = shared_view(d->sum.histogram, d);
    if (d->has_profile && !summary) j["profile"] = shared_view(d->profile, d);
    if (!summary && !d->sum.eccentricity.empty()) j["eccentricity"] = shared_view(d->sum.eccentricity, d);
  }
  if (matrix) {
    auto a = to_numpy(std::move(w->matrix));
    extra["matrix"] = a.reshape({static_cast<pb::ssize_t>(p.n), static_cast<pb::ssize_t>(p.n)});
  }
  if (plan.source) {
    j["dist"] = shared_view(d->from, d);
    if (counts) j["path_counts"] = shared_view(d->path_counts.count, d);
  }
  if (plan.target) j["dist_to_target"] = shared_view(d->to, d);
  if (plan.source && plan.target) j["distance"] = d->from[*plan.target];
  return pb::make_tuple(j, extra, json_fn([d, h, heads](bool lists) {
                          auto doc = json::distances(*d, lists);
                          if (!heads->is_null()) doc["heads"] = *heads;
                          return doc;
                        }));
}

pb::tuple path_lengths(const pb::object& patterns, const std::string& sweep, bool all_pairs, int threads,
                       const pb::object& mem, const pb::object& progress) {
  check_threads(threads);
  ensure_threads(threads);  // a process limit: a clear error, not the OpenMP runtime's exit
  std::vector<std::string> specs;
  if (pb::isinstance<pb::str>(patterns))
    specs.push_back(patterns.cast<std::string>());
  else
    for (auto s : patterns) specs.push_back(s.cast<std::string>());
  if (specs.empty()) throw UsageError("give at least one pattern spec");
  const auto ns = parse_sweep(sweep);
  AllPairsOptions ap;
  ap.threads = threads;
  ap.mem_limit = mem_limit_from(mem);
  auto t = std::make_shared<std::vector<PathLengthTable>>();
  // on a worker thread (Ctrl-C, progress): one step per row, the table stops at the next row when asked
  run_interruptible(
      [t, specs, ns, ap, all_pairs](Job& job) mutable {
        std::uint64_t rows = 0;
        for (const auto& spec : specs) {
          ap.row_done = [&](std::uint64_t n) {
            job.step("distances " + spec + " n = " + std::to_string(n), ++rows, specs.size() * ns.size());
          };
          t->push_back(path_length_table(spec, ns, ap, all_pairs ? UINT64_MAX : kAutoAllPairsMax));
        }
      },
      progress, -1, {});
  return pb::make_tuple(pb::dict(), pb::dict(), json_fn([t](bool) { return json::path_lengths(*t); }));
}

}  // namespace

void bind_distances(pb::module_& m) {
  m.def("_distances", &distances, pb::arg("pattern"), pb::arg("n") = pb::none(),
        pb::arg("source") = pb::none(), pb::arg("target") = pb::none(), pb::arg("counts") = false,
        pb::arg("all_pairs") = false, pb::arg("summary") = false, pb::arg("matrix") = false,
        pb::arg("method") = "auto", pb::arg("threads") = 0, pb::arg("mem_limit") = pb::none());
  m.def("_path_lengths", &path_lengths, pb::arg("patterns"), pb::arg("sweep"), pb::arg("all_pairs") = false,
        pb::arg("threads") = 0, pb::arg("mem_limit") = pb::none(), pb::arg("progress") = pb::none());
}

}  // namespace mixgraph::py
