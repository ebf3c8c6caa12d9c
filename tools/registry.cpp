// The subcommand registry of the CLI's main.cpp.
#include "registry.hpp"

#include <algorithm>

namespace mixgraph::cli {

std::vector<CommandEntry>& registry() {
  static std::vector<CommandEntry> r;
  return r;
}

std::vector<std::pair<CLI::App*, std::function<int()>>> add_registered_commands(CLI::App& app) {
  auto& reg = registry();
  std::stable_sort(reg.begin(), reg.end(), [](auto& a, auto& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, std::function<int()>>> runners;
  for (auto& e : reg) {
    CLI::App* sub = app.add_subcommand(e.name, e.description);
    runners.emplace_back(sub, e.setup(*sub));
  }
  return runners;
}

const std::vector<ArgRewrite>& arg_rewrites() {
  static const std::vector<ArgRewrite> r = {{{"rank", "heads"}, "--p", "--out-channels"}};
  return r;
}

std::vector<std::string> rewrite_old_spellings(const std::vector<std::string>& args) {
  std::vector<std::string> out = args;
  for (const auto& rw : arg_rewrites()) {
    // the words of the subcommand path, in order, each before the options that follow it
    std::size_t at = 0, matched = 0;
    for (; at < out.size() && matched < rw.command.size(); ++at)
      if (out[at] == rw.command[matched]) ++matched;
    if (matched < rw.command.size()) continue;
    for (std::size_t k = at; k < out.size(); ++k) {
      if (out[k] == "--") break;  // what follows is not an option
      const bool eq = out[k].rfind(rw.old_name + "=", 0) == 0;
      if (out[k] != rw.old_name && !eq) continue;
      out[k] = rw.new_name + out[k].substr(rw.old_name.size());
    }
  }
  return out;
}

}  // namespace mixgraph::cli
