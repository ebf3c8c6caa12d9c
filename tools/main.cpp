// mixgraph — the command-line front end. Each subcommand lives in its own cmd_*.cpp and registers itself.
#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>

#include "mixgraph/atomic_file.hpp"
#include "mixgraph/build_info.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern_spec.hpp"
#include "mpi_world.hpp"
#include "registry.hpp"

namespace {
/// Under mpirun with several ranks: rank 0 prints the results, the others print nothing on stdout. An
/// error every rank meets alike (usage, bad data) is printed by rank 0 and every rank exits with its code;
/// any other failure is printed with its rank and ends the whole job (no rank waits for a dead one).
int fail(int code, const std::string& what) {
  using namespace mixgraph;
  const bool shared =
      code == static_cast<int>(ExitCode::Usage) || code == static_cast<int>(ExitCode::BadInput);
  if (cli::mpi::size() <= 1) {
    std::cerr << "mixgraph: error: " << what << "\n";
    return code;
  }
  if (shared) {
    if (cli::mpi::root()) std::cerr << "mixgraph: error: " << what << "\n";
    cli::mpi::finalize();
    return code;
  }
  std::cerr << "mixgraph: error on rank " << cli::mpi::rank() << " of " << cli::mpi::size() << ": " << what
            << "\n";
  cli::mpi::abort_job(code);
}

struct MpiScope {
  std::ofstream null_out;
  std::streambuf* saved = nullptr;
  MpiScope(int* argc, char*** argv) {
    mixgraph::cli::mpi::init(argc, argv);
    if (!mixgraph::cli::mpi::root()) saved = std::cout.rdbuf(null_out.rdbuf());  // an unopened file
  }
  ~MpiScope() {
    if (saved) std::cout.rdbuf(saved);
    mixgraph::cli::mpi::finalize();
  }
};
}  // namespace

int main(int argc, char** argv) {
  using namespace mixgraph;
  MpiScope mpi_scope(&argc, &argv);
  CLI::App app{
      "mixgraph: analyses the recurrence patterns of causal token mixers, y_i = sum_j a_ij x_j + sum_{j<i} "
      "b_ij y_j, as graphs.\nPositions are 1-indexed (token 1 is the first). Exit codes: 0 ok, 1 runtime "
      "failure, 2 usage error, 3 bad input data, 4 GPU required but absent.\nRun 'mixgraph <command> --help' "
      "for a command's options; docs/cli.md has examples.",
      "mixgraph"};
  app.set_version_flag("--version", "mixgraph " + mixgraph::version());
  app.require_subcommand(1);
  // parse errors in the one-line form of every other error
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "mixgraph: error: " + std::string(e.what()) + " (--help lists the options)\n";
  });
  const auto runners = cli::add_registered_commands(app);
  // For tests (docs/testing.md "Parse counts"): the number of pattern spec parses on stderr at the end, to
  // check that a command parses --pattern once. Hidden from --help (the empty group); before the command.
  bool count_spec_parses = false;
  app.add_flag("--count-spec-parses", count_spec_parses, "")->group("");
  try {
    // old spellings CLI11 cannot hold beside the new names; CLI11 takes the arguments last first
    auto args = cli::rewrite_old_spellings(std::vector<std::string>(argv + 1, argv + argc));
    std::reverse(args.begin(), args.end());
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // one line like every other error (CLI11's own text would add a second line and no prefix)
    return fail(static_cast<int>(ExitCode::Usage),
                std::string(e.what()) + " (see 'mixgraph --help' and 'mixgraph <command> --help')");
  }
  install_temp_file_cleanup();  // a signal removes the temporary files of writes in progress
  // a file-size limit (ulimit -f) makes a write fail with EFBIG, reported with the file's name and its
  // temporary file removed, instead of killing the process (SIGXFSZ) with the temporary file left behind
  std::signal(SIGXFSZ, SIG_IGN);
  struct ParseCount {
    bool on;
    ~ParseCount() {
      if (on) std::cerr << "mixgraph: pattern spec parses: " << spec_parse_count() << "\n";
    }
  } parse_count{count_spec_parses};
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run();
  } catch (const Error& e) {
    return fail(static_cast<int>(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return fail(static_cast<int>(ExitCode::Runtime),
                "out of memory; use a smaller n or set --mem-limit to be refused earlier");
  } catch (const std::filesystem::filesystem_error& e) {
    return fail(static_cast<int>(ExitCode::Runtime), e.code().message() + ": '" + e.path1().string() + "'");
  } catch (const std::exception& e) {
    // Not one of mixgraph's errors: a bug to report, not a message for the user's data.
    return fail(static_cast<int>(ExitCode::Runtime),
                std::string("internal error (") + e.what() + "); please report it with the command line");
  }
  return static_cast<int>(ExitCode::Usage);
}
