// The subcommand registry and the stage hook: shared by the CLI's main.cpp and the Python module.
#include "registry.hpp"

#include "stage_hook.hpp"

namespace mixgraph::cli {

std::vector<CommandEntry>& registry() {
  static std::vector<CommandEntry> r;
  return r;
}

std::function<void(const std::string&)>& stage_hook() {
  static std::function<void(const std::string&)> h;
  return h;
}

}  // namespace mixgraph::cli
