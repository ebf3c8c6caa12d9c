#pragma once
// Memory estimates: refuse work that would not fit before allocating (docs/design.md).
#include <cstdint>
#include <string>

namespace mixgraph {

/// Physical memory of this machine in bytes (sysconf), 0 if unknown.
std::uint64_t physical_memory_bytes();

/// Throws RuntimeFailure ("needs about X GiB, limit Y GiB: ...") when bytes > limit.
/// limit = 0 means the physical memory. `what` names the work for the message.
void check_memory(std::uint64_t bytes, std::uint64_t limit, const std::string& what);

/// Parse "8G", "512M", "1.5GiB", "123456" (bytes). Throws UsageError.
std::uint64_t parse_memory_size(const std::string& text);

std::string format_bytes(std::uint64_t bytes);

/// Upper-bound estimate of the bytes make_pattern + cache_profile need for a spec at n
/// (computed from the offsets, without building anything).
std::uint64_t estimate_pattern_bytes(const std::string& spec, std::uint64_t n, bool per_position);

}  // namespace mixgraph
