#pragma once
// The rules of the user's weights (weight files or arrays: A, B, gates, input gates) that both front ends
// apply: the CLI's --weights-a / --weights-b / --gates / --input-gates (tools/weight_options.hpp registers
// them) and the Python package's solve(weights_a=..., gates=...).
#include <cstddef>
#include <string>

#include "mixgraph/weight_files.hpp"

namespace mixgraph::analysis {

/// How a front end names the options in its messages: the CLI's flags (the default) or Python's arguments.
struct WeightOptionNames {
  std::string gates = "--gates";
  std::string input_gates = "--input-gates";
  std::string weights_a = "--weights-a";
  std::string weights_b = "--weights-b";
  std::string attn_q = "--attn-q";
  std::string attn_k = "--attn-k";
  std::string attn_kernel = "--attn-kernel";
  std::string heads = "--heads";
  std::string heads_value = " ";  ///< between the heads option and its value: "--heads 4", "heads = 4"
};

/// Python's names: `gates=`, `attn_q=`, `heads=`, ...
WeightOptionNames python_weight_option_names();

/// The heads a run has: `heads` as given, or d with gates (every column its own head). Throws UsageError
/// when the gates and the heads disagree or d is not a multiple of the heads, naming the options as `names`
/// does. O(1).
int heads_for_weights(const WeightFiles& f, int heads, std::size_t d, const WeightOptionNames& names = {});

}  // namespace mixgraph::analysis
