// Option values and the worker thread of the analyses called from Python (analysis_call.hpp).
#include "analysis_call.hpp"

#include <omp.h>
#include <signal.h>

#include <CLI/CLI.hpp>

#include "json_py.hpp"
#include "mixgraph/analysis/option_checks.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/spec_files.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::py {

std::uint64_t cli_u64(const std::string& text, const std::string& flag) {
  std::uint64_t v = 0;
  if (!CLI::detail::lexical_cast(text, v)) throw UsageError("Could not convert: " + flag + " = " + text);
  return v;
}

double cli_double(const std::string& text, const std::string& flag) {
  double v = 0;
  if (!CLI::detail::lexical_cast(text, v)) throw UsageError("Could not convert: " + flag + " = " + text);
  return v;
}

void cli_count_text(const std::string& text, const std::string& flag) {
  if (const std::string why = analysis::count_text_problem(text); !why.empty())
    throw UsageError(flag + ": " + why);
}

std::uint64_t cli_checked_count(const std::string& text, const std::string& flag, bool allow_zero) {
  std::uint64_t v = 0;
  if (const std::string why = analysis::checked_count_problem(text, allow_zero, v); !why.empty())
    throw UsageError(flag + ": " + why);
  return v;
}

void cli_pattern_spec(const std::string& spec, const std::string& flag) {
  const std::string hint = spec_file_name_hint(spec);
  if (!hint.empty()) throw UsageError(flag + ": " + hint);
}

void cli_member(const std::string& text, const std::vector<std::string>& choices, const std::string& flag) {
  if (const std::string why = analysis::member_problem(text, choices); !why.empty())
    throw UsageError(flag + ": " + why);
}

int cli_threads(const std::string& text) {
  int v = 0;
  if (!CLI::detail::lexical_cast(text, v)) throw UsageError("Could not convert: --threads = " + text);
  if (const std::string why = analysis::threads_problem(v); !why.empty())
    throw UsageError("--threads " + why);
  return v;
}

std::uint64_t cli_mem_limit(const std::string& text) {
  return text.empty() ? 0 : parse_memory_size(text);
}

namespace {
/// SIGXFSZ ignored while alive (a write past RLIMIT_FSIZE fails with EFBIG instead of ending the process);
/// CPython ignores it already, an embedding may not.
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
};
}  // namespace

void run_analysis(int threads, std::uint64_t mem_limit, const pb::object& progress, std::int64_t total,
                  const std::function<void(Job&)>& work) {
  ensure_threads(threads);
  run_interruptible(
      [threads, mem_limit, work](Job& job) {
        const IgnoreXfsz ignore_xfsz;
        set_default_mem_limit(mem_limit);  // as the CLI's --mem-limit: the file readers' limit too
        if (threads > 0) omp_set_num_threads(threads);  // this worker thread's parallel regions
        work(job);
      },
      progress, total, {});
}

pb::object document_to_py(const nlohmann::ordered_json& j) {
  return json_to_py(j);
}

}  // namespace mixgraph::py
