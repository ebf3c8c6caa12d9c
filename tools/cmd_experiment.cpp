// mixgraph experiment: the training experiments of the Python package (docs/experiments.md), run by
// replacing this process with `python3 -c <bootstrap> ARGS...`: the same arguments, the same output and
// exit codes as `python3 -m mixgraph.experiments ARGS...`. `--python PATH` names another interpreter
// (MIXGRAPH_PYTHON, the older way, is read when --python is not given).
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
    "same arguments; that module's --help lists the options, and docs/experiments.md describes\n"
    "them. --python PATH runs another interpreter (default: python3; the environment variable\n"
    "MIXGRAPH_PYTHON is read when --python is not given). It needs Python 3 with the mixgraph\n"
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
      "                     'give --python the interpreter that has them, or set PYTHONPATH\\n')\n"
      "    sys.exit(1)\n"
      "sys.exit(main(sys.argv[1:], prog='mixgraph experiment'))\n";
  return code;
}

/// The interpreter: --python PATH (or --python=PATH) taken out of args, else MIXGRAPH_PYTHON, else python3.
std::string take_python(std::vector<std::string>& args) {
  std::string python;
  bool given = false;
  for (std::size_t i = 0; i < args.size();) {
    std::string value;
    std::size_t used = 0;
    if (args[i] == "--python") {
      if (i + 1 >= args.size())
        throw UsageError(
            "--python needs the path of a Python 3 interpreter (for example --python /usr/bin/python3)");
      value = args[i + 1];
      used = 2;
    } else if (args[i].rfind("--python=", 0) == 0) {
      value = args[i].substr(9);
      used = 1;
    } else {
      ++i;
      continue;
    }
    if (value.empty())
      throw UsageError("--python needs the path of a Python 3 interpreter (got an empty path)");
    if (given && value != python)
      throw UsageError("--python was given twice ('" + python + "' and '" + value + "'): give it once");
    python = value;
    given = true;
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
               args.begin() + static_cast<std::ptrdiff_t>(i + used));
  }
  if (given) return python;
  const char* env = std::getenv("MIXGRAPH_PYTHON");  // the older way to name it (an alias of --python)
  return (env != nullptr && *env != '\0') ? env : "python3";
}

int run_experiment(std::vector<std::string> args) {
  const std::string python = take_python(args);
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
            << "); give --python the path of a Python 3 interpreter with the mixgraph package and PyTorch\n";
  return 1;
}

Registrar reg_cmd_experiment(
    "experiment",
    "Train one model per pattern on copy / recall / multi-hop tasks and compare held-out accuracy with the "
    "graph's predictions (runs python3 -m mixgraph.experiments, or the interpreter --python PATH names; "
    "'mixgraph experiment --help' lists its options)",
    100, [](CLI::App& app) -> std::function<int()> {
      // every argument, --help included, goes to the Python module unparsed
      app.set_help_flag();
      app.prefix_command();
      return [&app] { return run_experiment(app.remaining()); };
    });

}  // namespace
}  // namespace mixgraph::cli
