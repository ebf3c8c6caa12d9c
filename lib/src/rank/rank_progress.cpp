// The thread's cut-rank progress hook (mixgraph/rank_progress.hpp).
#include "mixgraph/rank_progress.hpp"

namespace mixgraph {

namespace {
thread_local const CutProgressHook* t_hook = nullptr;
}  // namespace

CutProgressScope::CutProgressScope(const CutProgressHook* hook) : saved_(t_hook) {
  t_hook = hook;
}
CutProgressScope::~CutProgressScope() {
  t_hook = saved_;
}
const CutProgressHook* cut_progress_hook() {
  return t_hook;
}

}  // namespace mixgraph
