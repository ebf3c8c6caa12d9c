// mixgraph validate: the solve engine against independent references, as a pass/fail table (validate.hpp).
#include <iostream>

#include "mixgraph/analysis/gpu_options_env.hpp"
#include "mixgraph/analysis/validate.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve_backend.hpp"
#include "mixgraph/validate.hpp"
#include "mixgraph/weight_files.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "registry.hpp"
#include "solve_attention.hpp"
#include "weight_options.hpp"

namespace mixgraph::cli {
namespace {

struct ValidateCliOptions {
  CommonOptions common;
  std::string pattern;
  std::string n_text;
  std::string backend = "auto";
  std::uint64_t seed = 1;
  int heads = 0;          // 0: the default (2 heads of 4 columns)
  WeightFiles weights;    // --weights-a, --weights-b, --gates, --input-gates (solve's options)
  AttentionOptions attn;  // --attn-q, --attn-k, --attn-kernel (solve's options)
};

int run_validate(const ValidateCliOptions& o) {
  o.common.apply();
  analysis::ValidateQuery q;
  q.pattern = o.pattern;
  q.n = o.n_text;
  q.backend = o.backend;
  q.seed = o.seed;
  q.heads = o.heads;
  q.threads = o.common.threads;
  q.mem_limit = o.common.mem_limit_bytes();
  q.gpu_options = gpu_options_from_env();
  if (!o.weights.a.empty()) q.weight_parameters["weights_a"] = o.weights.a;
  if (!o.weights.b.empty()) q.weight_parameters["weights_b"] = o.weights.b;
  if (!o.weights.gates.empty()) q.weight_parameters["gates"] = o.weights.gates;
  if (!o.weights.input_gates.empty()) q.weight_parameters["input_gates"] = o.weights.input_gates;
  if (o.attn.given()) {
    q.weight_parameters["attn_q"] = o.attn.q;
    q.weight_parameters["attn_k"] = o.attn.k;
    q.weight_parameters["attn_kernel"] = o.attn.kernel;
  }
  analysis::ValidatePlan plan = analysis::validate_plan(q);
  const Pattern& p = plan.pattern;
  ValidateOptions& vo = plan.options;
  check_solve_attention(o.attn, o.weights);
  if (o.weights.any() || o.attn.given()) {
    // the user's weights replace the seeded ones in every (+, x) check and its references
    const bool gated = !o.weights.gates.empty() || !o.weights.input_gates.empty();
    if (gated && o.heads == 0)
      throw UsageError("--gates / --input-gates: give --heads D, the gates' columns (one head per channel)");
    const std::size_t dh = gated ? 1 : vo.d_h;
    const int heads = heads_for_weights(o.weights, vo.heads, std::size_t(vo.heads) * dh);
    check_memory(sat_mul(mixer_weights_bytes(p, heads, 8), 3), o.common.mem_limit_bytes(),
                 "validate weights for " + o.pattern + " at n = " + std::to_string(p.n));
    const MixerWeights<double> w =
        o.attn.given()
            ? solve_attention_weights<double>(p, heads, o.seed, o.attn, o.weights, o.common.mem_limit_bytes())
            : weights_from_files<double>(p, heads, o.seed, o.weights, o.common.mem_limit_bytes());
    for (int h = 0; h < heads; ++h) vo.user_heads.push_back(head_weights(w, h));
    vo.user_dh = dh;
    vo.user_label = o.attn.given() ? "heads, attention weights" : "heads, weights from files";
  }
  const auto run = analysis::validate_run(q, plan);
  const ValidateResult& r = run.result;
  const BackendChoice& be = plan.backend;
  if (o.common.fmt() == Format::Json) {
    print_json(std::cout, run.document.json(o.common.format));
  } else {
    Table t({"check", "result", "detail"});
    for (const auto& c : r.checks) t.add({c.name, c.passed ? "pass" : "FAIL", c.detail});
    if (o.common.fmt() == Format::Csv) {
      Table csv({"check", "result", "detail", "passed"});  // `result` (pass/FAIL) kept for old readers
      for (const auto& c : r.checks)
        csv.add({c.name, c.passed ? "pass" : "FAIL", c.detail, bool_cell(c.passed)});
      csv.print_csv(std::cout);
    } else {
      std::cout << "pattern " << p.spec << ", n = " << p.n << " (" << to_string(p.family) << ")\n";
      std::cout << "backend " << be.name << " (" << be.reason << ")\n";
      std::string ks;
      for (const auto& k : r.kernels) ks += (ks.empty() ? "" : ", ") + k;
      std::cout << "kernels " << ks << "\n\n";
      t.print_text(std::cout);
      std::cout << "\n" << (r.all_passed ? "all checks passed" : "SOME CHECKS FAILED") << "\n";
    }
  }
  return r.all_passed ? 0 : static_cast<int>(ExitCode::Runtime);
}

Registrar reg_cmd_validate(
    "validate",
    "Check the solve engine: CPU vs Eq. 1 vs dense Eigen [vs GPU]; (min,+) distances, reachability and "
    "path counts vs the graph code",
    60, [](CLI::App& app) -> std::function<int()> {
      auto o = std::make_shared<ValidateCliOptions>();
      app.add_option("--pattern,-p", o->pattern, "Pattern spec: " + pattern_name_help())
          ->required()
          ->check(pattern_spec())
          ->type_name(type::kSpec);
      add_count_option(app, "--n,-n", o->n_text,
                       "Number of tokens; accepts 4096, 2^12, 1e4. Not needed for mtx:");
      app.add_option("--backend", o->backend,
                     "auto (the GPU when present), cpu, or gpu (exit 4 when no GPU is usable)")
          ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
      add_seed_option(app, o->seed, "Seed of the random weights and inputs (head h uses seed + h)");
      app.add_option("--heads", o->heads,
                     "Heads H of the multi-head check (default 2, of 4 columns each); with --gates the "
                     "gates' columns (one head per channel)")
          ->transform(checked_count())
          ->type_name(type::kCount);
      add_weight_options(app, o->weights);
      add_solve_attention_options(app, o->attn);
      add_common_options(app, o->common);
      return [o] { return run_validate(*o); };
    });

}  // namespace
}  // namespace mixgraph::cli
