#pragma once
// Atomic output files: write to a temporary file beside the target, then rename over it, so a failure
// never leaves a half-written file behind.
//
//   mixgraph::write_file_atomic("out/table.csv", csv_text);
#include <functional>
#include <ostream>
#include <string>

namespace mixgraph {

/// Writes `content` to `path` atomically. Throws RuntimeFailure on any I/O error (the temp file is removed).
void write_file_atomic(const std::string& path, const std::string& content);

/// Streams into a temporary file through `writer`, then renames it to `path`. If `writer` throws, the
/// temporary file is removed and the exception propagates; `path` is untouched.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& writer);

}  // namespace mixgraph
