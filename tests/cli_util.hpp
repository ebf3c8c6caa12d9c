#pragma once
// Runs the built mixgraph CLI (MIXGRAPH_CLI) in a shell and captures exit code, stdout and stderr. Every test
// that starts the CLI gets its path from cli_path(), which keeps the "unit" label honest.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace mixgraph::test {

struct CliResult {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A file's bytes, read in binary ("" when it cannot be opened).
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs a shell command; returns its exit status, or -1 when it did not exit normally.
inline int run(const std::string& cmd) {
  const int st = std::system(cmd.c_str());
  return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/// The built CLI's path, for a test that starts it. ctest tells each GoogleTest test its layer label in
/// MIXGRAPH_TEST_LAYER (tests/CMakeLists.txt); a "unit" test is the library alone, so starting the CLI fails
/// it.
inline std::string cli_path() {
  const char* layer = std::getenv("MIXGRAPH_TEST_LAYER");
  if (layer != nullptr && std::string(layer) == "unit")
    ADD_FAILURE() << "this test starts the mixgraph CLI but is labelled \"unit\": list it in "
                     "MIXGRAPH_CLI_GTESTS (tests/CMakeLists.txt)";
  return MIXGRAPH_CLI;
}

/// `args` is appended to the CLI path verbatim (quote it yourself where needed).
inline CliResult run_cli(const std::string& args) {
  namespace fs = std::filesystem;
  static int counter = 0;
  const auto base = fs::temp_directory_path() /
                    ("mixgraph_cli_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  const std::string out = base.string() + ".out", err = base.string() + ".err";
  const std::string cmd = cli_path() + " " + args + " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

}  // namespace mixgraph::test
