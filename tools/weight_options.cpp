// The weight-file options shared by solve and validate (weight_options.hpp).
#include "weight_options.hpp"

#include <string>

#include "mixgraph/error.hpp"
#include "option_types.hpp"

namespace mixgraph::cli {

void add_weight_options(CLI::App& app, WeightFiles& f) {
  app.add_option("--weights-a", f.a,
                 "A's weights from a .npy: (heads, offsets) one per offset (translation-invariant "
                 "patterns) or (heads, nnz_A) per position in CSR order (docs/formats.md); default seeded")
      ->type_name(type::kFile);
  app.add_option("--weights-b", f.b, "B's weights from a .npy, laid out as --weights-a's")
      ->type_name(type::kFile);
  app.add_option("--gates", f.gates,
                 "ssm: per-channel gates beta_{i,i-1} from a .npy (n, d); every column its own head")
      ->type_name(type::kFile);
  app.add_option("--input-gates", f.input_gates,
                 "ssm with --gates: per-channel diagonal of A from a .npy (n, d) (default 1)")
      ->type_name(type::kFile);
}

int heads_for_weights(const WeightFiles& f, int heads, std::size_t d) {
  if (!f.gates.empty() || !f.input_gates.empty()) {  // per-channel gates: a head per column
    if (heads != 1 && std::size_t(heads) != d)
      throw UsageError("--gates make every column its own head: --heads must be " + std::to_string(d) +
                       " (X's columns) or left out");
    if (d > 0x7fffffffULL) throw UsageError("--gates: too many columns");
    heads = static_cast<int>(d);
  }
  if (d % std::size_t(heads) != 0)
    throw UsageError("X has " + std::to_string(d) + " columns, not a multiple of --heads " +
                     std::to_string(heads));
  return heads;
}

}  // namespace mixgraph::cli
