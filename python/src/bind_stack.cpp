// mixgraph._core._stack_*: the stack queries (analysis/stack.hpp) called directly, each returning the
// document of the CLI's `--format json` for a stack:P1,P2,... spec (python/mixgraph/_stack.py).
#include <memory>

#include "analysis_call.hpp"
#include "mixgraph/analysis/option_checks.hpp"
#include "mixgraph/analysis/stack.hpp"

namespace mixgraph::py {
namespace {

/// The spec and n as the CLI's --pattern and --n options check them; threads and mem_limit as text ("" when
/// not given).
analysis::StackQuery stack_query(const std::string& spec, const std::string& n, const std::string& threads,
                                 const std::string& mem_limit) {
  cli_pattern_spec(spec, "--pattern");
  cli_count_text(n, "--n");
  return {spec, n, cli_threads(threads.empty() ? "0" : threads), cli_mem_limit(mem_limit)};
}

/// Runs query(q) on the worker thread and returns document(q, result, "json") as Python objects.
template <class Query, class Run, class Document>
pb::object run_document(const Query& q, Run run, Document document, const pb::object& progress = pb::none(),
                        std::int64_t total = -1) {
  auto doc = std::make_shared<nlohmann::ordered_json>();
  run_analysis(q.threads_, q.mem_limit_, progress, total,
               [q, run, document, doc](Job& job) { *doc = document(q.query, run(q.query, job), "json"); });
  return document_to_py(*doc);
}

template <class Q>
struct Call {
  Q query;
  int threads_ = 0;
  std::uint64_t mem_limit_ = 0;
};

pb::object stack_pattern(const std::string& spec, const std::string& n, bool profile, bool summary,
                         const std::string& threads, const std::string& mem_limit) {
  Call<analysis::StackPatternQuery> c{{stack_query(spec, n, threads, mem_limit), profile, summary}};
  c.threads_ = c.query.stack.threads;
  c.mem_limit_ = c.query.stack.mem_limit;
  return run_document(
      c, [](const auto& q, Job&) { return analysis::stack_pattern(q); },
      [](const auto& q, const auto& r, const std::string& f) {
        return analysis::stack_pattern_document(q, r, f);
      });
}

pb::object stack_distances(const std::string& spec, const std::string& n, const std::string& source,
                           bool summary, const std::string& threads, const std::string& mem_limit) {
  Call<analysis::StackDistancesQuery> c{{stack_query(spec, n, threads, mem_limit), source, summary}};
  c.threads_ = c.query.stack.threads;
  c.mem_limit_ = c.query.stack.mem_limit;
  return run_document(
      c, [](const auto& q, Job&) { return analysis::stack_distances(q); },
      [](const auto& q, const auto& r, const std::string& f) {
        return analysis::stack_distances_document(q, r, f);
      });
}

/// --tol's check (the CLI's finite_range(0, 1)): "'<text>' must be in [0, 1]" and the like.
double tol_value(const std::string& text) {
  if (const std::string why = analysis::finite_range_problem(text, 0, 1); !why.empty())
    throw UsageError("--tol: " + why);
  return cli_double(text, "--tol");
}

/// --cuts' check (the CLI's position_list({"all"})): a list or a count, parsed later at the stack's n.
void cuts_check(const std::string& text) {
  if (text.empty() || text == "all") return;
  if (const std::string why = analysis::position_list_problem(text); !why.empty())
    throw UsageError("--cuts: " + why);
}

pb::object stack_rank(const std::string& spec, const std::string& n, const std::string& method,
                      const std::string& cuts, const std::string& seed, const std::string& tol,
                      const std::string& mem_limit, const pb::object& progress, std::int64_t total) {
  Call<analysis::StackRankQuery> c;
  c.query.stack = stack_query(spec, n, "", mem_limit);
  cli_member(method, {"both", "exact", "dense", "sketch", "flow"}, "--method");
  c.query.method = method;
  cuts_check(cuts);
  c.query.cuts_text = cuts;
  c.query.seed = cli_checked_count(seed, "--seed", true);
  c.query.tol = tol.empty() ? 0.0 : tol_value(tol);
  c.threads_ = c.query.stack.threads;
  c.mem_limit_ = c.query.stack.mem_limit;
  return run_document(
      c,
      [](analysis::StackRankQuery q, Job& job) {
        // progress after each cut, and a stop at the next cut (Job::step throws when asked to stop)
        q.progress = [&job](const std::string& what, std::uint64_t done, std::uint64_t all) {
          job.step(what, done, all);
        };
        return analysis::stack_rank(q);
      },
      [](const auto& q, const auto& r, const std::string& f) {
        return analysis::stack_rank_document(q, r, f);
      },
      progress, total);
}

pb::object stack_congestion(const std::string& spec, const std::string& N, const std::string& routing,
                            bool lp, const std::string& seed, const std::string& mem_limit) {
  cli_pattern_spec(spec, "--pattern");
  cli_count_text(N, "--copy-length");
  if (!routing.empty()) cli_member(routing, {"shift", "random", "minmax", "all"}, "--routing");
  Call<analysis::StackCongestionQuery> c;
  c.query = {spec, N, routing, cli_checked_count(seed, "--seed", true), lp, false, cli_mem_limit(mem_limit)};
  c.mem_limit_ = c.query.mem_limit;
  return run_document(
      c, [](const auto& q, Job&) { return analysis::stack_congestion(q); },
      [](const auto& q, const auto& r, const std::string& f) {
        return analysis::stack_congestion_document(q, r, f);
      });
}

}  // namespace

void bind_stack(pb::module_& m) {
  m.def("_stack_pattern", &stack_pattern, "`mixgraph pattern -p stack:...` as JSON (analysis/stack.hpp).");
  m.def("_stack_distances", &stack_distances, "`mixgraph distances -p stack:...` as JSON.");
  m.def("_stack_rank", &stack_rank, "`mixgraph rank -p stack:...` as JSON; progress after each cut.");
  m.def("_stack_congestion", &stack_congestion, "`mixgraph congestion -p stack:...` as JSON.");
}

}  // namespace mixgraph::py
