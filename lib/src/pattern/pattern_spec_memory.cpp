// The memory estimate of a parsed spec (mixgraph/pattern_spec.hpp), and its string form (memory.hpp).
#include <cstdint>
#include <string>

#include "mixgraph/memory.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/pattern_spec.hpp"
#include "mixgraph/stack.hpp"
#include "pattern/pattern_families.hpp"

namespace mixgraph {

std::uint64_t estimate_pattern_bytes(const PatternSpec& s, std::uint64_t n, bool per_position) {
  // Per-position work arrays of cache_profile: decode, cache, kept-set, last reader, difference array.
  // (+2 words: the per-thread copies of last_reader on a 2-core machine; more threads add one word each)
  const std::uint64_t profile = n * (per_position ? 7 : 5) * 4 + 64;
  if (s.is_matrix()) return profile;  // the reader checks its size
  // n from the files (given as 0): a union's merged rows are checked once the files fix n (union_of)
  if (n == 0 && s.has_matrix() && !s.is_stack()) return profile;
  if (s.is_stack()) return sat_add(profile, estimate_stack_bytes(s, n));               // stack.hpp
  if (const auto e = detail::estimate_family_bytes(s, n)) return sat_add(profile, e);  // pattern_families.hpp
  validate_n(n);
  if (s.kind != SpecKind::Cache) {
    // Offsets are kept as 32-bit values; dense/attention have n of them.
    const bool dense = s.kind == SpecKind::Family && (s.family == "dense" || s.family == "attention");
    return profile + (dense ? n : 0) * 12;
  }
  // The CSR needs its n + 1 row pointers and at least n - 1 entries whatever the offsets are: when that
  // floor is already over the limit, say so without listing the offsets (dense+cache has n of them).
  const std::uint64_t floor = sat_add(profile, sat_mul(n + 1, sizeof(nnz_t) + sizeof(pos_t)));
  const std::uint64_t limit = default_mem_limit() ? default_mem_limit() : physical_memory_bytes();
  if (limit != 0 && floor > limit) return floor;
  const auto f = f_values_for(s.parts.at(0), n);
  std::uint64_t nnz = 0;
  for (auto v : f) nnz = sat_add(nnz, n - v);
  return sat_add(sat_add(profile, sat_mul(nnz, sizeof(pos_t))),
                 sat_add(sat_mul(n + 1, sizeof(nnz_t)), sat_mul(f.size(), 16)));
}

void check_pattern_memory(const PatternSpec& s, std::uint64_t n, std::uint64_t mem_limit,
                          const std::string& label, const PatternBudget& budget) {
  const std::uint64_t bytes =
      sat_add(sat_mul(estimate_pattern_bytes(s, n, budget.per_position), budget.copies), budget.extra_bytes);
  check_memory(bytes, mem_limit, label + " at " + budget.n_name + " = " + std::to_string(n));
}

std::uint64_t estimate_pattern_bytes(const std::string& spec, std::uint64_t n, bool per_position) {
  return estimate_pattern_bytes(parse_pattern_spec(spec), n, per_position);
}

}  // namespace mixgraph
