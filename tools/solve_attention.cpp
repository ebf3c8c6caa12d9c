// The attention options of solve (solve_attention.hpp).
#include "solve_attention.hpp"

#include <string>
#include <utility>

#include "mixgraph/attention_mixer.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/npy.hpp"
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

void check_solve_attention(const AttentionOptions& o, const WeightFiles& f) {
  if (!o.given()) return;
  if (o.q.empty() || o.k.empty()) throw UsageError("--attn-q and --attn-k go together (queries and keys)");
  if (!f.a.empty() || !f.gates.empty() || !f.input_gates.empty())
    throw UsageError(
        "--attn-q / --attn-k set A's weights: give them or --weights-a / --gates / --input-gates, not both "
        "(--weights-b combines with them)");
  attention_kernel(o);
}

template <class T>
MixerWeights<T> solve_attention_weights(const Pattern& p, int heads, std::uint64_t seed,
                                        const AttentionOptions& o, const WeightFiles& f,
                                        std::uint64_t mem_limit) {
  check_solve_attention(o, f);
  const NpyArray q = read_npy(o.q);
  const NpyArray k = read_npy(o.k);
  check_memory(attention_mixer_bytes(p, heads, sizeof(T)), mem_limit,
               "attention weights for " + p.spec + " at n = " + std::to_string(p.n));
  MixerWeights<T> w = attention_mixer_weights<T>(p, heads, q, k, attention_kernel(o), seed);
  if (!f.b.empty()) {  // B from the file, on the same structure
    WeightFiles fb;
    fb.b = f.b;
    MixerWeights<T> wb = weights_from_files<T>(p, heads, seed, fb, mem_limit);
    w.b = std::move(wb.b);
    w.b_source = wb.b_source;
  }
  return w;
}

template MixerWeights<float> solve_attention_weights<float>(const Pattern&, int, std::uint64_t,
                                                            const AttentionOptions&, const WeightFiles&,
                                                            std::uint64_t);
template MixerWeights<double> solve_attention_weights<double>(const Pattern&, int, std::uint64_t,
                                                              const AttentionOptions&, const WeightFiles&,
                                                              std::uint64_t);

}  // namespace mixgraph::cli
