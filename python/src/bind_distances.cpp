// mixgraph.distances: the numbers of `mixgraph distances` (one n) as arrays.
#include <pybind11/stl.h>

#include "common.hpp"
#include "interrupt.hpp"
#include "json_py.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
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

ProfileMethod parse_method(const std::string& m) {
  if (const auto method = profile_method_from(m)) return *method;
  throw UsageError("method must be auto, bitset-bfs or dp (got '" + m + "')");
}

pos_t position(const Pattern& p, long long v, const char* what) {
  if (v < 1 || static_cast<std::uint64_t>(v) > p.n)
    throw UsageError(std::string(what) + " " + std::to_string(v) + " is outside 1.." + std::to_string(p.n) +
                     " (positions are 1-indexed)");
  return static_cast<pos_t>(v - 1);
}

pb::tuple distances(const pb::object& pat, const pb::object& n, const pb::object& source_obj,
                    const pb::object& target_obj, bool counts, bool all_pairs, bool summary, bool matrix,
                    const std::string& method_text, int threads, const pb::object& mem) {
  check_threads(threads);
  ensure_threads(threads);  // a process limit: a clear error, not the OpenMP runtime's exit
  const PatternPtr h = pattern_from(pat, n, mem);
  const Pattern& p = h->p;
  const ProfileMethod method = parse_method(method_text);
  const std::uint64_t mem_limit = mem_limit_from(mem);
  std::optional<pos_t> source, target;
  if (!source_obj.is_none()) source = position(p, source_obj.cast<long long>(), "source");
  if (!target_obj.is_none()) target = position(p, target_obj.cast<long long>(), "target");
  if (counts && !source) throw UsageError("counts=True needs source=j (shortest-path counts from x_j)");
  if (matrix && p.n > kMatrixMax)
    throw UsageError("matrix=True returns n^2 entries; n = " + std::to_string(p.n) + " is above " +
                     std::to_string(kMatrixMax) + ": use the summary figures or source/target instead");
  const DistanceRouteChoice route = choose_distance_route(p, {.all_pairs = all_pairs,
                                                              .matrix = matrix,
                                                              .lists = source || target,
                                                              .pattern_text = p.spec,
                                                              .all_pairs_words = "pass all_pairs=True",
                                                              .one_row_words = "source=j / target=i"});
  const bool ti = route.translation_invariant;
  const bool do_summary = route.route != DistanceRoute::ListsOnly;
  // the work on a worker thread (Ctrl-C: interrupt.hpp), on data it owns
  struct Work {
    std::optional<DistanceProfile> prof;
    DistanceSummary sum;
    std::vector<std::uint32_t> mat, from, to;
    std::string figures_from;
    PathCounts pc;
  };
  auto w = std::make_shared<Work>();
  run_cancellable([w, h, ti, route, matrix, summary, mem_limit, method, threads, source, target, counts] {
    const Pattern& p = h->p;
    if (route.route == DistanceRoute::Profile) {
      check_memory(profile_summary_bytes(p.n, !summary), mem_limit,
                   "the distance profile of " + p.spec + " at n = " + std::to_string(p.n));
      w->prof = distance_profile(p, method);
      w->sum = summary_from_profile(*w->prof, p.n, !summary);
      w->figures_from = "profile";
    } else if (route.route == DistanceRoute::AllPairs) {
      AllPairsOptions ap;
      ap.threads = threads;
      ap.eccentricities = !summary;
      ap.mem_limit = mem_limit;
      if (matrix) ap.matrix = &w->mat;
      w->sum = all_pairs_summary(p, ap);
      w->figures_from = "all-pairs";
      if (ti) w->prof = distance_profile(p, method);
    }
    if (source) {
      if (counts) {
        w->pc = shortest_path_counts(p, *source);
        w->from = w->pc.dist;
      } else {
        w->from = single_source_distances(p, *source);
      }
    }
    if (target) w->to = single_target_distances(p, *target);
  });
  std::optional<DistanceProfile>& prof = w->prof;
  DistanceSummary& sum = w->sum;
  std::vector<std::uint32_t>&mat = w->mat, &from = w->from, &to = w->to;
  std::string& figures_from = w->figures_from;
  PathCounts& pc = w->pc;
  // to_dict() is the CLI's JSON (json_py.hpp); the attributes are its fields with numpy views for the lists
  auto d = std::make_shared<json::DistancesResult>();
  d->pattern = &p;
  d->translation_invariant = ti;
  d->summary_only = summary;
  d->has_summary = do_summary;
  d->figures_from = figures_from;
  d->sum = std::move(sum);
  d->has_profile = prof.has_value();
  if (prof && !summary) d->profile = prof->to_vector();
  d->source = source;
  d->target = target;
  d->from = std::move(from);
  d->to = std::move(to);
  d->counts = counts;
  d->path_counts = std::move(pc);
  pb::dict j, extra;
  if (do_summary) {
    j["histogram"] = shared_view(d->sum.histogram, d);
    if (prof && !summary) j["profile"] = shared_view(d->profile, d);
    if (!summary && !d->sum.eccentricity.empty()) j["eccentricity"] = shared_view(d->sum.eccentricity, d);
  }
  if (matrix) {
    auto a = to_numpy(std::move(mat));
    extra["matrix"] = a.reshape({static_cast<pb::ssize_t>(p.n), static_cast<pb::ssize_t>(p.n)});
  }
  if (source) {
    j["dist"] = shared_view(d->from, d);
    if (counts) j["path_counts"] = shared_view(d->path_counts.count, d);
  }
  if (target) j["dist_to_target"] = shared_view(d->to, d);
  if (source && target) j["distance"] = d->from[*target];
  return pb::make_tuple(j, extra, json_fn([d, h](bool lists) { return json::distances(*d, lists); }));
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
