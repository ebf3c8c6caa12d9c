// `stack:P1,P2,...` in mixgraph pattern, distances and rank: decode cost and cache summed over layers,
// distances across depth, cut ranks of the product operator (docs/math.md §3 "Stacked layers").
#include "cmd_stack.hpp"

#include <chrono>
#include <iostream>

#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/rank_progress.hpp"
#include "mixgraph/stack.hpp"
#include "mixgraph/sweep.hpp"
#include "stage_hook.hpp"

namespace mixgraph::cli {

void refuse_stack_options(const std::vector<std::string>& unsupported, const std::string& command,
                          const std::string& why) {
  if (unsupported.empty()) return;
  std::string opts;
  for (const auto& u : unsupported) opts += (opts.empty() ? "" : ", ") + u;
  throw UsageError(command + " with a stack: pattern does not take " + opts + " (" + why + ")");
}

namespace {

/// All-pairs stack distances (some layer not translation-invariant) refuse more relaxations than this.
constexpr std::uint64_t kMaxAllPairsWork = std::uint64_t{1} << 36;

void refuse_unsupported(const StackRequest& r, const char* command) {
  refuse_stack_options(r.unsupported, command, "docs/cli.md, \"Stacked layers\", lists what stacks support");
}

/// --n, or 0 when a layer's files give it.
std::uint64_t stack_n_of(const StackRequest& r, const PatternSpec& tree) {
  if (!r.n_text.empty()) return parse_count(r.n_text, "--n");
  if (tree.has_matrix()) return 0;  // the files give n
  throw UsageError("--n is required (the number of tokens)");
}

Stack build(const StackRequest& r, ojson& params) {
  r.common.apply();
  const PatternSpec tree = parse_pattern_spec(r.spec);  // the one parse: n, the estimate and the build
  const std::uint64_t n = stack_n_of(r, tree);
  if (n != 0)  // else mtx: layers give n, and their readers check their own sizes
    check_memory(estimate_stack_bytes(tree, n), r.common.mem_limit_bytes(),
                 "pattern " + r.spec + " at n = " + std::to_string(n));
  Stack s = make_stack(tree, n);
  params["n"] = s.n;
  return s;
}

ojson layer_names(const Stack& s) {
  ojson a = ojson::array();
  for (const auto& l : s.layer_specs) a.push_back(l);
  return a;
}

/// The JSON every stack result starts with: the header of "<command>.stack", then command, pattern, n, depth.
ojson stack_json(const std::string& command, const ojson& params, const Stack& s) {
  auto j = json_header(command + ".stack", 1, params);
  j["command"] = command;
  j["pattern"] = s.spec;
  j["n"] = s.n;
  j["depth"] = s.depth();
  return j;
}

/// The lines every stack result's table starts with: pattern, n, depth; `more` after them.
std::vector<std::pair<std::string, std::string>> stack_kv(
    const Stack& s, std::initializer_list<std::pair<std::string, std::string>> more) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"pattern", s.spec}, {"n", std::to_string(s.n)}, {"depth (layers)", std::to_string(s.depth())}};
  kv.insert(kv.end(), more.begin(), more.end());
  return kv;
}

ojson dist_json(std::uint32_t d) {
  return d == UNREACHABLE ? ojson(nullptr) : ojson(d);
}
std::string dist_cell(std::uint32_t d) {
  return d == UNREACHABLE ? "inf" : std::to_string(d);
}

}  // namespace

std::uint64_t stack_n(const StackRequest& r) {
  return stack_n_of(r, parse_pattern_spec(r.spec));
}

