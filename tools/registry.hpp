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

/// Adds every registered command to `app` as a subcommand, in registry order; returns each subcommand with
/// the function that runs it. main() and the option-grammar test build the CLI through this one function.
std::vector<std::pair<CLI::App*, std::function<int()>>> add_registered_commands(CLI::App& app);

/// Old spellings CLI11 cannot hold as option names beside the new ones (`rank heads --p`, which would clash
/// with `-p`): rewritten to the new spelling before parsing. Listed in docs/cli.md's alias table.
struct ArgRewrite {
  std::vector<std::string> command;  ///< the subcommand path, e.g. {"rank", "heads"}
  std::string old_name, new_name;    ///< e.g. "--p" -> "--out-channels"
};
const std::vector<ArgRewrite>& arg_rewrites();
/// argv[1..] with arg_rewrites() applied (also the --old=value form).
std::vector<std::string> rewrite_old_spellings(const std::vector<std::string>& args);

struct Registrar {
  Registrar(std::string name, std::string description, int order, Setup setup) {
    registry().push_back({std::move(name), std::move(description), order, std::move(setup)});
  }
};

}  // namespace mixgraph::cli
