// Progress lines of `mixgraph report` (report_progress.hpp).
#include "report_progress.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "output.hpp"

namespace mixgraph::cli {

namespace {
bool under_notebook_or_nohup() {
  if (std::getenv("JPY_PARENT_PID")) return true;
  struct sigaction old {};
  return ::sigaction(SIGHUP, nullptr, &old) == 0 && old.sa_handler == SIG_IGN;
}
}  // namespace

std::string short_duration(double s) {
  char buf[32];
  if (s < 0) s = 0;
  const long t = static_cast<long>(s + 0.5);
  if (t < 60)
    std::snprintf(buf, sizeof buf, "%lds", t);
  else if (t < 3600)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
  return buf;
}

ReportProgress::ReportProgress(const std::string& mode, std::size_t total)
    : total_(std::max<std::size_t>(1, total)), start_(std::chrono::steady_clock::now()) {
  on_ = mode == "always" || (mode == "auto" && (stderr_is_tty() || under_notebook_or_nohup()));
}

double ReportProgress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ReportProgress::step(std::size_t index, const std::string& what) {
  if (!on_) return;
  last_ = std::max(last_, std::min(index, total_));  // a section may return to an earlier pattern
  const std::size_t done = last_;
  const double t = elapsed();
  const std::string eta =
      done == 0 ? "?" : short_duration(t / static_cast<double>(done) * static_cast<double>(total_ - done));
  char head[96];
  std::snprintf(head, sizeof head, "[report %7.1fs  step %zu/%zu  ETA %s] ", t,
                done + 1 > total_ ? total_ : done + 1, total_, eta.c_str());
  std::cerr << head << what << "\n" << std::flush;
}

}  // namespace mixgraph::cli
