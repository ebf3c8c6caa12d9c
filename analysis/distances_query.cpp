// mixgraph::analysis::distances_plan / distances_compute (distances_query.hpp).
#include "mixgraph/analysis/distances_query.hpp"

#include "mixgraph/analysis/heads.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::analysis {
namespace {

pos_t position(const PositionArg& a, const std::string& option, pos_t n) {
  bool inside = false;
  std::uint64_t v = 0;
  if (a.value) {
    inside = *a.value >= 1 && static_cast<std::uint64_t>(*a.value) <= n;
    v = inside ? static_cast<std::uint64_t>(*a.value) : 0;
  } else {
    v = parse_count(a.text, option);
    inside = v >= 1 && v <= n;
  }
  if (!inside)
    throw UsageError(option + " " + a.text + " is outside 1.." + std::to_string(n) +
                     " (positions are 1-indexed)");
  return static_cast<pos_t>(v - 1);
}

const std::string& pattern_text(const DistancesQuery& q) {
  return q.pattern_text.empty() ? q.pattern->spec : q.pattern_text;
}

}  // namespace

DistancesPlan distances_plan(const DistancesQuery& q) {
  const Pattern& p = *q.pattern;
  const DistancesWords& w = q.words;
  DistancesPlan plan;
  if (const auto method = profile_method_from(q.method))
    plan.method = *method;
  else
    throw UsageError(w.method + " must be auto, bitset-bfs or dp (got '" + q.method + "')");
  if (q.source) plan.source = position(*q.source, w.source, p.n);
  if (q.target) plan.target = position(*q.target, w.target, p.n);
  if (q.counts && !plan.source) throw UsageError(w.counts_needs_source + " (shortest-path counts from x_j)");
  if (q.matrix && p.n > q.matrix_max)
    throw UsageError(w.matrix_gives + " n^2 entries; n = " + std::to_string(p.n) + " is above " +
                     std::to_string(q.matrix_max) + ": " + w.matrix_instead);
  plan.route = choose_distance_route(p, {.all_pairs = q.all_pairs,
                                         .matrix = q.matrix,
                                         .lists = plan.source || plan.target,
                                         .pattern_text = pattern_text(q),
                                         .all_pairs_words = w.all_pairs,
                                         .one_row_words = w.one_row});
  plan.has_summary = plan.route.route != DistanceRoute::ListsOnly;
  return plan;
}

std::optional<DistancesAnswer> distances_compute(const DistancesQuery& q, const DistancesPlan& plan) {
  const Pattern& p = *q.pattern;
  DistancesAnswer a;
  json::DistancesResult& d = a.result;
  if (plan.route.route == DistanceRoute::Profile) {
    check_memory(profile_summary_bytes(p.n, !q.summary), q.mem_limit,
                 "the distance profile of " + pattern_text(q) + " at n = " + std::to_string(p.n));
    a.profile = distance_profile(p, plan.method);
    d.sum = summary_from_profile(*a.profile, p.n, !q.summary);
    d.figures_from = "profile";
  } else if (plan.route.route == DistanceRoute::AllPairs) {
    AllPairsOptions ap;
    ap.threads = q.threads;
    ap.eccentricities = !q.summary;
    ap.mem_limit = q.mem_limit;
    ap.progress = q.progress;
    if (q.matrix) ap.matrix = &a.matrix;
    if (q.all_pairs_hook) {
      auto sum = q.all_pairs_hook(p, ap);
      if (!sum) return std::nullopt;
      d.sum = std::move(*sum);
    } else {
      d.sum = all_pairs_summary(p, ap);
    }
    d.figures_from = "all-pairs";
    if (plan.route.translation_invariant) a.profile = distance_profile(p, plan.method);
  }
  if (plan.source) {
    if (q.counts) {
      d.path_counts = shortest_path_counts(p, *plan.source);
      d.from = d.path_counts.dist;
    } else {
      d.from = single_source_distances(p, *plan.source);
    }
  }
  if (plan.target) d.to = single_target_distances(p, *plan.target);
  d.pattern = &p;
  d.translation_invariant = plan.route.translation_invariant;
  d.summary_only = q.summary;
  d.has_summary = plan.has_summary;
  d.has_profile = a.profile.has_value();
  if (a.profile && !q.summary) d.profile = a.profile->to_vector();
  d.source = plan.source;
  d.target = plan.target;
  d.counts = q.counts;
  return a;
}

nlohmann::ordered_json distances_head_rows(const DistancesQuery& q) {
  DistanceRouteRequest request;
  request.all_pairs = q.all_pairs;
  request.all_pairs_words = q.words.all_pairs;
  request.one_row_words = q.words.one_row;
  return head_distance_rows(*q.pattern, q.threads, q.mem_limit, request);
}

}  // namespace mixgraph::analysis
