#pragma once
// The user's weights of mixgraph.solve on the host: weights_a / weights_b / gates / input_gates and
// attn_q / attn_k / attn_kernel, each a .npy path or an array, with the CLI's rules, layouts and messages
// (weight_files.hpp, mixgraph/analysis/attention_options.hpp and weight_options.hpp).
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>

#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"

namespace mixgraph::py {

namespace pb = pybind11;

struct UserWeights {
  /// None, a str (a .npy path) or an array. Each starts as None: a default pb::object is a null handle,
  /// which is not None.
  pb::object a = pb::none(), b = pb::none(), gates = pb::none(), input_gates = pb::none(), q = pb::none(),
             k = pb::none();
  std::string kernel = "softmax";
  bool any() const;
  /// The names of the keywords given (for messages), comma separated.
  std::string given_names() const;
};

/// The heads of a solve with these weights (heads as given, or d with gates / input_gates); UsageError for
/// combinations the CLI refuses (both attn_q and weights_a, a missing half of attn_q / attn_k, ...).
int user_weight_heads(const UserWeights& u, int heads, std::size_t d);

/// The solver's weights: seeded ones with the given matrices replaced (or A from attention). Arrays are read
/// in place (float32 / float64, C-contiguous, 2-D); attn_q / attn_k arrays are copied. Holds the GIL.
template <class T>
std::shared_ptr<const MixerWeights<T>> user_weights(const Pattern& p, int heads, std::uint64_t seed,
                                                    const UserWeights& u, std::uint64_t mem_limit);

}  // namespace mixgraph::py
