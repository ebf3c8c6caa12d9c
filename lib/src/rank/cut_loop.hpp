#pragma once
// The OpenMP loop over cuts of the numeric cut ranks (rank.cpp, rank_exact.cpp), with the thread's
// CutProgressScope hook (mixgraph/rank_progress.hpp): the master thread reports the finished cuts, and a
// throw from the hook stops the loop; and the same loop for cuts that may be cancelled or fail.
#ifdef _OPENMP
#include <omp.h>
#endif

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "mixgraph/cancel.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/rank_progress.hpp"

namespace mixgraph::detail {

/// The threads a cut loop may run on (a memory estimate's multiplier: each thread holds one cut's work).
inline int loop_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

inline int loop_thread() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/// Runs one_cut(c) for c = 0..nc-1 (OpenMP, dynamic schedule, one cut per chunk). The calling thread's
/// progress hook, if any, is called on that thread only, as hook(what, done, nc) for done = 1..nc in order;
/// when it throws, no further cut is started, and the exception is rethrown here once the cuts under way
/// have finished. one_cut must not throw (a throw inside the parallel region would terminate).
template <class F>
void for_each_cut(std::int64_t nc, const std::string& what, F&& one_cut) {
  const CutProgressHook* hook = cut_progress_hook();
  if (!hook || !*hook) {
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t c = 0; c < nc; ++c) one_cut(c);
    return;
  }
  const auto total = static_cast<std::uint64_t>(nc);
  std::atomic<std::uint64_t> done{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;    // written by the master thread only
  std::uint64_t reported = 0;  // likewise
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < nc; ++c) {
    if (stop.load(std::memory_order_relaxed)) continue;
    one_cut(c);
    const std::uint64_t d = done.fetch_add(1) + 1;
    if (loop_thread() == 0 && !error) {
      try {
        while (reported < d) (*hook)(what, ++reported, total);
      } catch (...) {
        error = std::current_exception();
        stop.store(true);
      }
    }
  }
  if (error) std::rethrow_exception(error);
  while (reported < total) (*hook)(what, ++reported, total);  // the cuts other threads finished last
}

/// for_each_cut over cuts that may be cancelled or fail: one_cut(ci) (ci a std::size_t) runs for each cut
/// that starts before `stop` (cancel_flag(), read by the caller: the cuts run on OpenMP threads) is set.
/// Cancelled or another exception thrown by one_cut stays inside the parallel region; once the cuts under
/// way have finished, Cancelled is thrown if any cut was cancelled, else RuntimeFailure with the first
/// failure's message.
template <class F>
void for_each_cut_guarded(std::int64_t nc, const std::string& what, const std::atomic<bool>* stop,
                          F&& one_cut) {
  std::string failure;
  std::atomic<bool> cancelled{false};
  for_each_cut(nc, what, [&](std::int64_t c) {
    try {
      if (cancel_requested(stop)) throw Cancelled();  // no cut starts once cancelled
      one_cut(static_cast<std::size_t>(c));
    } catch (const Cancelled&) {  // thrown again after the loop, not reported as a failure
      cancelled = true;
    } catch (const std::exception& e) {  // never let an exception leave the parallel region
#pragma omp critical(mixgraph_cut_failure)
      if (failure.empty()) failure = e.what();
    }
  });
  if (cancelled) throw Cancelled();
  if (!failure.empty()) throw RuntimeFailure(failure);
}

}  // namespace mixgraph::detail
