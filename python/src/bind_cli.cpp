// The CLI's commands run in-process for what does not yet call analysis/ directly (report, gallery, the
// stack: functions): the same code as the `mixgraph` executable (tools/, linked in as an object library),
// its JSON output captured and handed to python/mixgraph/_commands.py. One command at a time (std::cout is
// redirected meanwhile). validate, verify, the sweeps and rank loglinear/ssm/heads: bind_analysis.cpp.
#include <pybind11/stl.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

#include "common.hpp"
#include "interrupt.hpp"
#include "mixgraph/error.hpp"
#include "registry.hpp"
#include "stage_hook.hpp"

namespace mixgraph::py {
namespace {

std::mutex g_cli_m;  ///< one command at a time: std::cout and the stage hook are process-wide

struct CliRun {
  int code = 0;
  std::string out;
};

/// Parses and runs `mixgraph <args>` as main.cpp does, with std::cout captured. Throws mixgraph's errors.
void run_command(const std::vector<std::string>& args, CliRun& res, Job& job) {
  std::lock_guard<std::mutex> lock(g_cli_m);
  // Past a file-size limit (RLIMIT_FSIZE) a write must fail with EFBIG, reported with the file's name and
  // its temporary file removed, as in the CLI (main.cpp), not kill the interpreter with SIGXFSZ. CPython
  // ignores SIGXFSZ at start-up, but an embedding or a user's signal.signal() may have restored the
  // default: it is ignored for the command's duration and put back after it.
  struct IgnoreXfsz {
    struct sigaction old {};
    IgnoreXfsz() {
      struct sigaction ign {};
      ign.sa_handler = SIG_IGN;
      sigemptyset(&ign.sa_mask);
      sigaction(SIGXFSZ, &ign, &old);
    }
    ~IgnoreXfsz() { sigaction(SIGXFSZ, &old, nullptr); }
    IgnoreXfsz(const IgnoreXfsz&) = delete;
    IgnoreXfsz& operator=(const IgnoreXfsz&) = delete;
  } ignore_xfsz;
  CLI::App app{"mixgraph", "mixgraph"};
  app.require_subcommand(1);
  auto reg = cli::registry();
  std::sort(reg.begin(), reg.end(), [](auto& a, auto& b) { return a.order < b.order; });
  std::vector<std::pair<CLI::App*, std::function<int()>>> runners;
  for (auto& e : reg) {
    CLI::App* sub = app.add_subcommand(e.name, e.description);
    runners.emplace_back(sub, e.setup(*sub));
  }
  std::vector<std::string> rev(args.rbegin(), args.rend());  // CLI11 takes them in reverse order
  try {
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  std::ostringstream captured;
  struct Restore {
    std::streambuf* saved;
    ~Restore() {
      std::cout.rdbuf(saved);
      cli::stage_hook() = nullptr;
      cli::step_hook() = nullptr;
    }
  } restore{std::cout.rdbuf(captured.rdbuf())};
  cli::stage_hook() = [&job](const std::string& what) { job.stage(what); };
  cli::step_hook() = [&job](const std::string& what, std::uint64_t done, std::uint64_t total) {
    job.step(what, done, total);
  };
  for (auto& [sub, run] : runners)
    if (sub->parsed()) {
      res.code = run();
      break;
    }
  std::cout.flush();
  res.out = captured.str();
}

pb::tuple cli_call(const std::vector<std::string>& args, const pb::object& progress, std::int64_t total) {
  auto res = std::make_shared<CliRun>();
  run_interruptible([args, res](Job& job) { run_command(args, *res, job); }, progress, total, {});
  return pb::make_tuple(res->code, res->out);
}

}  // namespace

void bind_cli(pb::module_& m) {
  m.def("_cli", &cli_call, pb::arg("args"), pb::arg("progress") = pb::none(), pb::arg("total") = -1,
        "Runs `mixgraph <args>` in-process; returns (exit code, stdout).");
}

}  // namespace mixgraph::py
