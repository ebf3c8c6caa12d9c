// Long calls from Python: a worker thread, Ctrl-C and progress on the calling thread (interrupt.hpp).
#include "interrupt.hpp"

#include <omp.h>

#include <chrono>
#include <memory>
#include <system_error>
#include <thread>

#include "mixgraph/cancel.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/thread_probe.hpp"

namespace mixgraph::py {

namespace {
std::mutex g_live_m;
std::condition_variable g_live_cv;
int g_live = 0;  ///< workers left running after an interrupt

constexpr auto kSlice = std::chrono::milliseconds(50);
constexpr auto kStopWait = std::chrono::milliseconds(400);  ///< how long an interrupt waits for a stage
}  // namespace

namespace {
/// At most this many events wait for the callback; beyond it the newest replaces the last (a sweep of
/// tiny points outrunning a slow callback).
constexpr std::size_t kMaxQueued = 4096;
}  // namespace

void Job::stage(const std::string& what) {
  {
    std::lock_guard<std::mutex> l(m_);
    ++stages_;
    Event e{what, stages_, -1};
    if (events_.size() < kMaxQueued)
      events_.push_back(std::move(e));
    else
      events_.back() = std::move(e);
  }
  if (cancel_.load()) throw Interrupted();
}

void Job::step(const std::string& what, std::uint64_t done, std::uint64_t total) {
  {
    std::lock_guard<std::mutex> l(m_);
    Event e{what, done, static_cast<std::int64_t>(total)};
    if (events_.size() < kMaxQueued)
      events_.push_back(std::move(e));
    else
      events_.back() = std::move(e);
  }
  if (cancel_.load()) throw Interrupted();
}

namespace {
std::atomic<int> g_threads_started{1};  ///< the most threads a probe (or a worker) started at once

std::string limit_message(int count, std::size_t started, const std::string& why, const char* name) {
  const std::string fewer = std::to_string(started > 0 ? started : 1);
  return "cannot start " + std::to_string(count) + " worker threads (started " + std::to_string(started) +
         ": " + why +
         "); a process or thread limit (ulimit -u, a container's pids limit) is in the way: give " + name +
         "=" + fewer + " or fewer (or set OMP_NUM_THREADS=" + fewer + " before the import)";
}
}  // namespace

void ensure_threads(int count, const char* name) {
  if (count <= 0) count = omp_get_max_threads();
  if (count <= g_threads_started.load()) return;
  ThreadProbe probe;
  {
    pb::gil_scoped_release nogil;
    probe = probe_threads(count);
  }
  if (!probe.failure.empty()) throw RuntimeFailure(limit_message(count, probe.started, probe.failure, name));
  int seen = g_threads_started.load();
  while (seen < count && !g_threads_started.compare_exchange_weak(seen, count)) {
  }
}

void run_interruptible(const std::function<void(Job&)>& work, const pb::object& progress, std::int64_t total,
                       std::vector<pb::object> keep_alive) {
  auto job = std::make_shared<Job>();
  job->keep_ = std::move(keep_alive);
  std::thread worker;
  try {
    worker = std::thread([job, work] {
      try {
        // the library's long loops (pattern construction, all-pairs, routings, solves) poll the job's flag
        const CancelScope cancel(&job->cancel_);
        work(*job);
      } catch (...) {
        job->error_ = std::current_exception();
      }
      bool detached = false;
      {
        std::lock_guard<std::mutex> l(job->m_);
        job->done_ = true;
        detached = job->detached_;
      }
      job->cv_.notify_all();
      if (detached) {  // nobody waits for this job: release its Python objects here, with the GIL
        {
          pb::gil_scoped_acquire gil;
          job->keep_.clear();
          job->error_ = nullptr;
        }
        std::lock_guard<std::mutex> l(g_live_m);
        --g_live;
        g_live_cv.notify_all();
      }
    });
  } catch (const std::system_error& e) {  // the worker itself cannot start (ulimit -u)
    throw RuntimeFailure(
        std::string("cannot start a worker thread (") + e.what() +
        "); a process or thread limit (ulimit -u, a container's pids limit) is in the way: raise "
        "it, or end other processes of this user");
  }
  auto report = [&] {
    if (progress.is_none()) return;
    std::vector<Job::Event> events;
    {
      std::lock_guard<std::mutex> l(job->m_);
      events.swap(job->events_);
    }
    for (const auto& e : events) {
      const std::int64_t t = e.total < 0 ? total : e.total;
      progress(e.what, e.done, t < 0 ? pb::object(pb::none()) : pb::object(pb::int_(t)));
    }
  };
  // Asks the work to stop, waits a little for it, and leaves it running (detached) if it does not stop.
  auto stop = [&] {
    job->cancel_ = true;
    bool finished = false;
    {
      pb::gil_scoped_release release;
      std::unique_lock<std::mutex> l(job->m_);
      finished = job->cv_.wait_for(l, kStopWait, [&] { return job->done_; });
      if (!finished) {
        job->detached_ = true;
        std::lock_guard<std::mutex> g(g_live_m);
        ++g_live;
      }
    }
    if (finished) {
      worker.join();
      job->keep_.clear();
    } else {
      worker.detach();
    }
  };
  for (;;) {
    bool finished = false;
    {
      pb::gil_scoped_release release;
      std::unique_lock<std::mutex> l(job->m_);
      finished = job->cv_.wait_for(l, kSlice, [&] { return job->done_; });
    }
    try {
      report();
      if (!finished && PyErr_CheckSignals() != 0) throw pb::error_already_set();
    } catch (...) {
      stop();
      throw;
    }
    if (finished) break;
  }
  worker.join();
  job->keep_.clear();
  if (job->error_) std::rethrow_exception(job->error_);
}

void bind_interrupt(pb::module_& m) {
  m.def(
      "_wait_for_interrupted_work",
      [] {
        pb::gil_scoped_release release;
        std::unique_lock<std::mutex> l(g_live_m);
        g_live_cv.wait(l, [] { return g_live == 0; });
      },
      "Waits for work left running after Ctrl-C (registered with atexit).");
  pb::module_::import("atexit").attr("register")(m.attr("_wait_for_interrupted_work"));
}

}  // namespace mixgraph::py
