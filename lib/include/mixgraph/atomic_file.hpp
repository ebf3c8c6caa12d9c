#pragma once
// Atomic output files: write to a uniquely named temporary file beside the target (O_EXCL), fsync it, then
// rename it over the target, so a failure, a signal or a concurrent writer never leaves a half-written or
// mixed file behind: readers see the old file or one writer's whole new file.
//
//   mixgraph::install_temp_file_cleanup();                 // once, in a program's main (optional)
//   mixgraph::write_file_atomic("out/table.csv", csv_text);
//
// Targets that are not regular files are never replaced by a rename:
//   - a symbolic link is followed: the file it points to is replaced atomically and the link stays
//     (a link to a missing file is refused);
//   - a device or a FIFO (/dev/null, /dev/stdout, a named pipe with a reader) is written into directly,
//     not atomically; a FIFO without a reader is refused at once instead of blocking;
//   - a directory or a socket is refused.
// A replaced regular file keeps its permission bits (and, where allowed, its owner). Temporary files are
// named ".<name>.tmp.<pid>.<unique>"; they are removed on any error, on SIGINT/SIGTERM/SIGHUP once
// install_temp_file_cleanup() has run, and (for a killed process) by the next write to the same target.
#include <functional>
#include <ostream>
#include <string>

namespace mixgraph {

/// Writes `content` to `path` atomically. Throws RuntimeFailure on any I/O error (the temp file is removed).
void write_file_atomic(const std::string& path, const std::string& content);

/// Streams into a temporary file through `writer`, then renames it to `path`. If `writer` throws, the
/// temporary file is removed and the exception propagates; `path` is untouched.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& writer);

/// Installs SIGINT/SIGTERM/SIGHUP handlers (where the default one is in place) that remove the temporary
/// files of writes in progress, then end the process by the same signal. Idempotent.
void install_temp_file_cleanup();

/// Removes ".<name>.tmp.<pid>.*" files beside `path` left by processes that no longer run. Best effort.
void remove_stale_temp_files(const std::string& path);

}  // namespace mixgraph
