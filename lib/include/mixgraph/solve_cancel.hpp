#pragma once
// Stopping a CPU solve early: the general CancelScope (cancel.hpp) under its earlier names. solve_mixer
// polls the flag between blocks of rows of each tile (every few thousand rows, never inside the inner
// loops) and returns early once it is set, leaving Y part-written.
#include "mixgraph/cancel.hpp"

namespace mixgraph {

/// While alive, solve_mixer calls made from this thread poll *flag and stop early once it is true (Y is then
/// unspecified). Scopes nest; the flag must outlive the scope.
using SolveCancelScope = CancelScope;

/// The flag of the innermost SolveCancelScope on this thread, or nullptr.
inline const std::atomic<bool>* solve_cancel_flag() {
  return cancel_flag();
}

}  // namespace mixgraph
