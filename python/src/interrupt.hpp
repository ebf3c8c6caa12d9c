#pragma once
// Long calls from Python: the work runs on a worker thread with the GIL released while the calling thread
// waits in short slices, taking the GIL back between them to look for Ctrl-C (PyErr_CheckSignals) and to
// report progress. Ctrl-C raises KeyboardInterrupt within a slice; the work is asked to stop: at its next
// stage (a throw of Interrupted there unwinds it like an error, so nothing half-written is left) and in the
// library's long loops, which poll the same flag through a CancelScope (mixgraph/cancel.hpp).
#include <pybind11/pybind11.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace mixgraph::py {

namespace pb = pybind11;

/// Thrown at a stage of work that was asked to stop.
struct Interrupted : std::exception {
  const char* what() const noexcept override { return "interrupted"; }
};

/// What the work and the waiting thread share. The work calls stage() between its stages and step() after
/// each point inside one (a sweep's rows); every call is handed to the progress callback in order.
class Job {
 public:
  /// Records a stage (for progress) and throws Interrupted when the call was asked to stop.
  void stage(const std::string& what);
  /// Records progress inside a stage (done of total points) and throws Interrupted when asked to stop.
  void step(const std::string& what, std::uint64_t done, std::uint64_t total);
  bool cancelled() const { return cancel_.load(); }
  /// The flag long kernels poll to stop early (set with the stop request; never cleared).
  const std::atomic<bool>& cancel_flag() const { return cancel_; }

 private:
  friend void run_interruptible(const std::function<void(Job&)>& work, const pb::object& progress,
                                std::int64_t total, std::vector<pb::object> keep_alive);
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  bool detached_ = false;
  std::exception_ptr error_;
  struct Event {
    std::string what;
    std::uint64_t done;
    std::int64_t total;  ///< < 0: the caller's total (stages)
  };
  std::vector<Event> events_;  ///< not yet handed to the progress callback
  std::uint64_t stages_ = 0;
  std::atomic<bool> cancel_{false};
  std::vector<pb::object> keep_;  ///< Python objects the work reads or writes (released with the GIL)
};

/// Runs work(job) on a worker thread and waits for it (GIL released, 50 ms slices). progress: None, or a
/// callable progress(stage: str, done: int, total: int | None) called on this thread when the stage
/// changes (total < 0: unknown). On Ctrl-C (or an exception from progress) the work is asked to stop and
/// the exception is raised here within a slice; work still inside a stage then finishes on its own, with
/// keep_alive (the buffers it touches) held until it does, and its results are dropped. Errors of the
/// work are rethrown here.
void run_interruptible(const std::function<void(Job&)>& work, const pb::object& progress, std::int64_t total,
                       std::vector<pb::object> keep_alive);

/// run_interruptible without progress: work() runs on the worker thread inside a CancelScope on the job's
/// flag (as every run_interruptible work does), so that the library's long loops stop within milliseconds of
/// Ctrl-C and no thread keeps working. work must own (by value or shared_ptr) everything it touches.
template <class F>
void run_cancellable(F work) {
  run_interruptible([work](Job&) mutable { work(); }, pb::none(), -1, {});
}

/// Starts `count` threads that live at the same time (the worker and an OpenMP team of count - 1; 0 = the
/// OpenMP default), then ends them: a process or thread limit (ulimit -u, a container's pids limit) is met
/// here as a RuntimeFailure naming the threads that could start, instead of inside the OpenMP runtime, which
/// prints its own line and ends the interpreter. A count that once started is not probed again.
void ensure_threads(int count, const char* name = "threads");

/// Registers the exit hook that waits for work left running after an interrupt (call once, at import).
void bind_interrupt(pb::module_& m);

}  // namespace mixgraph::py
