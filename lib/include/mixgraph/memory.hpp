#pragma once
// Memory estimates: refuse work that would not fit before allocating (docs/design.md).
#include <cstdint>
#include <string>

namespace mixgraph {

/// Physical memory of this machine in bytes (sysconf), 0 if unknown.
std::uint64_t physical_memory_bytes();

/// Throws RuntimeFailure ("needs about X GiB, limit Y GiB: ...") when bytes > limit.
/// limit = 0 means the process default (set_default_mem_limit, i.e. the CLI's --mem-limit), else the
/// physical memory. `what` names the work for the message.
void check_memory(std::uint64_t bytes, std::uint64_t limit, const std::string& what);

/// The limit check_memory uses when given 0 (the file readers use it). 0 = the physical memory.
void set_default_mem_limit(std::uint64_t bytes);
std::uint64_t default_mem_limit();

/// a * b and a + b, saturating at UINT64_MAX: size estimates that overflow are refused, never wrapped.
inline std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
inline std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/// Parse "8G", "512M", "1.5GiB", "123456" (bytes). Throws UsageError.
std::uint64_t parse_memory_size(const std::string& text);

std::string format_bytes(std::uint64_t bytes);

/// Upper-bound estimate of the bytes make_pattern + cache_profile need for a spec at n
/// (computed from the offsets, without building anything): parse_pattern_spec, then the tree's
/// estimate_pattern_bytes (mixgraph/pattern_spec.hpp, which has the details). Throws UsageError for a bad
/// spec.
std::uint64_t estimate_pattern_bytes(const std::string& spec, std::uint64_t n, bool per_position);

}  // namespace mixgraph
