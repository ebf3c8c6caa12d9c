#pragma once
// `mixgraph validate` / mixgraph.validate: the solve engine on one pattern against independent references
// (validate.hpp): CPU vs Eq. 1 vs dense Eigen [vs GPU]; (min,+) distances, reachability and path counts vs
// the graph code. Cost about that of a few dense reference solves at this n (n <= 2^22). A failed check is
// a finding (all_passed false), not an exception.
#include <cstdint>
#include <string>

#include "mixgraph/analysis/document.hpp"
#include "mixgraph/gpu_solve.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve_backend.hpp"
#include "mixgraph/validate.hpp"

namespace mixgraph::analysis {

struct ValidateQuery {
  std::string pattern;           ///< the spec
  std::string n;                 ///< tokens as text ("" for an mtx: pattern)
  std::string backend = "auto";  ///< auto (the GPU when present), cpu or gpu (GpuRequired without one)
  std::uint64_t seed = 1;        ///< seed of the weights and inputs (head h: seed + h)
  int heads = 0;                 ///< heads of the multi-head check (0: ValidateOptions' default)
  int threads = 0;
  std::uint64_t mem_limit = 0;    ///< bytes; 0: the process default
  gpu::SolveOptions gpu_options;  ///< the GPU planner's options
  /// The document's parameters naming the user's weights (weights_a, weights_b, gates, input_gates,
  /// attn_q, attn_k, attn_kernel), as the front end knows them.
  nlohmann::json weight_parameters = nlohmann::json::object();
};

/// The checked query: the backend, the pattern and the options of validate_solve. A front end with the
/// user's weights sets options.user_heads / user_dh / user_label between validate_plan and validate_run.
struct ValidatePlan {
  BackendChoice backend;
  Pattern pattern;
  ValidateOptions options;
};
/// Checks the query (UsageError naming the CLI's options; GpuRequired; MemoryLimitError) and builds the
/// pattern.
ValidatePlan validate_plan(const ValidateQuery& q);

struct ValidateRun {
  ValidateResult result;
  Document document;
};
/// Runs the checks (on the plan's backend beside the CPU when it is the GPU).
ValidateRun validate_run(const ValidateQuery& q, const ValidatePlan& plan);

}  // namespace mixgraph::analysis
