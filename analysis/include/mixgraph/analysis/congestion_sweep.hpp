#pragma once
// `mixgraph congestion` without layers / mixgraph.congestion_sweep: the copy task over several patterns and
// copy lengths N (the pattern on 2N tokens), one row each: copy distance, certified lower bounds, the best
// routing's congestion and the gap (docs/math.md §4). One pattern at one N gives the full single result.
// Cost: a row grows about 4x per doubling of N; the largest 2N's memory is checked before any work.
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/analysis/document.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/pattern_spec.hpp"

namespace mixgraph::analysis {

struct CongestionQuery {
  std::vector<std::string> patterns;  ///< the specs as given (no stack:)
  std::string copy_length;            ///< one N ("" with a sweep, or for mtx: patterns: n / 2)
  std::string sweep;                  ///< "LO..HI" or "100,300,1000" ("" for one N)
  std::string routing;                ///< "" (every routing that fits), shift, random, minmax or all
  bool lp = false;                    ///< also the LP bound (and the IP optimum when tiny)
  std::uint64_t seed = 1;
  std::uint64_t mem_limit = 0;  ///< bytes; 0: the process default
  bool keep_paths = false;      ///< keep the routings' paths (one pattern at one N only)
  Progress progress;            ///< after each row: ("congestion SPEC N = N", done, total)
};

/// The query checked and parsed: the rows to compute.
struct CongestionPlan {
  std::vector<PatternSpec> trees;  ///< each pattern parsed once
  std::vector<std::uint64_t> ns;   ///< the copy lengths (0: N = n / 2 from an mtx: file)
  bool single = false;             ///< one pattern at one N: the full result, not rows
  CongestionOptions options;
};
/// Checks the query (UsageError with the CLI's option names, MemoryLimitError for the sweep's largest 2N).
CongestionPlan congestion_plan(const CongestionQuery& q);
/// The row of pattern k at copy length N (its `pattern` as given).
CongestionResult congestion_row_result(const CongestionQuery& q, const CongestionPlan& plan, std::size_t k,
                                       std::uint64_t N);
/// The document's parameters: pattern (one or a list), routing, lp, seed, and n (one N) or sweep.
nlohmann::json congestion_parameters(const CongestionQuery& q, const CongestionPlan& plan);
/// The document of several rows (their json::congestion objects without lists, in order): `rows`.
Document congestion_rows_document(const CongestionQuery& q, const CongestionPlan& plan,
                                  std::vector<ojson> rows);
/// The document of one pattern at one N: its json::congestion with lists, and `heads` (heads:P1;P2;...).
Document congestion_single_document(const CongestionQuery& q, const CongestionPlan& plan,
                                    const CongestionResult& r, const std::vector<CongestionResult>& heads);

struct CongestionTable {
  CongestionPlan plan;
  std::vector<CongestionResult> rows;   ///< pattern by pattern, N by N
  std::vector<CongestionResult> heads;  ///< single, heads:P1;P2;...: each head's pattern alone
  Document document;
};
/// The whole table in this process.
CongestionTable congestion_table(const CongestionQuery& q);

}  // namespace mixgraph::analysis
