#pragma once
// Explicit-read pattern families (sink:s, global:g, block:b) and the union operator P1|P2|...; see
// docs/math.md §2.
#include <cstdint>
#include <string>

#include "mixgraph/pattern.hpp"

namespace mixgraph::detail {

/// sink:s (alias global:s): 1-indexed token i reads 1..min(s, i - 1) through B, shared A. O(n min(s, n)).
Pattern make_sink(const std::string& spec, std::uint64_t n);

/// block:b: 1-indexed token i reads every j <= i with ceil(j / b) = ceil(i / b) through A (i included), B
/// empty. O(n min(b, n)).
Pattern make_block(const std::string& spec, std::uint64_t n);

/// P1|P2|...: reads = the union of the parts' reads, B and A separately. Translation-invariant when every
/// part is, with one A mode; else explicit CSR rows merged part by part (O(n + sum of the parts' reads)).
/// n = 0 takes n from the mtx: parts (all must agree).
Pattern make_union(const std::string& spec, std::uint64_t n);

}  // namespace mixgraph::detail
