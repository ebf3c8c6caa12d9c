// mixgraph::analysis::pattern_sweep (pattern_sweep.hpp).
#include "mixgraph/analysis/pattern_sweep.hpp"

#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/growth.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::analysis {

std::vector<std::uint64_t> pattern_sweep_ns(const PatternSweepQuery& q, const PatternSpec& spec) {
  if (spec.is_stack())  // the CLI's words (tools/cmd_stack.cpp refuses the same for its other options)
    throw UsageError(
        "pattern with a stack: pattern does not take --sweep (docs/cli.md, \"Stacked layers\", lists what "
        "stacks support)");
  if (spec.has_matrix()) throw UsageError("--sweep does not apply to mtx: patterns (their n is fixed)");
  const auto ns = parse_sweep(q.sweep);
  // the largest n first: a sweep that cannot finish is refused before any work
  check_pattern_memory(spec, ns.back(), q.mem_limit, "pattern " + q.pattern,
                       {.n_name = "the sweep's largest n"});
  return ns;
}

PatternSweepPoint pattern_sweep_point(const PatternSweepQuery& q, const PatternSpec& spec, std::uint64_t n) {
  const Pattern p = make_pattern_within(spec, n, q.mem_limit, "pattern " + q.pattern);
  const PatternProfile prof = cache_profile(p, ProfileOptions{q.threads, false});  // totals only
  PatternSweepPoint pt;
  pt.n = p.n;
  pt.nnz_a = prof.nnz_a;
  pt.nnz_b = prof.nnz_b;
  pt.total_decode_cost = prof.total_decode_cost;
  pt.max_decode_cost = prof.max_decode_cost;
  pt.max_cache = prof.max_cache;
  pt.max_kept_set = prof.max_kept_set;
  pt.cache_efficient = p.family == PatternFamily::CacheEfficient;
  pt.json = json::pattern_summary(p, prof, false);
  return pt;
}

PatternSweepFits pattern_sweep_fits(const std::vector<PatternSweepPoint>& points) {
  std::vector<double> xs, work, cache;
  for (const auto& pt : points) {
    xs.push_back(static_cast<double>(pt.n));
    work.push_back(static_cast<double>(pt.total_decode_cost));
    cache.push_back(static_cast<double>(pt.max_cache));
  }
  // the cache never exceeds n (|C_i| <= i): no class above O(n) for it, in either fit
  const std::vector<std::string> up_to_n = {"O(1)", "O(log n)", "O(sqrt n)", "O(n)"};
  return {fit_growth(xs, work), fit_growth(xs, cache, up_to_n), fit_power(xs, work, 2.0),
          fit_power(xs, cache, 1.0)};
}

Document pattern_sweep_document(const PatternSweepQuery& q, const std::vector<PatternSweepPoint>& points) {
  const auto f = pattern_sweep_fits(points);
  Document d;
  d.schema = d.command = "pattern";
  d.parameters = {{"pattern", q.pattern}, {"sweep", q.sweep}};
  d.body["pattern"] = q.pattern;
  d.body["sweep"] = ojson::array();
  for (const auto& pt : points) d.body["sweep"].push_back(pt.json);
  d.body["fits"] = {{"total_decode_cost", json::menu_fit(f.work)}, {"max_cache", json::menu_fit(f.cache)}};
  d.body["fits"]["total_decode_cost"]["free"] = json::power_fit(f.work_free, 2.0);
  d.body["fits"]["max_cache"]["free"] = json::power_fit(f.cache_free, 1.0);
  return d;
}

PatternSweepResult pattern_sweep(const PatternSweepQuery& q) {
  const PatternSpec spec =
      parse_pattern_spec(q.pattern, true);  // the one parse (a stack: refused with the CLI's words)
  const auto ns = pattern_sweep_ns(q, spec);
  PatternSweepResult r;
  for (std::size_t i = 0; i < ns.size(); ++i) {
    r.points.push_back(pattern_sweep_point(q, spec, ns[i]));
    if (q.progress) q.progress("pattern " + q.pattern + " n = " + std::to_string(ns[i]), i + 1, ns.size());
  }
  r.document = pattern_sweep_document(q, r.points);
  return r;
}

}  // namespace mixgraph::analysis
