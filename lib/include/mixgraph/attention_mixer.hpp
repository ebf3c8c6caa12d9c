#pragma once
// Real attention weights for the solver: H heads of softmax (or linear-kernel) attention from queries and
// keys, each on the pattern's A mask (docs/math.md §5, "Real attention heads").
//
//   auto p = mixgraph::make_pattern("window:64", 4096);
//   auto q = mixgraph::read_npy("Q.npy"), k = mixgraph::read_npy("K.npy");   // n x (H r) each
//   auto w = mixgraph::attention_mixer_weights<float>(p, /*heads=*/2, q, k,
//                                                    mixgraph::AttentionKernel::Softmax, /*seed=*/1);
//   mixgraph::solve_mixer(w, x.data(), y.data(), d);                          // Y = (I - B)^{-1} A X
#include <cstdint>

#include "mixgraph/attention_weights.hpp"
#include "mixgraph/npy.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve.hpp"

namespace mixgraph {

/// Stored solver weights whose A is an attention head per head: Q and K are n x (H r) (row t = position
/// t + 1), head h takes columns h r .. (h + 1) r - 1 of both (the heads side by side, as a model's
/// concatenated projections), and its A is attention_weights(p, Q_h, K_h, kernel, seed + h): the kernel
/// renormalised over the reads of row i of A. B is the seeded generic B of head h (random_weights with
/// seed + h, as seeded_mixer_weights; empty for attention patterns). Throws InputError when Q and K differ
/// in shape, their columns are not a multiple of `heads`, their rows are not n, or a value is not finite;
/// UsageError for heads < 1. Check attention_mixer_bytes against the memory limit first.
template <class T>
MixerWeights<T> attention_mixer_weights(const Pattern& p, int heads, const NpyArray& q, const NpyArray& k,
                                        AttentionKernel kernel, std::uint64_t seed);

/// Peak bytes attention_mixer_weights allocates for values of `value_bytes` bytes (the stored weights and
/// the double-precision heads they are made from).
std::uint64_t attention_mixer_bytes(const Pattern& p, int heads, std::size_t value_bytes);

}  // namespace mixgraph
