// The calling thread's cancel flag (cancel.hpp).
#include "mixgraph/cancel.hpp"

namespace mixgraph {

namespace {
thread_local const std::atomic<bool>* t_cancel = nullptr;  ///< the innermost CancelScope's flag
}  // namespace

CancelScope::CancelScope(const std::atomic<bool>* flag) : saved_(t_cancel) {
  t_cancel = flag;
}
CancelScope::~CancelScope() {
  t_cancel = saved_;
}
const std::atomic<bool>* cancel_flag() {
  return t_cancel;
}
void throw_if_cancelled() {
  throw_if_cancelled(t_cancel);
}

}  // namespace mixgraph
