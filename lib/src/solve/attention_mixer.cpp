// Attention heads as solver weights (attention_mixer.hpp): per head, attention_weights on a column slice of
// Q and K, gathered into stored MixerWeights.
#include "mixgraph/attention_mixer.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"

namespace mixgraph {

namespace {

void check_shape(const NpyArray& a, const char* what, std::uint64_t n, int heads) {
  if (a.rows != n)
    throw InputError(std::string(what) + " has " + std::to_string(a.rows) + " rows but the pattern has n = " +
                     std::to_string(n) + " positions (one row per position)");
  if (a.cols == 0 || a.cols % std::uint64_t(heads) != 0)
    throw InputError(std::string(what) + " has " + std::to_string(a.cols) +
                     " columns, not a positive multiple of " + std::to_string(heads) +
                     " heads (head h takes columns h r + 1 .. (h + 1) r)");
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!std::isfinite(a.fp64 ? a.f64[i] : static_cast<double>(a.f32[i])))
      throw InputError(std::string(what) + " entry (" + std::to_string(i / a.cols + 1) + ", " +
                       std::to_string(i % a.cols + 1) + ") is not finite");
}

/// Columns c0 .. c0 + r - 1 of a.
NpyArray columns(const NpyArray& a, std::uint64_t c0, std::uint64_t r) {
  NpyArray s;
  s.rows = a.rows;
  s.cols = r;
  s.fp64 = a.fp64;
  for (std::uint64_t i = 0; i < a.rows; ++i)
    for (std::uint64_t c = c0; c < c0 + r; ++c) {
      const std::size_t e = static_cast<std::size_t>(i * a.cols + c);
      if (a.fp64)
        s.f64.push_back(a.f64[e]);
      else
        s.f32.push_back(a.f32[e]);
    }
  return s;
}

}  // namespace

template <class T>
MixerWeights<T> attention_mixer_weights(const Pattern& p, int heads, const NpyArray& q, const NpyArray& k,
                                        AttentionKernel kernel, std::uint64_t seed) {
  if (heads < 1) throw UsageError("--heads must be >= 1");
  if (q.cols != k.cols)
    throw InputError("Q has " + std::to_string(q.cols) + " columns but K has " + std::to_string(k.cols) +
                     " (queries and keys need the same dimension)");
  check_shape(q, "Q", p.n, heads);
  check_shape(k, "K", p.n, heads);
  const std::uint64_t r = q.cols / std::uint64_t(heads);
  std::vector<WeightedPattern> per_head;
  for (int h = 0; h < heads; ++h) {
    const std::uint64_t c0 = std::uint64_t(h) * r;
    per_head.push_back(attention_weights(p, heads == 1 ? q : columns(q, c0, r),
                                         heads == 1 ? k : columns(k, c0, r), kernel,
                                         seed + std::uint64_t(h)));
  }
  MixerWeights<T> w = mixer_weights_from<T>(p, per_head);
  w.seed = seed;
  return w;
}

std::uint64_t attention_mixer_bytes(const Pattern& p, int heads, std::size_t value_bytes) {
  // the stored weights, plus per head a WeightedPattern (values and indices of A and B, row pointers)
  return sat_add(mixer_weights_bytes(p, heads, value_bytes, CoefSource::Stored),
                 mixer_weights_bytes(p, heads, 8 + sizeof(pos_t), CoefSource::Stored));
}

template MixerWeights<float> attention_mixer_weights<float>(const Pattern&, int, const NpyArray&,
                                                            const NpyArray&, AttentionKernel, std::uint64_t);
template MixerWeights<double> attention_mixer_weights<double>(const Pattern&, int, const NpyArray&,
                                                              const NpyArray&, AttentionKernel,
                                                              std::uint64_t);

}  // namespace mixgraph
