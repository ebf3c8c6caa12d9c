// The heads the user's weights imply (mixgraph/analysis/weight_options.hpp).
#include "mixgraph/analysis/weight_options.hpp"

#include <string>

#include "mixgraph/error.hpp"

namespace mixgraph::analysis {

WeightOptionNames python_weight_option_names() {
  return {"gates",  "input_gates", "weights_a", "weights_b", "attn_q",
          "attn_k", "attn_kernel", "heads",     " = "};
}

int heads_for_weights(const WeightFiles& f, int heads, std::size_t d, const WeightOptionNames& names) {
  if (!f.gates.empty() || !f.input_gates.empty()) {  // per-channel gates: a head per column
    if (heads != 1 && std::size_t(heads) != d)
      throw UsageError(names.gates + " make every column its own head: " + names.heads + " must be " +
                       std::to_string(d) + " (X's columns) or left out");
    if (d > 0x7fffffffULL) throw UsageError(names.gates + ": too many columns");
    heads = static_cast<int>(d);
  }
  if (d % std::size_t(heads) != 0)
    throw UsageError("X has " + std::to_string(d) + " columns, not a multiple of " + names.heads +
                     names.heads_value + std::to_string(heads));
  return heads;
}

}  // namespace mixgraph::analysis
