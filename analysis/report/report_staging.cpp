#include "mixgraph/analysis/report_staging.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "mixgraph/error.hpp"

namespace mixgraph::analysis {

namespace fs = std::filesystem;

namespace {

fs::path parent_of(const fs::path& p) {
  return p.has_parent_path() ? p.parent_path() : fs::path(".");
}

std::string name_of(const std::string& out) {
  fs::path p(out);
  if (!p.has_filename()) p = p.parent_path();  // "out/" names "out"
  return p.filename().string();
}

void remove_stale_stagings(const fs::path& parent, const std::string& prefix) {
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code rec;
      fs::remove_all(it->path(), rec);
    }
  }
}

}  // namespace

std::string resolve_report_out(const std::string& out) {
  std::error_code ec;
  std::string dir = out;
  struct stat st {};
  if (::lstat(out.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    const fs::path target = fs::canonical(out, ec);
    if (ec)
      throw UsageError(
          "--out '" + out +
          "' is a symbolic link to a missing directory: create the directory it names, or choose "
          "another --out");
    dir = target.string();  // the report goes where the link points; the link itself is never replaced
  }
  const fs::path here = fs::current_path(ec);
  const fs::path where = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (!ec && !here.empty()) {
    const auto rel = here.lexically_relative(where);
    if (!rel.empty() && *rel.begin() != "..")  // `where` is here or above it
      throw UsageError("--out '" + out +
                       "' is the current directory or one above it: the report replaces its --out directory "
                       "as a whole, so give a new directory for it (e.g. --out report)");
  }
  return dir;
}

ReportStaging::ReportStaging(const std::string& out) {
  fs::path o(out);
  if (!o.has_filename()) o = o.parent_path();
  out_ = o.string();
  const fs::path parent = parent_of(o);
  std::string prefix(".");  // built by append: GCC 12's -Wrestrict misfires on "." + string
  prefix.append(name_of(out)).append(".staging.");
  remove_stale_stagings(parent, prefix);
  static const unsigned seed = std::random_device{}();
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path d =
        parent / (prefix + std::to_string(::getpid()) + "." + std::to_string((seed + attempt) % 1000000));
    if (::mkdir(d.c_str(), 0777) == 0) {
      dir_ = d.string();
      return;
    }
    if (errno != EEXIST)
      throw RuntimeFailure("cannot create a staging directory for '" + out + "' in '" + parent.string() +
                           "': " + std::strerror(errno));
  }
  throw RuntimeFailure("cannot create a staging directory for '" + out + "': no unique name in 100 tries");
}

ReportStaging::~ReportStaging() {
  if (committed_ || dir_.empty()) return;
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

void ReportStaging::commit(bool force) {
  // First try to appear where nothing is (a concurrent run may have taken the name meanwhile).
  int rc = ::renameat2(AT_FDCWD, dir_.c_str(), AT_FDCWD, out_.c_str(), RENAME_NOREPLACE);
  if (rc != 0 && errno == EINVAL) rc = ::rename(dir_.c_str(), out_.c_str());  // no flags on this file system
  if (rc == 0) {
    committed_ = true;
    return;
  }
  if (errno != EEXIST && errno != ENOTEMPTY)
    throw RuntimeFailure("cannot move the report into '" + out_ + "': " + std::strerror(errno));
  std::error_code ec;
  const bool empty = fs::is_directory(out_, ec) && fs::is_empty(out_, ec);
  if (!empty && !force)
    throw RuntimeFailure("'" + out_ +
                         "' was filled by another run while this one worked; this run's report is discarded "
                         "(pass --force to replace it)");
  if (!empty && !fs::exists(fs::path(out_) / "report.json", ec))
    throw RuntimeFailure("'" + out_ +
                         "' holds files but no report.json: not replacing a directory that is not a mixgraph "
                         "report; choose a new --out");
  // Atomic exchange: readers see the old report or the new one, never a mix.
  if (::renameat2(AT_FDCWD, dir_.c_str(), AT_FDCWD, out_.c_str(), RENAME_EXCHANGE) == 0) {
    committed_ = true;
    fs::remove_all(dir_, ec);  // the old report, now under the staging name; a failure leaves a stale one
    return;
  }
  if (errno != EINVAL) throw RuntimeFailure("cannot replace '" + out_ + "': " + std::strerror(errno));
  // No atomic exchange on this file system: move the old report aside (under a staging name, so a run
  // killed here leaves it for the next run to clean), then put the new one in place.
  const std::string old = dir_ + ".old";
  if (::rename(out_.c_str(), old.c_str()) != 0 || ::rename(dir_.c_str(), out_.c_str()) != 0)
    throw RuntimeFailure("cannot replace '" + out_ + "': " + std::strerror(errno));
  committed_ = true;
  fs::remove_all(old, ec);
}

}  // namespace mixgraph::analysis
