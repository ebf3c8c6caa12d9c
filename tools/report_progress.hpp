#pragma once
// Progress lines of `mixgraph report` on stderr, one newline-terminated line per step (no carriage
// returns, so they read the same on a terminal, under Jupyter's `!`, in a nohup log or a CI log):
//
//   [report   12.3s  step 7/31  ETA 41s] pow2: distances
//
// The ETA is the mean time of the completed steps times the steps left ("ETA ?" before the first step has
// completed). `--progress auto` prints when stderr is a terminal, when run from a Jupyter kernel
// (JPY_PARENT_PID is set) or under nohup (SIGHUP ignored); `always` prints anywhere, `never` never.
#include <chrono>
#include <cstddef>
#include <string>

namespace mixgraph::cli {

class ReportProgress {
 public:
  /// mode: "auto", "always" or "never" (validated by the option); total: the number of steps.
  ReportProgress(const std::string& mode, std::size_t total);
  /// Step `index` (0-based) starts; the steps before it are complete.
  void step(std::size_t index, const std::string& what);
  double elapsed() const;
  bool enabled() const { return on_; }

 private:
  bool on_ = false;
  std::size_t total_ = 1;
  std::size_t last_ = 0;
  std::chrono::steady_clock::time_point start_;
};

/// "41s", "3m05s", "1h02m": a duration for progress lines.
std::string short_duration(double seconds);

}  // namespace mixgraph::cli
