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
MixerWeights<T> attention_weights_from_arrays(const Pattern& p, int heads, std::uint64_t seed,
                                              const NpyArray& q, const NpyArray& k, AttentionKernel kernel,
                                              const std::optional<WeightArray>& b, std::uint64_t mem_limit) {
  check_memory(attention_mixer_bytes(p, heads, sizeof(T)), mem_limit,
               "attention weights for " + p.spec + " at n = " + std::to_string(p.n));
  MixerWeights<T> w = attention_mixer_weights<T>(p, heads, q, k, kernel, seed);
  if (b) {  // B from the array, on the same structure
    WeightArrays fb;
    fb.b = b;
    MixerWeights<T> wb = weights_from_arrays<T>(p, heads, seed, fb);
    w.b = std::move(wb.b);
    w.b_source = wb.b_source;
  }
  return w;
}

template <class T>
MixerWeights<T> solve_attention_weights(const Pattern& p, int heads, std::uint64_t seed,
                                        const AttentionOptions& o, const WeightFiles& f,
                                        std::uint64_t mem_limit) {
  check_solve_attention(o, f);
  const NpyArray q = read_npy(o.q);
  const NpyArray k = read_npy(o.k);
  NpyArray bf;
  std::optional<WeightArray> b;
  if (!f.b.empty()) {
    check_memory(attention_mixer_bytes(p, heads, sizeof(T)), mem_limit,
                 "attention weights for " + p.spec + " at n = " + std::to_string(p.n));
    bf = read_weight_file(f.b, "--weights-b", mem_limit);
    require_finite(bf, "--weights-b " + f.b);
    b = weight_array(bf, "--weights-b " + f.b);
  }
  return attention_weights_from_arrays<T>(p, heads, seed, q, k, attention_kernel(o), b, mem_limit);
}

template MixerWeights<float> solve_attention_weights<float>(const Pattern&, int, std::uint64_t,
                                                            const AttentionOptions&, const WeightFiles&,
                                                            std::uint64_t);
template MixerWeights<double> solve_attention_weights<double>(const Pattern&, int, std::uint64_t,
                                                              const AttentionOptions&, const WeightFiles&,
                                                              std::uint64_t);

template MixerWeights<float> attention_weights_from_arrays<float>(const Pattern&, int, std::uint64_t,
                                                                  const NpyArray&, const NpyArray&,
                                                                  AttentionKernel,
                                                                  const std::optional<WeightArray>&,
                                                                  std::uint64_t);
template MixerWeights<double> attention_weights_from_arrays<double>(const Pattern&, int, std::uint64_t,
                                                                    const NpyArray&, const NpyArray&,
                                                                    AttentionKernel,
                                                                    const std::optional<WeightArray>&,
                                                                    std::uint64_t);

}  // namespace mixgraph::cli
