// The gallery's rows: each design's profile, distances, copy task and cut ranks (docs/gallery.md).
#include "mixgraph/analysis/gallery.hpp"

#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/pattern_spec.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/stack.hpp"
#include "mixgraph/stack_congestion.hpp"

namespace mixgraph::analysis {
namespace {

using ojson = nlohmann::ordered_json;

/// Stack distances that need every source refuse more relaxations than this (as `distances` does).
constexpr std::uint64_t kStackAllPairsWork = std::uint64_t{1} << 36;

/// The congestion and rank fields shared by single layers and stacks.
void add_copy_and_rank(ojson& j, const CongestionResult& cong, std::uint32_t max_cut_rank, pos_t argmax_cut) {
  auto opt = [](const std::optional<std::uint32_t>& v) { return v ? ojson(*v) : ojson(nullptr); };
  j["copy_possible"] = cong.copy_possible;
  j["copy_distance"] = cong.copy_possible ? ojson(cong.copy_distance) : ojson(nullptr);
  j["copy_congestion_lower"] = cong.copy_possible ? ojson(cong.lower_bound) : ojson(nullptr);
  j["copy_congestion_lower_from"] = cong.copy_possible ? ojson(cong.lower_bound_name) : ojson(nullptr);
  j["copy_congestion_upper"] = opt(cong.upper_bound);
  j["copy_congestion_upper_from"] =
      cong.copy_possible && cong.upper_bound ? ojson(cong.best_routing) : ojson(nullptr);
  j["max_cut_rank"] = max_cut_rank;
  j["max_cut_rank_at"] = argmax_cut;
}

ojson design(const std::string& spec, const GalleryQuery& q) {
  const PatternSpec tree = parse_pattern_spec(spec, false);  // the one parse: estimate, build, copy task
  const Pattern p = make_pattern_within(tree, q.n, q.mem_limit, "pattern " + spec);
  const auto prof = cache_profile(p, ProfileOptions{q.threads, false});  // totals only

  AllPairsOptions ap;
  ap.threads = q.threads;
  ap.eccentricities = false;
  ap.mem_limit = q.mem_limit;
  const DistanceSummary dist = distance_summary(p, ap);

  CongestionOptions co;
  co.mem_limit = q.mem_limit;
  const auto cong = analyse_congestion(tree, q.n / 2, co);

  CutRankParams cp;
  cp.method = CutRankMethod::Flow;
  cp.cuts = spaced_cuts(p.n, q.cuts);
  cp.mem_limit = q.mem_limit;
  const auto rank = cut_rank_profile(p, cp);

  ojson j = {{"pattern", spec},
             {"family", to_string(p.family)},
             {"a_mode", to_string(p.a_mode)},
             {"total_decode_cost", prof.total_decode_cost},
             {"max_decode_cost", prof.max_decode_cost},
             {"max_cache", prof.max_cache},
             {"diameter", dist.diameter},
             {"unreachable_pairs", dist.unreachable_pairs}};
  if (json::is_loglinear(p)) {
    // the columns are the mask's (attention's): say so in the row, and give log-linear attention's own state
    j["figures_of"] = "the mask (attention's): decode cost and cache count positions";
    j["decode_state"] = json::decode_state(p.n);
  }
  add_copy_and_rank(j, cong, rank.max_cut_rank, rank.argmax_cut);
  return j;
}

/// A stack:P1,P2,... design, as `pattern`, `distances`, `congestion` and `rank --method flow` give it:
/// decode cost and cache summed over layers, the diameter from layer-0 inputs to the last layer's outputs,
/// the copy task across the layers on n/2 + n/2 tokens, the flow rank of the product operator.
ojson stack_design(const std::string& spec, const GalleryQuery& q) {
  const PatternSpec tree = parse_pattern_spec(spec);  // the one parse: the estimate and the build
  check_memory(estimate_stack_bytes(tree, q.n), q.mem_limit,
               "pattern " + spec + " at n = " + std::to_string(q.n));
  const Stack s = make_stack(tree, q.n);
  const auto prof = stack_profile(s, ProfileOptions{q.threads, false});  // totals only
  StackDistanceOptions dop;
  dop.threads = q.threads;
  dop.mem_limit = q.mem_limit;
  dop.max_work = kStackAllPairsWork;
  const DistanceSummary dist = stack_distance_summary(s, dop).by_depth.back();
  StackCongestionOptions co;
  co.mem_limit = q.mem_limit;
  const auto cong = analyse_stack_congestion(spec, q.n / 2, co);
  StackRankOptions ro;
  ro.numeric = false;
  ro.cuts = spaced_cuts(s.n, q.cuts);
  ro.mem_limit = q.mem_limit;
  const auto rank = stack_cut_ranks(s, ro);
  std::string a_mode = to_string(s.layers[0]->a_mode);
  for (const auto& l : s.layers)
    if (to_string(l->a_mode) != a_mode) a_mode = "mixed";
  ojson j = {{"pattern", spec},
             {"family", "stack"},
             {"a_mode", a_mode},
             {"depth", s.depth()},
             {"total_decode_cost", prof.total_decode_cost},
             {"max_decode_cost", prof.max_decode_cost},
             {"max_cache", prof.max_cache},
             {"diameter", dist.diameter},
             {"unreachable_pairs", dist.unreachable_pairs}};
  add_copy_and_rank(j, cong.base, rank.max_cut_rank, rank.argmax_cut);
  return j;
}

}  // namespace

const std::vector<std::string>& gallery_default_designs() {
  static const std::vector<std::string> designs = {"ssm",
                                                   "window:64",
                                                   "dilated:16,4",
                                                   "strided:32,64",
                                                   "pow2",
                                                   "pow2+cache",
                                                   "sq1+cache",
                                                   "window:60|sink:4",
                                                   "block:64",
                                                   "bigbird:32,4,28",
                                                   "loglinear",
                                                   "attention",
                                                   "heads:window:64;pow2+cache",
                                                   "stack:ssm,window:64,ssm,window:64"};
  return designs;
}

GalleryResult run_gallery(const GalleryQuery& q) {
  if (q.n < 4) throw UsageError("--n must be >= 4 (the copy task runs on n/2 + n/2 tokens)");
  validate_n(q.n);
  if (q.cuts < 1) throw UsageError("--cuts must be >= 1");
  GalleryResult r;
  r.n = q.n;
  r.specs = q.specs.empty() ? gallery_default_designs() : q.specs;
  for (const auto& s : r.specs)
    if (s.rfind("mtx:", 0) == 0)
      throw UsageError("gallery runs every design at one --n: mtx: patterns have their own n");
  for (const auto& s : r.specs) {
    if (q.on_design) q.on_design(s);
    r.designs.push_back(is_stack_spec(s) ? stack_design(s, q) : design(s, q));
  }
  return r;
}

ojson gallery_json(const GalleryResult& r) {
  ojson j;
  j["n"] = r.n;
  j["designs"] = ojson::array();
  for (const auto& d : r.designs) j["designs"].push_back(d);
  return j;
}

}  // namespace mixgraph::analysis