int run_stack_pattern(const StackRequest& r) {
  refuse_unsupported(r, "pattern");
  ojson params = {{"pattern", r.spec}, {"format", r.common.format}};
  const Stack s = build(r, params);
  ProfileOptions po;
  po.threads = r.common.threads;
  po.per_position = r.profile;
  const auto prof = stack_profile(s, po);
  ojson layers = ojson::array();
  for (std::size_t l = 0; l < s.depth(); ++l) {
    const auto& lp = prof.layers[l];
    layers.push_back({{"layer", l + 1},
                      {"pattern", s.layer_specs[l]},
                      {"family", to_string(s.layers[l]->family)},
                      {"a_mode", to_string(s.layers[l]->a_mode)},
                      {"nnz_A", lp.nnz_a},
                      {"nnz_B", lp.nnz_b},
                      {"total_decode_cost", lp.total_decode_cost},
                      {"max_decode_cost", lp.max_decode_cost},
                      {"max_cache", lp.max_cache}});
  }
  const Format fmt = r.common.fmt();
  if (fmt == Format::Json) {
    auto j = stack_json("pattern", params, s);
    j["nnz_A"] = prof.nnz_a;
    j["nnz_B"] = prof.nnz_b;
    j["total_decode_cost"] = prof.total_decode_cost;
    j["max_decode_cost"] = prof.max_decode_cost;
    j["max_cache"] = prof.max_cache;
    j["max_cache_position"] = prof.argmax_cache + 1;
    j["layers"] = layers;
    if (r.profile && !r.summary) {
      j["decode_cost"] = prof.decode_cost;
      j["cache_size"] = prof.cache_size;
    }
    print_json(std::cout, j);
    return 0;
  }
  if (fmt == Format::Csv) {
    if (r.profile) {
      Table t({"position", "decode_cost", "cache_size"});
      for (pos_t i = 0; i < s.n; ++i)
        t.add(
            {std::to_string(i + 1), std::to_string(prof.decode_cost[i]), std::to_string(prof.cache_size[i])});
      t.print_csv(std::cout);
    } else {
      Table t({"layer", "pattern", "nnz_A", "nnz_B", "total_decode_cost", "max_decode_cost", "max_cache"});
      for (const auto& l : layers)
        t.add({l["layer"].dump(), l["pattern"].get<std::string>(), l["nnz_A"].dump(), l["nnz_B"].dump(),
               l["total_decode_cost"].dump(), l["max_decode_cost"].dump(), l["max_cache"].dump()});
      t.add({"all", s.spec, std::to_string(prof.nnz_a), std::to_string(prof.nnz_b),
             std::to_string(prof.total_decode_cost), std::to_string(prof.max_decode_cost),
             std::to_string(prof.max_cache)});
      t.print_csv(std::cout);
    }
    return 0;
  }
  print_kv(
      std::cout,
      stack_kv(s, {{"nnz(A), all layers", std::to_string(prof.nnz_a)},
                   {"nnz(B), all layers", std::to_string(prof.nnz_b)},
                   {"total decode cost", std::to_string(prof.total_decode_cost)},
                   {"max decode cost (per token, summed over layers)", std::to_string(prof.max_decode_cost)},
                   {"max cache (summed over layers)", std::to_string(prof.max_cache) + " at position " +
                                                          std::to_string(prof.argmax_cache + 1)}}));
  Table t({"layer", "pattern", "nnz_A", "nnz_B", "total decode cost", "max decode cost", "max cache"});
  for (const auto& l : layers)
    t.add({l["layer"].dump(), l["pattern"].get<std::string>(), l["nnz_A"].dump(), l["nnz_B"].dump(),
           l["total_decode_cost"].dump(), l["max_decode_cost"].dump(), l["max_cache"].dump()});
  std::cout << "\nper layer:\n";
  t.print_text(std::cout);
  if (r.profile) {
    Table pt({"position", "decode cost", "cache"});
    for (pos_t i = 0; i < s.n; ++i)
      pt.add(
          {std::to_string(i + 1), std::to_string(prof.decode_cost[i]), std::to_string(prof.cache_size[i])});
    std::cout << "\n";
    pt.print_text(std::cout);
  }
  return 0;
}

int run_stack_distances(const StackRequest& r) {
  refuse_unsupported(r, "distances");
  ojson params = {{"pattern", r.spec}, {"format", r.common.format}};
  const Stack s = build(r, params);
  const Format fmt = r.common.fmt();
  if (!r.source_text.empty()) {  // final-layer distances from one input position
    const std::uint64_t v = parse_count(r.source_text, "--source");
    if (v < 1 || v > s.n)
      throw UsageError("--source " + r.source_text + " is outside 1.." + std::to_string(s.n) +
                       " (positions are 1-indexed)");
    params["source"] = v;
    const auto d = stack_single_source(s, static_cast<pos_t>(v - 1));
    if (fmt == Format::Json) {
      auto j = stack_json("distances", params, s);
      j["source"] = v;
      ojson a = ojson::array();
      for (auto x : d) a.push_back(dist_json(x));
      j["distances"] = a;
      print_json(std::cout, j);
      return 0;
    }
    Table t({"position", "distance"});
    for (pos_t i = 0; i < s.n; ++i) t.add({std::to_string(i + 1), dist_cell(d[i])});
    fmt == Format::Csv ? t.print_csv(std::cout) : t.print_text(std::cout);
    return 0;
  }
  StackDistanceOptions opt;
  opt.threads = r.common.threads;
  opt.mem_limit = r.common.mem_limit_bytes();
  opt.max_work = kMaxAllPairsWork;
  const auto sum = stack_distance_summary(s, opt);
  const auto& last = sum.by_depth.back();
  if (fmt == Format::Json) {
    auto j = stack_json("distances", params, s);
    j["figures_from"] = sum.from_profile ? "profile" : "all-pairs";
    j["diameter"] = last.diameter;
    j["mean_distance"] = last.mean_distance;
    j["reachable_pairs"] = last.reachable_pairs;
    j["unreachable_pairs"] = last.unreachable_pairs;
    j["histogram"] =
        last.histogram;  // per distance, not per position: kept with --summary, as for one pattern
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
    if (sum.from_profile && !r.summary) {
      ojson a = ojson::array();
      for (auto x : sum.profile.back()) a.push_back(dist_json(x));
      j["profile"] = a;
    }
    print_json(std::cout, j);
    return 0;
  }
  Table t({"depth", "layer", "diameter", "mean_distance", "reachable_pairs", "unreachable_pairs"});
  for (std::size_t l = 0; l < sum.by_depth.size(); ++l) {
    const auto& b = sum.by_depth[l];
    t.add({std::to_string(l + 1), s.layer_specs[l], std::to_string(b.diameter),
           fmt_double(b.mean_distance, 8), std::to_string(b.reachable_pairs),
           std::to_string(b.unreachable_pairs)});
  }
  if (fmt == Format::Csv) {
    t.print_csv(std::cout);
    return 0;
  }
  print_kv(
      std::cout,
      stack_kv(s, {{"figures from", sum.from_profile ? "the profile of input 1 (translation-invariant layers)"
                                                     : "all-pairs search over the stacked graph"},
                   {"diameter (input j -> last layer's i, j < i)", std::to_string(last.diameter)},
                   {"mean distance", fmt_double(last.mean_distance, 8)},
                   {"reachable pairs", std::to_string(last.reachable_pairs)},
                   {"unreachable pairs", std::to_string(last.unreachable_pairs)}}));
  std::cout << "\nacross depth (the first l layers):\n";
  t.print_text(std::cout);
  return 0;
}

