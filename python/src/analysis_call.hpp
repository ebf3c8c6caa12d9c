#pragma once
// The analyses of mixgraph_analysis (analysis/) called from Python as the CLI's commands call them: option
// values converted and checked as the CLI's options are (messages name the CLI's options, which
// python/mixgraph/_analysis.py replaces by the Python argument names), and the work run on a worker thread
// (interrupt.hpp: progress, Ctrl-C) with the effect of --threads and --mem-limit.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common.hpp"
#include "interrupt.hpp"

namespace mixgraph::py {

/// `text` as CLI11 converts an option's value to an unsigned 64-bit integer; UsageError "Could not convert:
/// <flag> = <text>" as the CLI's.
std::uint64_t cli_u64(const std::string& text, const std::string& flag);
/// The same for a double.
double cli_double(const std::string& text, const std::string& flag);
/// A count option's text as the CLI's count_text() check takes it ("2^20", "1e6"): UsageError "<flag>:
/// <reason>" as the CLI's; the value is parsed later by the query's own parse_count.
void cli_count_text(const std::string& text, const std::string& flag);
/// A count option checked and converted as the CLI's checked_count() does (seed: allow_zero).
std::uint64_t cli_checked_count(const std::string& text, const std::string& flag, bool allow_zero);
/// A pattern spec option as the CLI's pattern_spec() check takes it: a piece that is a file name (`B.mtx`
/// without `mtx:`) is refused with the CLI's hint.
void cli_pattern_spec(const std::string& spec, const std::string& flag);
/// An option that takes one of `choices` (CLI11's IsMember): "<flag>: <text> not in {a,b,c}".
void cli_member(const std::string& text, const std::vector<std::string>& choices, const std::string& flag);
/// --threads: CLI11's int conversion and the CLI's range check (0 = all cores .. 1024).
int cli_threads(const std::string& text);
/// --mem-limit: "" = none (0: the physical memory), else parse_memory_size ("8G").
std::uint64_t cli_mem_limit(const std::string& text);

/// Runs work(job) on a worker thread (run_interruptible: the GIL released, progress(stage, done, total) and
/// Ctrl-C as in interrupt.hpp) as the CLI runs a command: with OpenMP's thread count `threads` (0: all
/// cores; a process limit met first, as a clear error) and `mem_limit` as the default memory limit, and with
/// SIGXFSZ ignored so that a write past a file-size limit fails with its file named.
void run_analysis(int threads, std::uint64_t mem_limit, const pb::object& progress, std::int64_t total,
                  const std::function<void(Job&)>& work);

/// A result document as Python objects (dict, list, int, float, str, bool, None).
pb::object document_to_py(const nlohmann::ordered_json& j);

void bind_gallery(pb::module_& m);
void bind_stack(pb::module_& m);
void bind_report(pb::module_& m);

}  // namespace mixgraph::py
