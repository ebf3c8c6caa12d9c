// `stack:P1,P2,...` in mixgraph pattern, distances and rank: decode cost and cache summed over layers,
// distances across depth, cut ranks of the product operator (docs/math.md §3 "Stacked layers").
#include "cmd_stack.hpp"

#include <iostream>

#include "mixgraph/analysis/stack.hpp"
#include "mixgraph/error.hpp"

namespace mixgraph::cli {

void refuse_stack_options(const std::vector<std::string>& unsupported, const std::string& command,
                          const std::string& why) {
  if (unsupported.empty()) return;
  std::string opts;
  for (const auto& u : unsupported) opts += (opts.empty() ? "" : ", ") + u;
  throw UsageError(command + " with a stack: pattern does not take " + opts + " (" + why + ")");
}

namespace {

/// The query's stack, once `command`'s options that stacks do not take are refused, with --threads and
/// --mem-limit applied (as every command does first).
analysis::StackQuery stack_query(const StackRequest& r, const char* command) {
  refuse_stack_options(r.unsupported, command, "docs/cli.md, \"Stacked layers\", lists what stacks support");
  r.common.apply();
  return {r.spec, r.n_text, r.common.threads, r.common.mem_limit_bytes()};
}

/// The lines every stack result's table starts with: pattern, n, depth; `more` after them.
std::vector<std::pair<std::string, std::string>> stack_kv(
    const Stack& s, std::initializer_list<std::pair<std::string, std::string>> more) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"pattern", s.spec}, {"n", std::to_string(s.n)}, {"depth (layers)", std::to_string(s.depth())}};
  kv.insert(kv.end(), more.begin(), more.end());
  return kv;
}

std::string dist_cell(std::uint32_t d) {
  return d == UNREACHABLE ? "inf" : std::to_string(d);
}

/// Prints document(q, res, format) when --format is json (and says so); false for table and csv.
template <class Query, class Result, class Document>
bool printed_json(const StackRequest& r, const Query& q, const Result& res, Document document) {
  if (r.common.fmt() != Format::Json) return false;
  print_json(std::cout, document(q, res, r.common.format));
  return true;
}

}  // namespace

int run_stack_pattern(const StackRequest& r) {
  analysis::StackPatternQuery q{stack_query(r, "pattern"), r.profile, r.summary};
  const auto res = analysis::stack_pattern(q);
  if (printed_json(r, q, res, analysis::stack_pattern_document)) return 0;
  const Stack& s = res.stack;
  const auto& prof = res.profile;
  const auto& layers = res.layers;
  const Format fmt = r.common.fmt();
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
  analysis::StackDistancesQuery q{stack_query(r, "distances"), r.source_text, r.summary};
  const auto res = analysis::stack_distances(q);
  if (printed_json(r, q, res, analysis::stack_distances_document)) return 0;
  const Stack& s = res.stack;
  const Format fmt = r.common.fmt();
  if (res.source != 0) {  // final-layer distances from one input position
    const auto& d = res.from_source;
    Table t({"position", "distance"});
    for (pos_t i = 0; i < s.n; ++i) t.add({std::to_string(i + 1), dist_cell(d[i])});
    fmt == Format::Csv ? t.print_csv(std::cout) : t.print_text(std::cout);
    return 0;
  }
  const auto& sum = res.summary;
  const auto& last = sum.by_depth.back();
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
  analysis::StackRankQuery q;
  q.stack = stack_query(r, "rank");
  q.method = r.method;
  q.cuts_text = r.cuts_text;
  q.seed = r.seed;
  q.tol = r.tol;
  const auto out = analysis::stack_rank(q);
  if (printed_json(r, q, out, analysis::stack_rank_document)) return 0;
  const Stack& s = out.stack;
  const StackRankOptions& opt = out.options;
  const auto& res = out.ranks;
  const Format fmt = r.common.fmt();
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
