#include "report_shards.hpp"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mixgraph/atomic_file.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/stack.hpp"
#include "shard_run.hpp"

namespace mixgraph::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

/// A private temporary folder under TMPDIR, "mixgraph-report-section.<host>.<pid>.XXXXXX", removed with
/// everything in it when this goes. Folders of this host's processes that no longer run (a rank killed
/// mid-section) are removed first.
class TempDir {
 public:
  TempDir() {
    const fs::path tmp = fs::temp_directory_path();
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const std::string prefix = std::string("mixgraph-report-section.") + host + ".";
    std::error_code ec;
    for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.compare(0, prefix.size(), prefix) != 0) continue;
      const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
      std::error_code rec;
      if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
        fs::remove_all(it->path(), rec);
    }
    std::string tmpl = (tmp / (prefix + std::to_string(::getpid()) + ".XXXXXX")).string();
    if (!::mkdtemp(tmpl.data()))
      throw RuntimeFailure("cannot create a temporary folder for a report section in '" + tmp.string() +
                           "': " + std::strerror(errno));
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw RuntimeFailure("cannot read back the report file '" + p.string() + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// n / 1024 to the power a: the models below are seconds at n = 1024 times this.
double scaled(std::uint64_t n, double a) {
  return std::pow(static_cast<double>(std::max<std::uint64_t>(n, 1)) / 1024.0, a);
}

}  // namespace

double report_section_cost(const std::string& id, const ReportParams& P,
                           const std::vector<PatternRun>& runs) {
  // Seconds per pattern at n = 1024 (c) and the growth exponent over n (a): least squares on the
  // `seconds` of report.json's sections for pow2, sq1+cache and pow2+cache at n = 256, 512 and 1024, one
  // thread (docs/scaling.md, "report"). Capped parts (heatmaps above --heatmap-cap, |M| above --dense-cap,
  // all-pairs above --all-pairs-cap) cost next to nothing; the 1e-3 floor keeps every section a shard of
  // some cost. Only the ratios matter to the plan.
  double total = 1e-3;
  if (id == "verify") return total + 63.0 * scaled(P.n, 1.2);  // the claims at --n-max n, once
  if (id == "stacks") {  // not measured yet: about one congestion and one rank section per layer
    for (const auto& spec : P.patterns)
      if (is_stack_spec(spec))
        total += 3.0 * static_cast<double>(stack_layer_specs(spec).size()) * scaled(P.n, 1.2);
    return total;
  }
  for (const auto& r : runs) {
    const std::uint64_t n = r.pattern.n;
    if (id == "summary")
      total += 0.02;
    else if (id == "profile")
      total += 0.3 * scaled(n, 0.2);
    else if (id == "masks")
      total += n <= P.heatmap_cap ? 1.5 * scaled(n, 1.6) : 0.0;
    else if (id == "operator")
      total += n <= P.dense_cap ? 2.0 * scaled(n, 1.7) : 0.0;
    else if (id == "distances")
      total += r.pattern.translation_invariant() || n > P.all_pairs_cap ? 0.3 * scaled(n, 1.0)
                                                                        : 1.2 * scaled(n, 1.1);
    else if (id == "congestion")
      total += 1.9 * scaled(n, 0.2);
    else if (id == "ranks")
      total += 1.25 * scaled(std::min<std::uint64_t>(n, std::max(P.rank_cap, P.rank_cuts)), 1.5);
    else if (id == "validation")
      total += 2.8 * scaled(n, 2.0);
    else
      total += 1.0 * scaled(n, 1.0);  // a section without a model yet
  }
  return total;
}

