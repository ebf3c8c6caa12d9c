// mixgraph experiment: the training experiments of the Python package (docs/experiments.md), run by
// replacing this process with `python3 -c <bootstrap> ARGS...`: the same arguments, the same output and
// exit codes as `python3 -m mixgraph.experiments ARGS...`. MIXGRAPH_PYTHON names another interpreter.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "mixgraph/error.hpp"
#include "registry.hpp"
#include "stage_hook.hpp"

namespace mixgraph::cli {
namespace {

/// text as a Python string literal (repr of plain ASCII text: quotes, backslashes and newlines escaped)
std::string python_string(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\\' || c == '\'') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "'";
}

// What `mixgraph experiment --help` prints where the module cannot run (no Python, package or PyTorch).
constexpr const char* kExperimentHelp =
    "usage: mixgraph experiment [options]\n\n"
    "Trains one model per pattern on copy / recall / multi-hop tasks and compares held-out\n"
    "accuracy with the graph's predictions. It runs python3 -m mixgraph.experiments with the\n"
    "same arguments (MIXGRAPH_PYTHON names another interpreter); that module's --help lists the\n"
    "options, and docs/experiments.md describes them. It needs Python 3 with the mixgraph\n"
    "package and PyTorch, which are not available here:\n";

// Imports the module with a one-line error (exit 1) when the package or PyTorch is missing (--help: the
// help above and the reason, exit 0), then runs it.
const std::string& experiment_bootstrap() {
  static const std::string code =
      std::string(
          "import sys\n"
          "try:\n"
          "    from mixgraph.experiments.cli import main\n"
          "except ImportError as e:\n"
          "    if '--help' in sys.argv[1:] or '-h' in sys.argv[1:]:\n"
          "        sys.stdout.write(") +
      python_string(kExperimentHelp) +
      " + '  ' + str(e) + ' (' + sys.executable + ')\\n')\n"
      "        sys.exit(0)\n"
      "    sys.stderr.write('mixgraph: error: experiment needs the mixgraph Python package and '\n"
      "                     'PyTorch in ' + sys.executable + ' (' + str(e) + '); '\n"
      "                     'set MIXGRAPH_PYTHON or PYTHONPATH\\n')\n"
      "    sys.exit(1)\n"
      "sys.exit(main(sys.argv[1:], prog='mixgraph experiment'))\n";
  return code;
}

int run_experiment(const std::vector<std::string>& args) {
  // Run in-process by the Python package (the stage hook is set only there), exec would replace Python.
  if (stage_hook())
    throw UsageError(
        "experiment is not run in-process; from Python call mixgraph.experiments.run (docs/experiments.md)");
  const char* env = std::getenv("MIXGRAPH_PYTHON");
  const std::string python = (env != nullptr && *env != '\0') ? env : "python3";
  std::vector<std::string> words = {python, "-c", experiment_bootstrap()};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(words.size() + 1);
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  ::execvp(argv[0], argv.data());  // returns only on failure
  const int err = errno;
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      std::cout << kExperimentHelp << "  '" << python << "' cannot be started (" << std::strerror(err)
                << ")\n";
      return 0;
    }
  std::cerr << "mixgraph: error: experiment runs Python 3 with the mixgraph package and PyTorch, but '"
            << python << "' cannot be started (" << std::strerror(err)
            << "); set MIXGRAPH_PYTHON to the interpreter\n";
  return 1;
}

Registrar reg_cmd_experiment(
    "experiment",
    "Train one model per pattern on copy / recall / multi-hop tasks and compare held-out accuracy with the "
    "graph's predictions (runs python3 -m mixgraph.experiments; 'mixgraph experiment --help' lists its "
    "options)",
    100, [](CLI::App& app) -> std::function<int()> {
      // every argument, --help included, goes to the Python module unparsed
      app.set_help_flag();
      app.prefix_command();
      return [&app] { return run_experiment(app.remaining()); };
    });

}  // namespace
}  // namespace mixgraph::cli
