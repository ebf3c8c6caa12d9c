#pragma once
// A hook an embedding of the commands (the Python package runs them in-process) sets to see the stages of
// a long command and to stop it: `stage(text)` is called between stages on the command's own thread, never
// inside a parallel region. The hook may throw (mixgraph::Interrupted) to stop the command; it then unwinds
// like any error, so nothing half-written is left (report's staging directory is removed). Unset in the CLI.
#include <functional>
#include <string>

namespace mixgraph::cli {

std::function<void(const std::string&)>& stage_hook();

/// Calls the hook, if one is set.
inline void stage(const std::string& what) {
  if (auto& h = stage_hook()) h(what);
}

}  // namespace mixgraph::cli
