#pragma once
// The routing stage shared by the copy-task analyses of one layer (congestion.cpp: Routing) and of a stack
// (stack_congestion.cpp: StackRouting): every routing is checked, timed and recorded in the same way, and
// the least congested so far is the start of the rip-up-and-reroute (minmax) routing.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mixgraph/congestion.hpp"
#include "mixgraph/memory.hpp"

namespace mixgraph::detail {

/// check(r) -> RoutingStats of routing r (its loads, congestion and hops, validated); paths: where the
/// routings go when the caller keeps them (keep_paths), else nullptr; forced: the routings run whatever
/// their work (routings_forced), else one beyond its budget is skipped with the reason in res.skipped.
template <class R, class Check>
class RoutingLog {
 public:
  RoutingLog(CongestionResult& res, std::vector<R>* paths, Check check, bool forced)
      : res_(res), paths_(paths), check_(std::move(check)), forced_(forced) {}

  /// Whether the shift routing runs: skipped when the graph is not translation-invariant (`not_ti` says
  /// why) or, unless forced, when its paths need more than 2 GiB (path_mem bytes); checked against
  /// mem_limit when it runs (RuntimeFailure beyond it).
  bool shift_runs(bool ti, const std::string& not_ti, std::uint64_t path_mem, std::uint64_t mem_limit) {
    if (!ti) return skip("shift", not_ti);
    if (!forced_ && path_mem > (1ULL << 31))
      return skip("shift", "the paths need about " + format_bytes(path_mem));
    check_memory(path_mem, mem_limit, "the shift routing's paths");
    return true;
  }
  /// Whether the random routing runs: skipped, unless forced, when `over` (its search work, `work` edge
  /// visits, or its paths are beyond the budget).
  bool random_runs(bool over, std::uint64_t work) {
    if (!forced_ && over)
      return skip("random", "one search per input: about " + std::to_string(work) + " edge visits");
    return true;
  }
  /// Whether the minmax routing runs: skipped, unless forced, when one round (`round_work` edge visits) is
  /// more than a tenth of work_budget.
  bool minmax_runs(std::uint64_t round_work, std::uint64_t work_budget) {
    if (!forced_ && round_work > work_budget / 10)
      return skip("minmax",
                  "one rip-up-and-reroute round is about " + std::to_string(round_work) + " edge visits");
    return true;
  }

  /// Checks r, records its stats with `seconds` (and r itself when paths are kept); with `candidate`, r
  /// becomes the start when it is less congested than the start so far (the first routing always).
  void record(R&& r, double seconds, bool candidate = true) {
    RoutingStats st = check_(r);
    st.seconds = seconds;
    if (candidate && (!start_ || st.congestion < start_congestion_)) {
      start_ = r;
      start_congestion_ = st.congestion;
    }
    res_.routings.push_back(std::move(st));
    if (paths_) paths_->push_back(std::move(r));
  }

  /// The least congested routing recorded as a candidate, if any: minmax's start.
  std::optional<R>& start() { return start_; }

 private:
  bool skip(const char* routing, std::string reason) {
    res_.skipped.push_back({routing, std::move(reason)});
    return false;
  }

  CongestionResult& res_;
  std::vector<R>* paths_;
  Check check_;
  bool forced_;
  std::optional<R> start_;
  std::uint32_t start_congestion_ = 0;
};

}  // namespace mixgraph::detail
