#pragma once
// A pattern's B rows built again from the definitions, independently of pattern.cpp (an independent
// reference for validate): Def. 4.1 (token i reads i - f(k) for every f(k) < i) and the recursion of
// Def. 4.10 for `+cache` (S_i = { pi_{S_{i-1} ∪ {i}}(i - f(k)) : f(k) < i } ∪ {i}, pi rounding up to the next
// kept position), on explicit sets. Offsets come from a separate reading of the spec for pow2, pow:b, sq1,
// window:w, ssm, dense and offsets:...; other specs are not covered.
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/pattern.hpp"

namespace mixgraph {

/// The rows of B (0-indexed reads of each 0-indexed position, ascending) from the definition, or nullopt
/// when the spec is not covered. O(n |F| log n); for small n (validate uses n <= 2048).
std::optional<std::vector<std::vector<pos_t>>> bruteforce_b_rows(const std::string& spec, pos_t n);

}  // namespace mixgraph
