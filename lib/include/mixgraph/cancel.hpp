#pragma once
// Stopping a long computation early (an embedding such as the Python package on Ctrl-C): while a CancelScope
// is alive on a thread, the long loops started from that thread (pattern construction, all-pairs distances,
// routings, cache profiles, solves) look at its flag every few milliseconds of work and, once it is set,
// stop and throw Cancelled. OpenMP loops skip their remaining iterations and throw after the parallel
// region, so no thread keeps working. The CLI sets no scope (Ctrl-C ends the process).
#include <atomic>

#include "mixgraph/error.hpp"

namespace mixgraph {

/// Thrown by work whose CancelScope flag was set; what was being built is dropped.
struct Cancelled : RuntimeFailure {
  Cancelled() : RuntimeFailure("cancelled") {}
};

/// While alive, long work started from this thread polls *flag and stops early once it is true. Scopes nest;
/// the flag must outlive the scope.
class CancelScope {
 public:
  explicit CancelScope(const std::atomic<bool>* flag);
  ~CancelScope();
  CancelScope(const CancelScope&) = delete;
  CancelScope& operator=(const CancelScope&) = delete;

 private:
  const std::atomic<bool>* saved_;
};

/// The flag of the innermost CancelScope on this thread, or nullptr. Loops that run on other threads
/// (OpenMP) read it once on the calling thread and poll the pointer.
const std::atomic<bool>* cancel_flag();

/// True when `flag` (from cancel_flag()) is set; false for nullptr.
inline bool cancel_requested(const std::atomic<bool>* flag) {
  return flag != nullptr && flag->load(std::memory_order_relaxed);
}

/// Throws Cancelled when the flag of this thread's CancelScope is set (a few ns: call it every row).
inline void throw_if_cancelled(const std::atomic<bool>* flag) {
  if (cancel_requested(flag)) throw Cancelled();
}
void throw_if_cancelled();

}  // namespace mixgraph
