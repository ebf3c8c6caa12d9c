// The analyses of mixgraph::analysis called directly (analysis/): mixgraph.validate, verify, pattern_sweep,
// congestion_sweep, loglinear, ssm_rank and heads_rank. Each builds its query from the (already checked)
// arguments of python/mixgraph/_commands.py, runs it on a worker thread (GIL released; progress and Ctrl-C
// as interrupt.hpp describes) and returns its JSON document as Python objects: the header fields and the
// body, exactly the CLI's --format json output.
#include <omp.h>
#include <pybind11/stl.h>

#include <memory>

#include "analysis_call.hpp"
#include "common.hpp"
#include "interrupt.hpp"
#include "json_py.hpp"
#include "mixgraph/analysis/congestion_sweep.hpp"
#include "mixgraph/analysis/gpu_options_env.hpp"
#include "mixgraph/analysis/interaction_ranks.hpp"
#include "mixgraph/analysis/pattern_sweep.hpp"
#include "mixgraph/analysis/validate.hpp"
#include "mixgraph/analysis/verify.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/sweep.hpp"
#include "mixgraph/weight_files.hpp"
#include "solve_weights.hpp"

namespace mixgraph::py {
namespace {

/// The common options, checked here and applied on the worker thread by run_analysis (analysis_call.hpp: the
/// memory limit the default of every check, file readers included; threads > 0 the OpenMP team size).
struct Common {
  int threads = 0;
  std::uint64_t mem_limit = 0;
};

Common common_from(int threads, const pb::object& mem) {
  check_threads(threads);
  return Common{threads, mem_limit_from(mem)};  // (run_analysis checks a process limit first)
}

/// Runs `make(job)` (returning a Document) on a worker thread; the document as Python objects.
template <class Make>
pb::object run_document(const Common& c, const pb::object& progress, Make make) {
  auto doc = std::make_shared<analysis::Document>();
  run_analysis(c.threads, c.mem_limit, progress, -1, [doc, make](Job& job) { *doc = make(job); });
  return json_to_py(doc->json("json"));
}

/// The job's progress as an analysis::Progress (a step may throw Interrupted: the query stops there).
analysis::Progress steps(Job& job) {
  return [&job](const std::string& what, std::uint64_t done, std::uint64_t total) {
    job.step(what, done, total);
  };
}

pb::object verify(std::vector<std::string> claims, std::vector<std::string> patterns, std::string n_max,
                  int threads, const pb::object& mem, const pb::object& progress) {
  const Common c = common_from(threads, mem);
  analysis::VerifyQuery q{std::move(claims), std::move(patterns), std::move(n_max), threads, {}};
  return run_document(c, progress, [q](Job& job) {
    auto r = q;  // this run's progress
    r.progress = steps(job);
    return analysis::verify(r).document;
  });
}

pb::object pattern_sweep(std::string pattern, std::string sweep, int threads, const pb::object& mem,
                         const pb::object& progress) {
  const Common c = common_from(threads, mem);
  analysis::PatternSweepQuery q{std::move(pattern), std::move(sweep), threads, c.mem_limit, {}};
  return run_document(c, progress, [q](Job& job) {
    auto r = q;  // this run's progress
    r.progress = steps(job);
    return analysis::pattern_sweep(r).document;
  });
}

pb::object congestion_sweep(std::vector<std::string> patterns, std::string sweep, std::string routing,
                            bool lp, std::uint64_t seed, int threads, const pb::object& mem,
                            const pb::object& progress) {
  const Common c = common_from(threads, mem);
  analysis::CongestionQuery q;
  q.patterns = std::move(patterns);
  q.sweep = std::move(sweep);
  q.routing = std::move(routing);
  q.lp = lp;
  q.seed = seed;
  q.mem_limit = c.mem_limit;
  return run_document(c, progress, [q](Job& job) {
    auto r = q;  // this run's progress
    r.progress = steps(job);
    return analysis::congestion_table(r).document;
  });
}

pb::object loglinear(std::string T, std::uint64_t seed, std::string numeric_limit, std::string pattern,
                     int threads, const pb::object& mem) {
  const Common c = common_from(threads, mem);
  analysis::LogLinearQuery q{std::move(T), seed, parse_count(numeric_limit, "--numeric-limit"),
                             std::move(pattern), c.mem_limit};
  return run_document(c, pb::none(), [q](Job&) { return analysis::loglinear(q).document; });
}

pb::object ssm_rank(std::string n, std::string state, std::string p, std::string d, std::string matrices,
                    std::string example, std::uint64_t seed, double tol, int threads, const pb::object& mem) {
  const Common c = common_from(threads, mem);
  analysis::SsmQuery q{std::move(n),        std::move(state),   std::move(p), std::move(d),
                       std::move(matrices), std::move(example), seed,         tol,
                       c.mem_limit};
  return run_document(c, pb::none(), [q](Job&) { return analysis::ssm_rank(q).document; });
}

pb::object heads_rank(std::vector<std::string> patterns, std::string n, std::string p, std::string d,
                      std::uint64_t seed, double tol, int threads, const pb::object& mem) {
  const Common c = common_from(threads, mem);
  analysis::HeadsQuery q{std::move(patterns), std::move(n), std::move(p), std::move(d), seed, tol,
                         c.mem_limit};
  return run_document(c, pb::none(), [q](Job&) { return analysis::heads_rank(q).document; });
}

pb::list claim_ids() {
  pb::list l;
  for (const auto& c : registered_claims()) l.append(c.id);
  return l;
}

/// A weight argument's parameter in the document: the path as given, "(array)" for an array.
void weight_parameter(nlohmann::json& params, const char* name, const pb::object& v) {
  if (!v.is_none())
    params[name] = pb::isinstance<pb::str>(v) ? v.cast<std::string>() : std::string("(array)");
}

pb::object validate(std::string pattern, std::string n, std::string backend, std::uint64_t seed, int heads,
                    int threads, const pb::object& mem, const UserWeights& u) {
  const Common c = common_from(threads, mem);
  auto q = std::make_shared<analysis::ValidateQuery>();
  q->pattern = std::move(pattern);
  q->n = std::move(n);
  q->backend = std::move(backend);
  q->seed = seed;
  q->heads = heads;
  q->threads = threads;
  q->mem_limit = c.mem_limit;
  q->gpu_options = gpu_options_from_env();
  weight_parameter(q->weight_parameters, "weights_a", u.a);
  weight_parameter(q->weight_parameters, "weights_b", u.b);
  weight_parameter(q->weight_parameters, "gates", u.gates);
  weight_parameter(q->weight_parameters, "input_gates", u.input_gates);
  if (!u.q.is_none() || !u.k.is_none()) {
    weight_parameter(q->weight_parameters, "attn_q", u.q);
    weight_parameter(q->weight_parameters, "attn_k", u.k);
    q->weight_parameters["attn_kernel"] = u.kernel;
  }
  auto plan = std::make_shared<analysis::ValidatePlan>();
  auto doc = std::make_shared<analysis::Document>();
  if (!u.any()) {  // one worker thread (and one OpenMP team) for the whole call
    run_analysis(c.threads, c.mem_limit, pb::none(), -1, [q, plan, doc](Job&) {
      *plan = analysis::validate_plan(*q);
      *doc = analysis::validate_run(*q, *plan).document;
    });
    return json_to_py(doc->json("json"));
  }
  run_analysis(c.threads, c.mem_limit, pb::none(), -1,
               [q, plan](Job&) { *plan = analysis::validate_plan(*q); });
  // the user's weights replace the seeded ones in every (+, x) check and its references; arrays are read
  // here, with the GIL held
  const Pattern& p = plan->pattern;
  ValidateOptions& vo = plan->options;
  const bool gated = !u.gates.is_none() || !u.input_gates.is_none();
  if (gated && heads == 0)
    throw UsageError("gates / input_gates: give heads=D, the gates' columns (one head per channel)");
  const std::size_t dh = gated ? 1 : vo.d_h;
  const int h_count = user_weight_heads(u, vo.heads, std::size_t(vo.heads) * dh);
  check_memory(sat_mul(mixer_weights_bytes(p, h_count, 8), 3), c.mem_limit,
               "validate weights for " + q->pattern + " at n = " + std::to_string(p.n));
  const auto w = user_weights<double>(p, h_count, seed, u, c.mem_limit);
  for (int h = 0; h < h_count; ++h) vo.user_heads.push_back(head_weights(*w, h));
  vo.user_dh = dh;
  vo.user_label =
      (!u.q.is_none() || !u.k.is_none()) ? "heads, attention weights" : "heads, weights from files";
  run_analysis(c.threads, c.mem_limit, pb::none(), -1,
               [q, plan, doc](Job&) { *doc = analysis::validate_run(*q, *plan).document; });
  return json_to_py(doc->json("json"));
}

}  // namespace

void bind_analysis(pb::module_& m) {
  using pb::arg;
  m.def("_verify", &verify, arg("claims"), arg("patterns"), arg("n_max"), arg("threads"), arg("mem_limit"),
        arg("progress"), "mixgraph verify's JSON document (analysis::verify).");
  m.def("_claim_ids", &claim_ids, "The ids of the registered claims, in the CLI's order.");
  m.def("_pattern_sweep", &pattern_sweep, arg("pattern"), arg("sweep"), arg("threads"), arg("mem_limit"),
        arg("progress"), "mixgraph pattern --sweep's JSON document (analysis::pattern_sweep).");
  m.def("_congestion_sweep", &congestion_sweep, arg("patterns"), arg("sweep"), arg("routing"), arg("lp"),
        arg("seed"), arg("threads"), arg("mem_limit"), arg("progress"),
        "mixgraph congestion --sweep's JSON document (analysis::congestion_table).");
  m.def("_loglinear", &loglinear, arg("T"), arg("seed"), arg("numeric_limit"), arg("pattern"), arg("threads"),
        arg("mem_limit"), "mixgraph rank loglinear's JSON document (analysis::loglinear).");
  m.def("_ssm_rank", &ssm_rank, arg("n"), arg("state"), arg("p"), arg("d"), arg("matrices"), arg("example"),
        arg("seed"), arg("tol"), arg("threads"), arg("mem_limit"),
        "mixgraph rank ssm's JSON document (analysis::ssm_rank).");
  m.def("_heads_rank", &heads_rank, arg("patterns"), arg("n"), arg("p"), arg("d"), arg("seed"), arg("tol"),
        arg("threads"), arg("mem_limit"), "mixgraph rank heads's JSON document (analysis::heads_rank).");
  m.def(
      "_validate",
      [](std::string pattern, std::string n, std::string backend, std::uint64_t seed, int heads, int threads,
         const pb::object& mem, const pb::object& a, const pb::object& b, const pb::object& gates,
         const pb::object& input_gates, const pb::object& q, const pb::object& k, std::string kernel) {
        UserWeights u;
        u.a = a;
        u.b = b;
        u.gates = gates;
        u.input_gates = input_gates;
        u.q = q;
        u.k = k;
        u.kernel = std::move(kernel);
        return validate(std::move(pattern), std::move(n), std::move(backend), seed, heads, threads, mem, u);
      },
      arg("pattern"), arg("n"), arg("backend"), arg("seed"), arg("heads"), arg("threads"), arg("mem_limit"),
      arg("weights_a"), arg("weights_b"), arg("gates"), arg("input_gates"), arg("attn_q"), arg("attn_k"),
      arg("attn_kernel"), "mixgraph validate's JSON document (analysis::validate_plan, validate_run).");
}

}  // namespace mixgraph::py
