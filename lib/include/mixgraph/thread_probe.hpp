#pragma once
// Meeting a process or thread limit (ulimit -u, a container's pids limit) before OpenMP does: a front end
// starts the threads its parallel regions will want, all alive at once, and on failure says how many it got
// (the OpenMP runtime would print its own line and end the process instead).
//
//   auto probe = mixgraph::probe_threads(omp_get_max_threads() - 1);  // besides the calling thread
//   if (!probe.failure.empty()) ...  // probe.started threads started: ask for that many or fewer
#include <cstddef>
#include <string>

namespace mixgraph {

struct ThreadProbe {
  std::size_t started = 0;  ///< threads that started (all that were asked for when failure is empty)
  std::string failure;      ///< the system's reason when one did not start; empty when all did
};

/// Starts `count` threads that live at the same time (each only waits), then ends them; count <= 0 starts
/// none. O(count) thread starts, stopping at the first refused one. A refused thread is reported, never
/// thrown. Call it with no lock held that the threads could need (Python: the GIL released).
ThreadProbe probe_threads(int count);

}  // namespace mixgraph
