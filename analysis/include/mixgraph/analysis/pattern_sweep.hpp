#pragma once
// `mixgraph pattern --sweep` / mixgraph.pattern_sweep: decode cost and cache of one pattern over a range of
// n, with fitted growth classes (docs/math.md §2). Cost: O(n + nnz) per n (O(n log n) for cache-efficient
// patterns), the largest n's memory checked before any work.
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/analysis/document.hpp"
#include "mixgraph/growth.hpp"
#include "mixgraph/pattern_spec.hpp"

namespace mixgraph::analysis {

struct PatternSweepQuery {
  std::string pattern;          ///< the spec as given (not a stack:, not mtx:)
  std::string sweep;            ///< "LO..HI" or "1000,3000" (parse_sweep)
  int threads = 0;              ///< the profile's threads (0: all cores)
  std::uint64_t mem_limit = 0;  ///< bytes; 0: the process default
  Progress progress;            ///< after each n: ("pattern SPEC n = N", done, total)
};

/// One n of the sweep: its summary (the JSON object of `sweep`) and table row.
struct PatternSweepPoint {
  std::uint64_t n = 0, nnz_a = 0, nnz_b = 0, total_decode_cost = 0, max_decode_cost = 0, max_cache = 0,
                max_kept_set = 0;
  bool cache_efficient = false;  ///< the table has a max_kept_set column
  ojson json;
};

/// The sweep's n in order, after the checks: UsageError for an mtx: pattern or a bad sweep, MemoryLimitError
/// when the largest n does not fit.
std::vector<std::uint64_t> pattern_sweep_ns(const PatternSweepQuery& q, const PatternSpec& spec);
/// One point (the spec parsed once by the caller).
PatternSweepPoint pattern_sweep_point(const PatternSweepQuery& q, const PatternSpec& spec, std::uint64_t n);
/// The growth fits of total decode cost (up to O(n^2)) and max cache (up to O(n)) over the points.
struct PatternSweepFits {
  GrowthFit work, cache;           ///< menu fits
  PowerFit work_free, cache_free;  ///< free-exponent fits
};
PatternSweepFits pattern_sweep_fits(const std::vector<PatternSweepPoint>& points);
/// The document of the finished points (one per n of pattern_sweep_ns, in order): `pattern`, `sweep` and
/// `fits` (menu and free fits of total decode cost and max cache).
Document pattern_sweep_document(const PatternSweepQuery& q, const std::vector<PatternSweepPoint>& points);

struct PatternSweepResult {
  std::vector<PatternSweepPoint> points;
  Document document;
};
/// The whole sweep in this process.
PatternSweepResult pattern_sweep(const PatternSweepQuery& q);

}  // namespace mixgraph::analysis
