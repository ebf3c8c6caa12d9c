// Starting threads that live at the same time, to meet a thread limit before OpenMP does (thread_probe.hpp).
#include "mixgraph/thread_probe.hpp"

#include <future>
#include <system_error>
#include <thread>
#include <vector>

namespace mixgraph {

ThreadProbe probe_threads(int count) {
  ThreadProbe out;
  std::vector<std::thread> started;
  std::promise<void> go;
  std::shared_future<void> wait = go.get_future().share();
  for (int k = 0; k < count; ++k) {
    try {
      started.emplace_back([wait] { wait.wait(); });
    } catch (const std::system_error& e) {
      out.failure = e.what();
      break;
    }
  }
  go.set_value();
  for (auto& t : started) t.join();
  out.started = started.size();
  return out;
}

}  // namespace mixgraph
