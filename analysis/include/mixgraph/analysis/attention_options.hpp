#pragma once
// A's weights from real attention heads (docs/math.md §5, "Real attention heads"), as both front ends take
// them: the CLI's --attn-q / --attn-k / --attn-kernel (solve, validate, rank; tools/ registers the options)
// and the Python package's solve(attn_q=..., attn_k=..., attn_kernel=...). B seeded or from --weights-b.
#include <cstdint>
#include <optional>
#include <string>

#include "mixgraph/analysis/weight_options.hpp"
#include "mixgraph/attention_weights.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/weight_files.hpp"

namespace mixgraph::analysis {

/// Queries and keys (file names, or the Python argument names when arrays are given) and the kernel's name.
struct AttentionOptions {
  std::string q, k, kernel = "softmax";
  bool given() const { return !q.empty() || !k.empty(); }
};

/// The kernel named by o.kernel (softmax or linear); UsageError for any other name, naming the option as
/// `names` does (the CLI's --attn-kernel by default, Python's attn_kernel).
AttentionKernel attention_kernel(const AttentionOptions& o, const WeightOptionNames& names = {});

/// Usage errors before any file is read: a missing half of Q / K, weight files that also set A, or an
/// unknown kernel, in `names`' words. Nothing when no attention option is given.
void check_solve_attention(const AttentionOptions& o, const WeightFiles& f,
                           const WeightOptionNames& names = {});

/// The solver's weights: A from Q and K (head h: columns h r + 1 .. (h + 1) r), B the seeded generic one
/// (seed + h) or --weights-b's. Checks the memory limit before building.
template <class T>
MixerWeights<T> solve_attention_weights(const Pattern& p, int heads, std::uint64_t seed,
                                        const AttentionOptions& o, const WeightFiles& f,
                                        std::uint64_t mem_limit);

/// The same weights from Q and K in memory and B's weights from an array (absent: seeded), e.g. from Python.
template <class T>
MixerWeights<T> attention_weights_from_arrays(const Pattern& p, int heads, std::uint64_t seed,
                                              const NpyArray& q, const NpyArray& k, AttentionKernel kernel,
                                              const std::optional<WeightArray>& b, std::uint64_t mem_limit);

}  // namespace mixgraph::analysis
