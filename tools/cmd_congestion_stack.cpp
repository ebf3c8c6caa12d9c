// `mixgraph congestion -p stack:...`: copy-task routings and congestion bounds on the stacked graph
// (docs/math.md §3, "Copy task across layers").
#include "cmd_congestion_stack.hpp"

#include <iostream>

#include "cmd_stack.hpp"
#include "congestion_text.hpp"
#include "mixgraph/analysis/stack.hpp"
#include "mixgraph/atomic_file.hpp"

namespace mixgraph::cli {

namespace {

void write_stack_paths(const std::string& file, const StackCongestionResult& sr, const std::string& which) {
  const auto& r = sr.base;
  const std::size_t k = paths_routing_index(r, which);
  write_file_atomic(file, [&](std::ostream& os) {
    if (k == r.routings.size()) return;  // copy impossible: no paths
    const StackRouting& ro = sr.paths[k];
    for (pos_t i = 0; i < r.N; ++i) {
      std::uint64_t hops = 0;
      for (auto e = ro.ptr[i] + 1; e < ro.ptr[i + 1]; ++e) hops += ro.nodes[e] != ro.nodes[e - 1];
      os << "{\"routing\":\"" << ro.name << "\",\"input\":" << i + 1 << ",\"output\":" << i + r.N + 1
         << ",\"hops\":" << hops << ",\"path\":[";
      for (auto e = ro.ptr[i]; e < ro.ptr[i + 1]; ++e) os << (e > ro.ptr[i] ? "," : "") << ro.nodes[e] + 1;
      os << "],\"layers\":[";
      for (auto e = ro.ptr[i]; e < ro.ptr[i + 1]; ++e) os << (e > ro.ptr[i] ? "," : "") << ro.copies[e];
      os << "]}\n";
    }
  });
}

}  // namespace

int run_stack_congestion(const StackCongestionRequest& q) {
  refuse_stack_options(q.unsupported, "congestion",
                       "one stack and one --copy-length; docs/cli.md, \"Stacked layers\"");
  q.common.apply();
  const Format fmt = q.common.fmt();
  analysis::StackCongestionQuery aq{
      q.spec, q.n_text, q.routing, q.seed, q.lp, !q.paths_file.empty(), q.common.mem_limit_bytes()};
  const auto sr = analysis::stack_congestion(aq);  // CLI11 checked the routing's name
  const auto& r = sr.base;
  if (!q.paths_file.empty()) {
    const std::string which = (q.routing.empty() || q.routing == "all") ? r.best_routing : q.routing;
    write_stack_paths(q.paths_file, sr, which);
  }
  if (fmt == Format::Json) {
    print_json(std::cout, analysis::stack_congestion_document(aq, sr, q.common.format, q.paths_file));
    return 0;
  }
  if (fmt == Format::Csv) {
    Table t(congestion_row_header({"depth"}));
    t.add(congestion_row(r, {std::to_string(sr.layer_specs.size())}));
    t.print_csv(std::cout);
    return 0;
  }
  std::vector<std::pair<std::string, std::string>> kv = {
      {"pattern", r.pattern},
      {"depth (layers)", std::to_string(sr.layer_specs.size())},
      {"copy length N",
       std::to_string(r.N) + " (the stack on 2N = " + std::to_string(2ULL * r.N) + " tokens)"},
      {"translation-invariant", r.translation_invariant ? "yes (every layer)" : "no"}};
  if (!r.copy_possible) {
    kv.push_back({"copy possible", "NO (" + std::to_string(r.impossible_inputs.size()) + " of " +
                                       std::to_string(r.N) + " inputs)"});
    kv.push_back({"why", r.impossible_reason});
    print_kv(std::cout, kv);
    return 0;
  }
  kv.push_back({"copy possible", "yes"});
  kv.push_back({"copy distance d", std::to_string(r.copy_distance) + " (max_i d_L(i+N, i); min " +
                                       std::to_string(r.min_distance) + ")"});
  add_bound_lines(kv, r,
                  {"shift bound (prop48)", r.prop48_bound ? std::to_string(*r.prop48_bound)
                                                          : "- (not every layer translation-invariant)"});
  print_kv(std::cout, kv);
  print_routings(std::cout, r);
  return 0;
}

}  // namespace mixgraph::cli