std::optional<std::vector<SectionOutcome>> run_report_section_shards(
    const std::vector<const ReportSection*>& todo, const ReportParams& params, std::vector<PatternRun>& runs,
    double fig_width, FigureStyle style, const SectionStart& start,
    const std::function<void(std::size_t, const PatternRun&, const std::string&)>& progress) {
  struct Shard {
    std::size_t section;
    std::size_t unit;  ///< kWhole: the whole section
  };
  constexpr std::size_t kWhole = static_cast<std::size_t>(-1);
  std::vector<Shard> shards;
  std::vector<double> costs;
  std::vector<std::vector<std::string>> unit_names(todo.size());
  for (std::size_t i = 0; i < todo.size(); ++i) {
    const double cost = report_section_cost(todo[i]->id, params, runs);
    if (todo[i]->units) unit_names[i] = todo[i]->units(params);
    if (unit_names[i].empty()) {
      shards.push_back({i, kWhole});
      costs.push_back(cost);
    }
    std::vector<double> unit_costs;  // the units' own model, else equal shares of the section's
    if (todo[i]->unit_costs && !unit_names[i].empty()) unit_costs = todo[i]->unit_costs(params);
    if (unit_costs.size() != unit_names[i].size())
      unit_costs.assign(unit_names[i].size(), cost / static_cast<double>(unit_names[i].size()));
    for (std::size_t u = 0; u < unit_names[i].size(); ++u) {
      shards.push_back({i, u});
      costs.push_back(unit_costs[u]);
    }
  }
  auto got = run_item_shards("report sections", "", costs, "", {}, [&](std::size_t k) {
    const std::size_t i = shards[k].section;
    if (shards[k].unit != kWhole) {
      const std::size_t u = shards[k].unit;
      start(i, todo[i]->title + ": " + unit_names[i][u]);
      const auto t0 = std::chrono::steady_clock::now();
      std::string bytes = todo[i]->unit(params, runs, u);
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const auto cbor = Json::to_cbor(
          {{"unit", Json::binary(std::vector<std::uint8_t>(bytes.begin(), bytes.end()))}, {"seconds", secs}});
      return std::string(cbor.begin(), cbor.end());
    }
    const ReportSection& s = *todo[i];
    start(i, s.title);
    const auto t0 = std::chrono::steady_clock::now();
    TempDir tmp;
    ReportWriter out(tmp.path());
    out.figure_look(fig_width, style);
    out.section(s.id, s.title, s.order);
    std::map<std::string, std::map<std::string, Cell>> table1;
    Json results = Json::object();
    ReportContext ctx{params,
                      runs,
                      out,
                      table1,
                      results,
                      [&](const PatternRun& r, const std::string& stage) { progress(i, r, stage); },
                      [&](const std::string& what) { start(i, what); }};
    s.run(ctx);
    Json cells = Json::object();
    for (const auto& [spec, cols] : table1)
      for (const auto& [col, c] : cols)
        cells[spec][col] =
            Json::array({static_cast<int>(c.kind), c.i, std::bit_cast<std::uint64_t>(c.d), c.s, c.digits});
    Json files = Json::array();
    for (const auto& rel : out.files())
      files.push_back(Json::array({rel, Json::binary(std::vector<std::uint8_t>([&] {
                                     const std::string b = read_all(fs::path(tmp.path()) / rel);
                                     return std::vector<std::uint8_t>(b.begin(), b.end());
                                   }()))}));
    const Json outcome = {
        {"state", out.export_section(s.id)},
        {"files", std::move(files)},
        {"table1", std::move(cells)},
        {"results", std::move(results)},
        {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
    const auto cbor = Json::to_cbor(outcome);
    return std::string(cbor.begin(), cbor.end());
  });
  if (!got) return std::nullopt;
  std::vector<SectionOutcome> out(todo.size());
  for (std::size_t k = 0; k < shards.size(); ++k) {
    auto& o = out[shards[k].section];
    if (shards[k].unit == kWhole) {
      o.whole = std::move((*got)[k]);
      continue;
    }
    Json u;
    try {
      u = Json::from_cbor((*got)[k]);
    } catch (const Json::exception& e) {
      throw RuntimeFailure(std::string("a report section's unit arrived malformed from its rank: ") +
                           e.what());
    }
    const auto& b = u.at("unit").get_binary();
    o.units.emplace_back(b.begin(), b.end());
    o.seconds += u.at("seconds").get<double>();
  }
  return out;
}

Json import_report_section(const std::string& outcome, ReportWriter& out,
                           std::map<std::string, std::map<std::string, Cell>>& table1, double& seconds) {
  Json o;
  try {
    o = Json::from_cbor(outcome);
  } catch (const Json::exception& e) {
    throw RuntimeFailure(std::string("a report section arrived malformed from its rank: ") + e.what());
  }
  for (const auto& f : o.at("files")) {
    const auto& b = f.at(1).get_binary();
    write_file_atomic((fs::path(out.dir()) / f.at(0).get<std::string>()).string(),
                      std::string(b.begin(), b.end()));
  }
  out.import_section(o.at("state"));
  for (const auto& [spec, cols] : o.at("table1").items())
    for (const auto& [col, c] : cols.items()) {
      Cell cell;
      cell.kind = static_cast<Cell::Kind>(c.at(0).get<int>());
      cell.i = c.at(1).get<std::int64_t>();
      cell.d = std::bit_cast<double>(c.at(2).get<std::uint64_t>());
      cell.s = c.at(3).get<std::string>();
      cell.digits = c.at(4).get<int>();
      table1[spec][col] = cell;
    }
  seconds = o.at("seconds").get<double>();
  return o.at("results");
}

}  // namespace mixgraph::cli
