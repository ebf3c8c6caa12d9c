// The attention options of solve (solve_attention.hpp).
#include "solve_attention.hpp"

#include "option_types.hpp"

namespace mixgraph::cli {

void add_solve_attention_options(CLI::App& app, AttentionOptions& o) {
  app.add_option("--attn-q", o.q,
                 "A from a real attention head: queries, a .npy of n x (H r) (row t = position t + 1; head h "
                 "takes columns h r + 1 .. (h + 1) r); with --attn-k. A = the kernel renormalised over each "
                 "row's A reads; B seeded (or --weights-b)")
      ->type_name(type::kFile);
  app.add_option("--attn-k", o.k, "Keys of the attention heads: a .npy of n x (H r) (as --attn-q)")
      ->type_name(type::kFile);
  app.add_option("--attn-kernel", o.kernel,
                 "softmax (exp(q.k/sqrt r), renormalised over the mask) or linear (elu(x)+1 feature map, "
                 "renormalised)")
      ->check(CLI::IsMember({"softmax", "linear"}))
      ->default_val("softmax");
}

}  // namespace mixgraph::cli
