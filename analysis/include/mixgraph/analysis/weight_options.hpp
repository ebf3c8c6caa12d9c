#pragma once
// The rules of the user's weights (weight files or arrays: A, B, gates, input gates) that both front ends
// apply: the CLI's --weights-a / --weights-b / --gates / --input-gates (tools/weight_options.hpp registers
// them) and the Python package's solve(weights_a=..., gates=...).
#include <cstddef>

#include "mixgraph/weight_files.hpp"

namespace mixgraph::analysis {

/// The heads a run has: `heads` as given, or d with gates (every column its own head). Throws UsageError
/// when the gates and --heads disagree or d is not a multiple of the heads. O(1).
int heads_for_weights(const WeightFiles& f, int heads, std::size_t d);

}  // namespace mixgraph::analysis
