// mixgraph::analysis::validate_plan / validate_run (validate.hpp).
#include "mixgraph/analysis/validate.hpp"

#include "mixgraph/error.hpp"
#include "mixgraph/semiring_backend.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::analysis {

ValidatePlan validate_plan(const ValidateQuery& q) {
  const BackendChoice be = choose_backend(parse_backend(q.backend));
  const PatternSpec spec = parse_pattern_spec(q.pattern, false);  // the one parse: estimate and build
  const bool is_mtx = spec.has_matrix();
  std::uint64_t n = 0;
  if (!q.n.empty())
    n = parse_count(q.n, "--n");
  else if (!is_mtx)
    throw UsageError("--n is required (the number of tokens)");
  if (!is_mtx && n < 1) throw UsageError("--n must be >= 1");
  if (n > (1ULL << 22)) throw UsageError("--n: validate runs reference solves; use n <= 4194304 (2^22)");
  ValidatePlan plan{
      be, make_pattern_within(spec, n, q.mem_limit, "validate " + q.pattern, {.copies = 6}), {}};
  plan.options.threads = q.threads;
  plan.options.seed = q.seed;
  if (q.heads < 0) throw UsageError("--heads must be >= 1");
  if (q.heads > 0) plan.options.heads = q.heads;
  return plan;
}

ValidateRun validate_run(const ValidateQuery& q, const ValidatePlan& plan) {
  ValidateOptions vo = plan.options;
  const BackendChoice& be = plan.backend;
  const gpu::SolveOptions& gpu_options = q.gpu_options;
  if (be.gpu) {
    vo.other_name = "gpu";
    vo.other_f32 = [&](const MixerWeights<float>& w, const float* x, float* y, std::size_t d) {
      return solve_on(be, w, x, y, d, 0, gpu_options).kernel;
    };
    vo.other_f64 = [&](const MixerWeights<double>& w, const double* x, double* y, std::size_t d) {
      return solve_on(be, w, x, y, d, 0, gpu_options).kernel;
    };
    vo.other_distances = [&](const SolveStructure& s, const std::vector<pos_t>& src,
                             std::vector<std::uint32_t>& out) {
      auto run = distances_on(be, s, src);
      out = std::move(run.dist);
      return run.kernel;
    };
    vo.other_reachability = [&](const SolveStructure& s, const std::vector<pos_t>& src,
                                std::vector<std::uint8_t>& out) {
      auto run = reachability_on(be, s, src);
      out = std::move(run.reach);
      return run.kernel;
    };
    vo.other_path_counts = [&](const SolveStructure& s, const std::vector<pos_t>& src, PathCounts& out) {
      auto run = path_counts_on(be, s, src);
      out = std::move(run.counts);
      return run.kernel;
    };
  }
  const Pattern& p = plan.pattern;
  ValidateRun res{validate_solve(p, vo), {}};
  const ValidateResult& r = res.result;
  auto& d = res.document;
  d.schema = d.command = "validate";
  d.parameters = {{"pattern", q.pattern}, {"n", p.n}, {"backend", q.backend}, {"seed", q.seed}};
  if (q.heads > 0) d.parameters["heads"] = q.heads;
  for (auto it = q.weight_parameters.begin(); it != q.weight_parameters.end(); ++it)
    d.parameters[it.key()] = it.value();
  auto& j = d.body;
  j["pattern"] = p.spec;
  j["n"] = p.n;
  j["family"] = to_string(p.family);
  j["backend"] = be.name;
  j["backend_reason"] = be.reason;
  j["kernels"] = r.kernels;
  j["sources"] = r.sources;
  j["all_sources"] = r.all_sources;
  j["checks"] = ojson::array();
  for (const auto& c : r.checks)
    j["checks"].push_back({{"name", c.name}, {"passed", c.passed}, {"detail", c.detail}});
  j["all_passed"] = r.all_passed;
  return res;
}

}  // namespace mixgraph::analysis
