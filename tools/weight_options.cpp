// The weight-file options shared by solve and validate (weight_options.hpp).
#include "weight_options.hpp"

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

}  // namespace mixgraph::cli
