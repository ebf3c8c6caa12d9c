#pragma once
// Stopping a CPU solve early (an embedding such as the Python package on Ctrl-C): solve_mixer polls a flag
// between blocks of rows of each tile (every few thousand rows, never inside the inner loops) and returns
// early once it is set, leaving Y part-written.
#include <atomic>

namespace mixgraph {

/// While alive, solve_mixer calls made from this thread poll *flag and stop early once it is true (Y is then
/// unspecified). Scopes nest; the flag must outlive the scope.
class SolveCancelScope {
 public:
  explicit SolveCancelScope(const std::atomic<bool>* flag);
  ~SolveCancelScope();
  SolveCancelScope(const SolveCancelScope&) = delete;
  SolveCancelScope& operator=(const SolveCancelScope&) = delete;

 private:
  const std::atomic<bool>* saved_;
};

/// The flag of the innermost SolveCancelScope on this thread, or nullptr.
const std::atomic<bool>* solve_cancel_flag();

}  // namespace mixgraph
