// Option values and the worker thread of the analyses called from Python (analysis_call.hpp).
#include "analysis_call.hpp"

#include <omp.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>

#include "json_py.hpp"
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

namespace {
std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}
/// parse_count's message without its "value" prefix (the CLI puts the option name in front).
std::string reason(const UsageError& e) {
  std::string m = e.what();
  if (m.rfind("value: ", 0) == 0)
    m.erase(0, 7);
  else if (m.rfind("value ", 0) == 0)  // "value must be >= 1 (got -1)"
    m.erase(0, 6);
  return m;
}
}  // namespace

void cli_count_text(const std::string& text, const std::string& flag) {
  try {
    parse_count(text, "value");
  } catch (const UsageError& e) {
    throw UsageError(flag + ": " + reason(e));
  }
}

std::uint64_t cli_checked_count(const std::string& text, const std::string& flag, bool allow_zero) {
  if (allow_zero && trim(text).rfind('-', 0) == 0)
    throw UsageError(flag + ": '" + text + "' is not in 0..2^64-1");
  std::uint64_t v = 0;
  try {
    v = parse_count(text, "value");
  } catch (const UsageError& e) {
    throw UsageError(flag + ": " + reason(e));
  }
  if (v == 0 && !allow_zero) throw UsageError(flag + ": '" + text + "' must be >= 1");
  return v;
}

void cli_pattern_spec(const std::string& spec, const std::string& flag) {
  const std::string hint = spec_file_name_hint(spec);
  if (!hint.empty()) throw UsageError(flag + ": " + hint);
}

void cli_member(const std::string& text, const std::vector<std::string>& choices, const std::string& flag) {
  if (std::find(choices.begin(), choices.end(), text) != choices.end()) return;
  std::string set;
  for (const auto& c : choices) set += (set.empty() ? "" : ",") + c;
  throw UsageError(flag + ": " + text + " not in {" + set + "}");
}

int cli_threads(const std::string& text) {
  int v = 0;
  if (!CLI::detail::lexical_cast(text, v)) throw UsageError("Could not convert: --threads = " + text);
  if (v < 0 || v > kMaxThreads)
    throw UsageError("--threads must be between 0 (all cores) and " + std::to_string(kMaxThreads) + " (got " +
                     std::to_string(v) + ")");
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
