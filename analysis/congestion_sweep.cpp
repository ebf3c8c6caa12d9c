// mixgraph::analysis::congestion_table (congestion_sweep.hpp).
#include "mixgraph/analysis/congestion_sweep.hpp"

#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::analysis {

CongestionPlan congestion_plan(const CongestionQuery& q) {
  CongestionPlan plan;
  auto& co = plan.options;
  co.seed = q.seed;
  co.lp = q.lp;
  co.mem_limit = q.mem_limit;
  if (!q.routing.empty() && !select_routings(co, q.routing))
    throw UsageError("--routing must be shift, random, minmax or all (got '" + q.routing + "')");
  for (const auto& pat : q.patterns) plan.trees.push_back(parse_pattern_spec(pat, false));
  if (!q.sweep.empty()) {
    if (!q.copy_length.empty())
      throw UsageError("give --copy-length (one copy length) or --sweep (several), not both");
    plan.ns = parse_sweep(q.sweep);
    // the largest N first: a sweep that cannot finish is refused before any work
    if (plan.ns.back() > 0x7fffffffULL)
      throw UsageError("--sweep: the copy length N = " + std::to_string(plan.ns.back()) +
                       " must be below 2^31 (the pattern has 2N tokens)");
    for (std::size_t k = 0; k < plan.trees.size(); ++k)
      if (!plan.trees[k].has_matrix())
        check_pattern_memory(plan.trees[k], 2 * plan.ns.back(), q.mem_limit, "pattern " + q.patterns[k],
                             {.n_name = "the sweep's largest 2N"});
  } else if (!q.copy_length.empty()) {
    plan.ns = {parse_count(q.copy_length, "--copy-length")};
  } else {
    bool all_mtx = true;
    for (const auto& tree : plan.trees) all_mtx = all_mtx && tree.has_matrix();
    if (!all_mtx)
      throw UsageError(
          "--copy-length N (-N) is required (the pattern is taken on 2N tokens), or give --sweep");
    plan.ns = {0};  // mtx: N = n / 2 from the file
  }
  for (auto n : plan.ns)
    if (n < 1 && !q.copy_length.empty()) throw UsageError("--copy-length (the copy length N) must be >= 1");
  plan.single = plan.ns.size() == 1 && q.patterns.size() == 1;
  if (q.keep_paths) {
    if (!plan.single)
      throw UsageError("--output writes one routing: give one --pattern and one --copy-length (no --sweep)");
    co.keep_paths = true;
  }
  return plan;
}

CongestionResult congestion_row_result(const CongestionQuery& q, const CongestionPlan& plan, std::size_t k,
                                       std::uint64_t N) {
  CongestionResult r = analyse_congestion(plan.trees[k], N, plan.options);
  r.pattern = q.patterns[k];
  return r;
}

nlohmann::json congestion_parameters(const CongestionQuery& q, const CongestionPlan& plan) {
  nlohmann::json params = {
      {"pattern", q.patterns.size() == 1 ? nlohmann::json(q.patterns[0]) : nlohmann::json(q.patterns)},
      {"routing", q.routing.empty() ? "default" : q.routing},
      {"lp", q.lp},
      {"seed", q.seed}};
  if (q.sweep.empty() && plan.ns[0] > 0)
    params["n"] = plan.ns[0];
  else
    params["sweep"] = q.sweep;
  return params;
}

Document congestion_rows_document(const CongestionQuery& q, const CongestionPlan& plan,
                                  std::vector<ojson> rows) {
  Document d;
  d.schema = d.command = "congestion";
  d.parameters = congestion_parameters(q, plan);
  d.body["rows"] = ojson::array();
  for (auto& r : rows) d.body["rows"].push_back(std::move(r));
  return d;
}

Document congestion_single_document(const CongestionQuery& q, const CongestionPlan& plan,
                                    const CongestionResult& r, const std::vector<CongestionResult>& heads) {
  Document d;
  d.schema = d.command = "congestion";
  d.parameters = congestion_parameters(q, plan);
  d.body = json::congestion(r, true);
  if (!heads.empty()) {
    d.body["heads"] = ojson::array();
    for (const auto& h : heads) d.body["heads"].push_back(json::congestion(h, false));
  }
  return d;
}

CongestionTable congestion_table(const CongestionQuery& q) {
  CongestionTable t;
  t.plan = congestion_plan(q);
  const auto& plan = t.plan;
  const std::size_t total = q.patterns.size() * plan.ns.size();
  for (std::size_t k = 0; k < q.patterns.size(); ++k)
    for (auto n : plan.ns) {
      t.rows.push_back(congestion_row_result(q, plan, k, n));
      if (q.progress)
        q.progress("congestion " + q.patterns[k] + " N = " + std::to_string(n), t.rows.size(), total);
    }
  if (plan.single) {
    // heads:P1;P2;...: the combined mixer (the union, above) and each head's pattern alone
    if (plan.trees[0].kind == SpecKind::Heads && plan.ns[0] > 0)
      for (const auto& head : plan.trees[0].parts)
        t.heads.push_back(analyse_congestion(head, plan.ns[0], plan.options));
    t.document = congestion_single_document(q, plan, t.rows[0], t.heads);
  } else {
    std::vector<ojson> rows;
    for (const auto& r : t.rows) rows.push_back(json::congestion(r, false));
    t.document = congestion_rows_document(q, plan, std::move(rows));
  }
  return t;
}

}  // namespace mixgraph::analysis
