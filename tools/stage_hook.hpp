#pragma once
// A hook an embedding of the commands (the Python package runs them in-process) sets to see the stages of
// a long command and to stop it: `stage(text)` is called between stages on the command's own thread, never
// inside a parallel region. The hook may throw (mixgraph::Interrupted) to stop the command; it then unwinds
// like any error, so nothing half-written is left (report's staging directory is removed). Unset in the CLI.
#include <cstdint>
#include <functional>
#include <string>

namespace mixgraph::cli {

std::function<void(const std::string&)>& stage_hook();

/// Calls the hook, if one is set.
inline void stage(const std::string& what) {
  if (auto& h = stage_hook()) h(what);
}

/// The hook for progress inside a stage: `step(what, done, total)` after each point of a sweep (done of
/// total points). The same rules as stage(): the command's own thread, never inside a parallel region, and
/// it may throw to stop the command. Unset in the CLI.
inline std::function<void(const std::string&, std::uint64_t, std::uint64_t)>& step_hook() {
  static std::function<void(const std::string&, std::uint64_t, std::uint64_t)> hook;
  return hook;
}

/// Calls the step hook, if one is set.
inline void step(const std::string& what, std::uint64_t done, std::uint64_t total) {
  if (auto& h = step_hook()) h(what, done, total);
}

}  // namespace mixgraph::cli
