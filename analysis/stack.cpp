// The stack queries of pattern, distances, rank and congestion (stack.hpp; docs/math.md §3 "Stacked layers").
#include "mixgraph/analysis/stack.hpp"

#include "mixgraph/analysis/cuts.hpp"
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern_spec.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::analysis {
namespace {

using ojson = nlohmann::ordered_json;

/// All-pairs stack distances (some layer not translation-invariant) refuse more relaxations than this.
constexpr std::uint64_t kMaxAllPairsWork = std::uint64_t{1} << 36;

/// --n, or 0 when a layer's files give it.
std::uint64_t stack_n_of(const StackQuery& q, const PatternSpec& tree) {
  if (!q.n_text.empty()) return parse_count(q.n_text, "--n");
  if (tree.has_matrix()) return 0;  // the files give n
  throw UsageError("--n is required (the number of tokens)");
}

/// The parameters every stack document starts with: pattern, format (then n, once the stack is built).
ojson stack_params(const StackQuery& q, const Stack& s, const std::string& format) {
  ojson params = {{"pattern", q.spec}, {"format", format}};
  params["n"] = s.n;
  return params;
}

/// The JSON every stack document starts with: the header of "<command>.stack", then command, pattern, n,
/// depth.
ojson stack_json(const std::string& command, const ojson& params, const Stack& s) {
  auto j = json::header(command + ".stack", 1, params);
  j["command"] = command;
  j["pattern"] = s.spec;
  j["n"] = s.n;
  j["depth"] = s.depth();
  return j;
}

ojson dist_json(std::uint32_t d) {
  return d == UNREACHABLE ? ojson(nullptr) : ojson(d);
}

}  // namespace

Stack build_stack(const StackQuery& q) {
  const PatternSpec tree = parse_pattern_spec(q.spec);  // the one parse: n, the estimate and the build
  const std::uint64_t n = stack_n_of(q, tree);
  if (n != 0)  // else mtx: layers give n, and their readers check their own sizes
    check_memory(estimate_stack_bytes(tree, n), q.mem_limit,
                 "pattern " + q.spec + " at n = " + std::to_string(n));
  return make_stack(tree, n);
}

StackPatternResult stack_pattern(const StackPatternQuery& q) {
  StackPatternResult r{build_stack(q.stack), {}, ojson::array()};
  const Stack& s = r.stack;
  ProfileOptions po;
  po.threads = q.stack.threads;
  po.per_position = q.profile;
  r.profile = stack_profile(s, po);
  for (std::size_t l = 0; l < s.depth(); ++l) {
    const auto& lp = r.profile.layers[l];
    r.layers.push_back({{"layer", l + 1},
                        {"pattern", s.layer_specs[l]},
                        {"family", to_string(s.layers[l]->family)},
                        {"a_mode", to_string(s.layers[l]->a_mode)},
                        {"nnz_A", lp.nnz_a},
                        {"nnz_B", lp.nnz_b},
                        {"total_decode_cost", lp.total_decode_cost},
                        {"max_decode_cost", lp.max_decode_cost},
                        {"max_cache", lp.max_cache}});
  }
  return r;
}

ojson stack_pattern_document(const StackPatternQuery& q, const StackPatternResult& r,
                             const std::string& format) {
  const auto& prof = r.profile;
  auto j = stack_json("pattern", stack_params(q.stack, r.stack, format), r.stack);
  json::add_profile_totals(j, prof);
  j["layers"] = r.layers;
  if (q.profile && !q.summary) {
    j["decode_cost"] = prof.decode_cost;
    j["cache_size"] = prof.cache_size;
  }
  return j;
}

StackDistancesResult stack_distances(const StackDistancesQuery& q) {
  StackDistancesResult r{build_stack(q.stack), 0, {}, {}};
  const Stack& s = r.stack;
  if (!q.source_text.empty()) {  // final-layer distances from one input position
    const std::uint64_t v = parse_count(q.source_text, "--source");
    if (v < 1 || v > s.n)
      throw UsageError("--source " + q.source_text + " is outside 1.." + std::to_string(s.n) +
                       " (positions are 1-indexed)");
    r.source = v;
    r.from_source = stack_single_source(s, static_cast<pos_t>(v - 1));
    return r;
  }
  StackDistanceOptions opt;
  opt.threads = q.stack.threads;
  opt.mem_limit = q.stack.mem_limit;
  opt.max_work = kMaxAllPairsWork;
  r.summary = stack_distance_summary(s, opt);
  return r;
}

ojson stack_distances_document(const StackDistancesQuery& q, const StackDistancesResult& r,
                               const std::string& format) {
  const Stack& s = r.stack;
  ojson params = stack_params(q.stack, s, format);
  if (r.source != 0) {
    params["source"] = r.source;
    auto j = stack_json("distances", params, s);
    j["source"] = r.source;
    ojson a = ojson::array();
    for (auto x : r.from_source) a.push_back(dist_json(x));
    j["distances"] = a;
    return j;
  }
  const auto& sum = r.summary;
  const auto& last = sum.by_depth.back();
  auto j = stack_json("distances", params, s);
  j["figures_from"] = sum.from_profile ? "profile" : "all-pairs";
  j["diameter"] = last.diameter;
  j["mean_distance"] = last.mean_distance;
  j["reachable_pairs"] = last.reachable_pairs;
  j["unreachable_pairs"] = last.unreachable_pairs;
  j["histogram"] = last.histogram;  // per distance, not per position: kept with --summary, as for one pattern
  ojson rows = ojson::array();
  for (std::size_t l = 0; l < sum.by_depth.size(); ++l) {
    const auto& b = sum.by_depth[l];
    rows.push_back({{"depth", l + 1},
                    {"layer_pattern", s.layer_specs[l]},
                    {"diameter", b.diameter},
                    {"mean_distance", b.mean_distance},
                    {"reachable_pairs", b.reachable_pairs},
                    {"unreachable_pairs", b.unreachable_pairs}});
  }
  j["by_depth"] = rows;
  if (sum.from_profile && !q.summary) {
    ojson a = ojson::array();
    for (auto x : sum.profile.back()) a.push_back(dist_json(x));
    j["profile"] = a;
  }
  return j;
}

StackRankResult stack_rank(const StackRankQuery& q) {
  if (q.method != "both" && q.method != "dense" && q.method != "flow" && q.method != "exact")
    throw UsageError(
        "rank with a stack: pattern takes --method both, dense, exact or flow (the dense product of the "
        "layers, n <= 1024, the exact ranks of the product over GF(2^61-1), and Menger ranks on the "
        "stacked graph); got '" +
        q.method + "'");
  if (q.tol < 0) throw UsageError("--tol must be >= 0 (0 = the default rule)");
  StackRankResult r{build_stack(q.stack), {}, {}};
  const Stack& s = r.stack;
  if (s.n < 2) throw UsageError("--n must be >= 2 (cut K needs positions on both sides)");
  StackRankOptions& opt = r.options;
  opt.seed = q.seed;
  opt.tol = q.tol;
  if (!q.cuts_text.empty()) {
    opt.cuts = parse_cuts(q.cuts_text, s.n);
    if (opt.cuts.empty()) throw UsageError("--cuts selected no cut");
  }
  opt.mem_limit = q.stack.mem_limit;
  opt.numeric = q.method != "flow";
  opt.flow = q.method != "dense" && q.method != "exact";
  opt.exact = q.method == "exact";
  opt.exact_if_generic = q.method == "both";  // as for one pattern: exact for seeded weights
  if (q.method == "dense" && s.n > opt.numeric_limit)
    throw UsageError("rank --method dense on a stack multiplies dense n x n operators: n must be <= " +
                     std::to_string(opt.numeric_limit) + " (use --method flow)");
  const CutProgressScope scope(q.progress ? &q.progress : nullptr);  // after each cut; may stop the loops
  r.ranks = stack_cut_ranks(s, opt);
  return r;
}

ojson stack_rank_document(const StackRankQuery& q, const StackRankResult& r, const std::string& format) {
  ojson params = {{"pattern", q.stack.spec}, {"format", format}, {"seed", q.seed}};
  params["n"] = r.stack.n;
  if (q.method != "both") params["method"] = q.method;
  const auto& res = r.ranks;
  auto j = stack_json("rank", params, r.stack);
  ojson layers = ojson::array();
  for (const auto& l : r.stack.layer_specs) layers.push_back(l);
  j["layers"] = layers;
  j["cuts"] = res.cuts;
  const bool exact = res.numeric_done && res.numeric_method == "exact";
  j["numeric_method"] = res.numeric_done ? ojson(res.numeric_method) : ojson(nullptr);
  j["tolerance"] = res.numeric_done && !exact ? ojson(res.tolerance) : ojson(nullptr);
  if (exact) {
    j["failure_bound"] = res.failure_bound;
    j["rule"] = res.exact_rule;
  }
  j["numeric"] = res.numeric_done ? ojson(res.numeric) : ojson(nullptr);
  j["flow"] = res.flow_done ? ojson(res.flow) : ojson(nullptr);
  j["max_cut_rank"] = res.max_cut_rank;
  j["argmax_cut"] = res.argmax_cut ? ojson(res.argmax_cut) : ojson(nullptr);
  j["numeric_above_flow"] = res.numeric_above_flow;
  return j;
}

StackCongestionResult stack_congestion(const StackCongestionQuery& q) {
  StackCongestionOptions co;
  co.seed = q.seed;
  co.mem_limit = q.mem_limit;
  co.keep_paths = q.keep_paths;
  co.lp = q.lp;
  if (!q.routing.empty() && !select_routings(co, q.routing))
    throw UsageError("--routing must be shift, random, minmax or all (got '" + q.routing + "')");
  std::uint64_t N = 0;
  if (!q.n_text.empty()) {
    N = parse_count(q.n_text, "--copy-length");
    if (N < 1) throw UsageError("--copy-length (the copy length N) must be >= 1");
  }
  return analyse_stack_congestion(q.spec, N, co);
}

ojson stack_congestion_document(const StackCongestionQuery& q, const StackCongestionResult& sr,
                                const std::string& format, const std::string& paths_file) {
  const auto& r = sr.base;
  nlohmann::json params = {{"pattern", q.spec}, {"routing", q.routing.empty() ? "default" : q.routing},
                           {"lp", q.lp},        {"seed", q.seed},
                           {"format", format},  {"n", r.N}};
  if (!paths_file.empty()) params["paths"] = paths_file;
  auto j = json::header("congestion", 1, params);
  j.update(json::congestion(r, true));
  j["depth"] = sr.layer_specs.size();
  j["layers"] = sr.layer_specs;
  return j;
}

}  // namespace mixgraph::analysis