int run_stack_rank(const StackRequest& r) {
  refuse_unsupported(r, "rank");
  ojson params = {{"pattern", r.spec}, {"format", r.common.format}, {"seed", r.seed}};
  if (r.method != "both" && r.method != "dense" && r.method != "flow" && r.method != "exact")
    throw UsageError(
        "rank with a stack: pattern takes --method both, dense, exact or flow (the dense product of the "
        "layers, n <= 1024, the exact ranks of the product over GF(2^61-1), and Menger ranks on the "
        "stacked graph); got '" +
        r.method + "'");
  if (r.tol < 0) throw UsageError("--tol must be >= 0 (0 = the default rule)");
  const Stack s = build(r, params);
  if (s.n < 2) throw UsageError("--n must be >= 2 (cut K needs positions on both sides)");
  StackRankOptions opt;
  opt.seed = r.seed;
  opt.tol = r.tol;
  if (r.cuts_of) opt.cuts = r.cuts_of(s.n);
  opt.mem_limit = r.common.mem_limit_bytes();
  opt.numeric = r.method != "flow";
  opt.flow = r.method != "dense" && r.method != "exact";
  opt.exact = r.method == "exact";
  opt.exact_if_generic = r.method == "both";  // as for one pattern: exact for seeded weights
  if (r.method == "dense" && s.n > opt.numeric_limit)
    throw UsageError("rank --method dense on a stack multiplies dense n x n operators: n must be <= " +
                     std::to_string(opt.numeric_limit) + " (use --method flow)");
  if (r.method != "both") params["method"] = r.method;
  // in-process (Python): progress after each cut, and a stop at the next cut (the step hook may throw)
  const CutProgressHook per_cut = [](const std::string& what, std::uint64_t done, std::uint64_t total) {
    cli::step(what, done, total);
  };
  const auto res = [&] {
    const CutProgressScope scope(cli::step_hook() ? &per_cut : nullptr);
    return stack_cut_ranks(s, opt);
  }();
  const Format fmt = r.common.fmt();
  if (fmt == Format::Json) {
    auto j = stack_json("rank", params, s);
    j["layers"] = layer_names(s);
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
    print_json(std::cout, j);
    return 0;
  }
  Table t({"cut", "rank_numeric", "rank_flow"});
  const std::string missing = fmt == Format::Csv ? "" : kMissingText;  // a method not run
  for (std::size_t c = 0; c < res.cuts.size(); ++c)
    t.add({std::to_string(res.cuts[c]), res.numeric_done ? std::to_string(res.numeric[c]) : missing,
           res.flow_done ? std::to_string(res.flow[c]) : missing});
  if (fmt == Format::Csv) {
    t.print_csv(std::cout);
    return 0;
  }
  const bool dense_skipped = opt.numeric && !res.numeric_done;
  auto kv = stack_kv(
      s, {{"operator", "M = M_L ... M_1, M_l = (I - B_l)^{-1} A_l, layer l seeded with seed + l - 1"},
          {"numeric", res.numeric_done
                          ? (res.numeric_method == "exact" ? res.exact_rule
                                                           : "dense product, column-pivoted QR, tolerance " +
                                                                 fmt_double(res.tolerance, 3))
                          : (dense_skipped ? "skipped: n > 1024" : "not asked")},
          {"max cut rank", std::to_string(res.max_cut_rank) +
                               (res.argmax_cut ? " at K = " + std::to_string(res.argmax_cut) : "")},
          {"numeric above flow", res.numeric_above_flow.empty()
                                     ? "none"
                                     : std::to_string(res.numeric_above_flow.size()) + " cuts (a defect)"}});
  if (res.numeric_done && res.numeric_method == "exact")  // one aligned listing with the lines above
    kv.push_back({"failure bound", fmt_double(res.failure_bound, 3) +
                                       " (P(some cut below the generic rank), Schwartz-Zippel)"});
  print_kv(std::cout, kv);
  std::cout << "\n";
  t.print_text(std::cout);
  return 0;
}

}  // namespace mixgraph::cli
