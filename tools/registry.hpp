#pragma once
// Subcommand registry: each tools/cmd_*.cpp registers itself, so adding a command touches one file.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace mixgraph::cli {

/// Called with the subcommand's CLI::App; adds options and returns the function that runs it (exit code).
using Setup = std::function<std::function<int()>(CLI::App&)>;

struct CommandEntry {
  std::string name;
  std::string description;
  int order;
  Setup setup;
};

std::vector<CommandEntry>& registry();

struct Registrar {
  Registrar(std::string name, std::string description, int order, Setup setup) {
    registry().push_back({std::move(name), std::move(description), order, std::move(setup)});
  }
};

}  // namespace mixgraph::cli
