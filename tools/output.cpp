#include "output.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "mixgraph/analysis/format.hpp"
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/sweep.hpp"
#include "mixgraph/thread_probe.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace mixgraph::cli {

Format CommonOptions::fmt() const {
  if (format == "table") return Format::Table;
  if (format == "csv") return Format::Csv;
  if (format == "json") return Format::Json;
  throw UsageError("--format must be table, csv or json (got '" + format + "')");
}

bool is_mtx_spec(const std::string& spec) {
  return spec.rfind("mtx:", 0) == 0;
}

std::uint64_t pattern_n(const std::string& spec, const std::string& n_text, const std::string& hint) {
  if (!n_text.empty()) return parse_count(n_text, "--n");
  if (!is_mtx_spec(spec)) throw UsageError("--n is required (the number of tokens)" + hint);
  return 0;
}

std::uint64_t pattern_n(const PatternSpec& spec, const std::string& n_text, const std::string& hint) {
  if (!n_text.empty()) return parse_count(n_text, "--n");
  if (!spec.has_matrix()) throw UsageError("--n is required (the number of tokens)" + hint);
  return 0;
}

std::uint64_t CommonOptions::mem_limit_bytes() const {
  return mem_limit.empty() ? 0 : parse_memory_size(mem_limit);
}

namespace {

/// Meets a process or thread limit here with a clear message instead of later inside OpenMP: the calling
/// thread and `count - 1` more (thread_probe.hpp).
void require_threads(int count) {
  const ThreadProbe probe = mixgraph::probe_threads(count - 1);
  if (!probe.failure.empty())
    throw RuntimeFailure("cannot start " + std::to_string(count) + " worker threads (started " +
                         std::to_string(probe.started + 1) + ": " + probe.failure +
                         "); a process or thread limit (ulimit -u, a container's pids limit) is in the way: "
                         "give --threads " +
                         std::to_string(probe.started + 1) + " or fewer");
}

}  // namespace

void CommonOptions::apply() const {
  if (const std::string why = analysis::threads_problem(threads); !why.empty())
    throw UsageError("--threads " + why);
  set_default_mem_limit(mem_limit_bytes());
#ifdef _OPENMP
  if (threads > 0) omp_set_num_threads(threads);
  require_threads(omp_get_max_threads());
#endif
}

void add_common_options(CLI::App& app, CommonOptions& o, bool with_format) {
  if (with_format)
    app.add_option("--format", o.format, "Output format: table (for people), csv or json (for programs)")
        ->check(CLI::IsMember({"table", "csv", "json"}))
        ->default_val("table");
  app.add_option(
         "--threads", o.threads,
         "Worker threads for parallel parts (0 = all cores; at most " + std::to_string(kMaxThreads) + ")")
      ->default_val(0);
  app.add_option("--mem-limit", o.mem_limit,
                 "Refuse work whose memory estimate exceeds this (e.g. 8G); default: physical memory")
      ->type_name("SIZE");
}

ojson json_header(const std::string& command, int schema_version, const ojson& params) {
  return json::header(command, schema_version, params);
}

void print_json(std::ostream& os, const ojson& j) {
  json::print(os, j);
}

void Table::print_text(std::ostream& os) const {
  std::vector<std::size_t> w(header_.size(), 0);
  for (std::size_t c = 0; c < header_.size(); ++c) w[c] = header_[c].size();
  for (const auto& r : rows_)
    for (std::size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], r[c].size());
  auto line = [&](const std::vector<std::string>& r) {
    for (std::size_t c = 0; c < header_.size(); ++c) {
      const std::string cell = c < r.size() ? r[c] : "";
      os << cell;
      if (c + 1 < header_.size()) os << std::string(w[c] - cell.size() + 2, ' ');
    }
    os << "\n";
  };
  line(header_);
  std::vector<std::string> rule;
  for (auto x : w) rule.push_back(std::string(x, '-'));
  line(rule);
  for (const auto& r : rows_) line(r);
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void Table::print_csv(std::ostream& os) const {
  // a missing value reads `-` in text tables and is an empty cell in CSV (docs/formats.md)
  auto line = [&](const std::vector<std::string>& r) {
    for (std::size_t c = 0; c < r.size(); ++c)
      os << (c ? "," : "") << (r[c] == kMissingText ? "" : csv_escape(r[c]));
    os << "\n";
  };
  line(header_);
  for (const auto& r : rows_) line(r);
}

void print_kv(std::ostream& os, const std::vector<std::pair<std::string, std::string>>& kv) {
  std::size_t w = 0;
  for (const auto& [k, v] : kv) w = std::max(w, k.size());
  for (const auto& [k, v] : kv) os << k << std::string(w - k.size() + 2, ' ') << v << "\n";
}

std::string fmt_double(double v, int digits) {
  return analysis::fmt_double(v, digits);
}

std::string fmt_list(const std::vector<std::uint64_t>& v, std::size_t show) {
  std::string s;
  if (v.empty()) return "(none)";
  const std::size_t head = v.size() <= show ? v.size() : show - 1;
  for (std::size_t i = 0; i < head; ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  if (head < v.size())
    s += ", ..., " + std::to_string(v.back()) + " (showing " + std::to_string(head + 1) + " of " +
         std::to_string(v.size()) + "; --format json lists all)";
  return s;
}

bool stderr_is_tty() {
  return ::isatty(2) == 1;
}

}  // namespace mixgraph::cli
