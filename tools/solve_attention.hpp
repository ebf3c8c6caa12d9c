#pragma once
// `mixgraph solve --attn-q Q.npy --attn-k K.npy`: A's weights from a real attention head per head
// (docs/math.md §5, "Real attention heads"); B seeded or from --weights-b.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>

#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/weight_files.hpp"
#include "rank_attention.hpp"

namespace mixgraph::cli {

/// --attn-q, --attn-k, --attn-kernel (the names and meaning of rank's), filling o.
void add_solve_attention_options(CLI::App& app, AttentionOptions& o);

/// Usage errors before any file is read: a missing half of Q / K, or weight files that also set A.
void check_solve_attention(const AttentionOptions& o, const WeightFiles& f);

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

}  // namespace mixgraph::cli
