#pragma once
// A pattern's A and B rows built again from the definitions, independently of pattern.cpp and
// pattern_families.cpp (an independent reference for validate and the tests), written from docs/math.md §2:
// translation-invariant patterns (Def. 4.1: token i reads i - f(k) for every f(k) < i) with their offsets
// read here from the spec (pow2, pow:b, sq1, sq, fib, window:w, local:w, dilated:w,r, strided:w,s, ssm,
// dense, attention, offsets:..., and expr:<f(k)> by a small evaluator of its own), sink:s / global:s,
// block:b, unions P1|P2|... (the union of the parts' A reads and of their B reads; a part ending in @A adds
// only its A reads, @B only its B reads, @AB both), and `+cache` by the
// recursion of Def. 4.10 (S_i = { pi_{S_{i-1} ∪ {i}}(i - f(k)) : f(k) < i } ∪ {i}, pi rounding up to the
// next kept position) on explicit sets. mtx: patterns (read from files) are not covered.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/pattern.hpp"

namespace mixgraph {

/// Rows of A and B: the 0-indexed reads of each 0-indexed position, ascending (A with i itself when A
/// reads it).
struct BruteforceRows {
  std::vector<std::vector<pos_t>> a, b;
};

/// Both matrices from the definition, or nullopt when the spec is not covered. O(n |F| log n) time, O(nnz)
/// memory: for small n (validate uses n <= 2048).
std::optional<BruteforceRows> bruteforce_rows(const std::string& spec, pos_t n);

/// The B rows alone (bruteforce_rows(spec, n)->b).
std::optional<std::vector<std::vector<pos_t>>> bruteforce_b_rows(const std::string& spec, pos_t n);

/// f(0), f(1), ... below n of expr:<expr>, with +, -, *, /, ^, parentheses, k, numbers and floor, ceil,
/// round, sqrt, log2, log10, ln, exp, abs; nullopt for anything else, a non-integer value (beyond 1e-9) or
/// a decreasing f. Equal consecutive values merge.
std::optional<std::vector<std::uint64_t>> bruteforce_expression(const std::string& expr, std::uint64_t n);

}  // namespace mixgraph
