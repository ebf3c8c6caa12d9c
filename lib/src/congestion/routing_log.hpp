#pragma once
// The routing stage shared by the copy-task analyses of one layer (congestion.cpp: Routing) and of a stack
// (stack_congestion.cpp: StackRouting): every routing is checked, timed and recorded in the same way, and
// the least congested so far is the start of the rip-up-and-reroute (minmax) routing.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "mixgraph/congestion.hpp"

namespace mixgraph::detail {

/// check(r) -> RoutingStats of routing r (its loads, congestion and hops, validated); paths: where the
/// routings go when the caller keeps them (keep_paths), else nullptr.
template <class R, class Check>
class RoutingLog {
 public:
  RoutingLog(CongestionResult& res, std::vector<R>* paths, Check check)
      : res_(res), paths_(paths), check_(std::move(check)) {}

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
  CongestionResult& res_;
  std::vector<R>* paths_;
  Check check_;
  std::optional<R> start_;
  std::uint32_t start_congestion_ = 0;
};

}  // namespace mixgraph::detail
