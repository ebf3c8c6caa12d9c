// A's weights from real attention heads, as both front ends take them
// (mixgraph/analysis/attention_options.hpp).
#include "mixgraph/analysis/attention_options.hpp"

#include <string>
#include <utility>

#include "mixgraph/attention_mixer.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/npy.hpp"

namespace mixgraph::analysis {

AttentionKernel attention_kernel(const AttentionOptions& o, const WeightOptionNames& names) {
  if (o.kernel == "linear") return AttentionKernel::Linear;
  if (o.kernel != "softmax")
    throw UsageError(names.attn_kernel + " must be softmax or linear (got '" + o.kernel + "')");
  return AttentionKernel::Softmax;
}

void check_solve_attention(const AttentionOptions& o, const WeightFiles& f, const WeightOptionNames& names) {
  if (!o.given()) return;
  if (o.q.empty() || o.k.empty())
    throw UsageError(names.attn_q + " and " + names.attn_k + " go together (queries and keys)");
  if (!f.a.empty() || !f.gates.empty() || !f.input_gates.empty())
    throw UsageError(names.attn_q + " / " + names.attn_k + " set A's weights: give them or " +
                     names.weights_a + " / " + names.gates + " / " + names.input_gates + ", not both (" +
                     names.weights_b + " combines with them)");
  attention_kernel(o, names);
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

}  // namespace mixgraph::analysis
