#pragma once
// `report` writes into a staging directory beside --out and swaps it in whole at the end, so an
// interrupted, failed or concurrent run never leaves a directory that looks complete but mixes two runs.
#include <string>

namespace mixgraph::analysis {

/// The directory `report --out out` writes: `out` itself, or, when `out` is a symbolic link, the directory it
/// names (the link stays; a link to nothing is refused). Refuses (UsageError) an `out` that is the current
/// directory or one above it ("--out ."): the report replaces its directory whole, which cannot be done to
/// the directory the process works in.
std::string resolve_report_out(const std::string& out);

/// Owns ".<name>.staging.<pid>.<unique>" beside `out` (created empty; stale ones of processes that no
/// longer run are removed first). The destructor removes it unless commit() succeeded.
class ReportStaging {
 public:
  explicit ReportStaging(const std::string& out);
  ~ReportStaging();
  ReportStaging(const ReportStaging&) = delete;
  ReportStaging& operator=(const ReportStaging&) = delete;

  const std::string& dir() const { return dir_; }
  /// Puts the staging directory in place of `out` in one rename (an existing `out` is exchanged with it
  /// atomically, then removed). Without `force`, an `out` that another run filled meanwhile is left alone
  /// and RuntimeFailure says so; with `force`, an existing `out` must be empty or hold a report.json.
  void commit(bool force);

 private:
  std::string out_, dir_;
  bool committed_ = false;
};

}  // namespace mixgraph::analysis
