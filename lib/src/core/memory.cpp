#include "mixgraph/memory.hpp"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "mixgraph/error.hpp"

namespace mixgraph {

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || size <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size);
}

std::string format_bytes(std::uint64_t b) {
  char buf[64];
  const double d = static_cast<double>(b);
  if (b >= (1ull << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", d / (1ull << 30));
  else if (b >= (1ull << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", d / (1ull << 20));
  else if (b >= (1ull << 10))
    std::snprintf(buf, sizeof buf, "%.1f KiB", d / (1ull << 10));
  else
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  return buf;
}

namespace {
std::atomic<std::uint64_t> g_default_limit{0};
}

void set_default_mem_limit(std::uint64_t bytes) {
  g_default_limit.store(bytes);
}

std::uint64_t default_mem_limit() {
  return g_default_limit.load();
}

void check_memory(std::uint64_t bytes, std::uint64_t limit, const std::string& what) {
  if (limit == 0) limit = default_mem_limit();
  const bool physical = limit == 0;
  if (physical) limit = physical_memory_bytes();
  if (limit == 0 || bytes <= limit) return;
  throw MemoryRefused(what + " needs about " + format_bytes(bytes) + ", more than the " +
                      (physical ? "physical memory (" : "--mem-limit (") + format_bytes(limit) +
                      "); refused before allocating. Use a smaller n" +
                      (physical ? std::string("") : std::string(" or raise --mem-limit")));
}

std::uint64_t parse_memory_size(const std::string& text) {
  std::size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(text, &pos);
  } catch (...) {
    throw UsageError("memory size '" + text + "' is not a number (e.g. 8G, 512M)");
  }
  std::string unit = text.substr(pos);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double mult = 1;
  if (unit.empty() || unit == "B")
    mult = 1;
  else if (unit == "K" || unit == "KB" || unit == "KIB")
    mult = 1024.0;
  else if (unit == "M" || unit == "MB" || unit == "MIB")
    mult = 1024.0 * 1024;
  else if (unit == "G" || unit == "GB" || unit == "GIB")
    mult = 1024.0 * 1024 * 1024;
  else if (unit == "T" || unit == "TB" || unit == "TIB")
    mult = 1024.0 * 1024 * 1024 * 1024;
  else
    throw UsageError("memory size '" + text + "' has an unknown unit (use K, M, G or T)");
  if (!(v > 0) || !std::isfinite(v)) throw UsageError("memory size '" + text + "' must be positive");
  const double bytes = v * mult;
  if (bytes < 1) throw UsageError("memory size '" + text + "' is less than one byte");
  if (bytes >= 1.8e19) throw UsageError("memory size '" + text + "' is too large (at most 16 EiB)");
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace mixgraph
