// Number and size parsing of every numeric option: counts (4096, 2^20, 1e6), lists, sweeps and memory
// sizes. Any text gives a value or a UsageError, at once (no loop over an exponent).
#include <string>

#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256) return 0;
  const std::string s(reinterpret_cast<const char*>(data), size);
  try {
    (void)mixgraph::parse_count(s, "--n");
  } catch (const mixgraph::UsageError&) {
  }
  try {
    if (mixgraph::parse_memory_size(s) == 0) __builtin_trap();  // 0 would mean "no limit"
  } catch (const mixgraph::UsageError&) {
  }
  try {
    (void)mixgraph::parse_uint_list(s, "--cuts");
  } catch (const mixgraph::UsageError&) {
  }
  try {
    const auto v = mixgraph::parse_sweep(s);
    if (v.size() > 200) __builtin_trap();  // a sweep is a handful of sizes, never a list of 2^64
  } catch (const mixgraph::UsageError&) {
  }
  return 0;
}
