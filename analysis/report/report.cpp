// The report engine (report.hpp): parses the query, builds every pattern once, orders and runs the sections
// (report_section.hpp), writes Table 1, report.md, report.ipynb and report.json into a staging directory and
// swaps it in whole.
#include "mixgraph/analysis/report.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>

#include "mixgraph/analysis/format.hpp"
#include "mixgraph/analysis/report_staging.hpp"
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/atomic_file.hpp"
#include "mixgraph/build_info.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/stack.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::analysis {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

const std::vector<std::string> kDefaultPatterns = {"pow2", "pow2+cache", "sq1", "sq1+cache", "ssm"};

/// Table 1 columns (docs/math.md §6): each measured column beside the paper's entry. Sections fill the
/// measured ids through ReportContext::table1; "<id>_fit" cells (growth classes) are shown in brackets.
struct Table1Column {
  std::string id;
  std::string header;
};
const std::vector<Table1Column>& table1_columns() {
  static const std::vector<Table1Column> c = {
      {"time_per_token", "max decode cost at n (growth fitted over n)"},
      {"time_per_token_paper", "the paper's time/token"},
      {"cache", "max cache |C_i| at n (growth fitted over n)"},
      {"cache_paper", "the paper's cache"},
      {"shortest_path", "shortest path"},
      {"shortest_path_paper", "the paper's shortest path"},
      {"congestion", "congestion"},
      {"congestion_paper", "the paper's congestion"}};
  return c;
}

/// The paper's Table 1 entries (docs/math.md §6) for the patterns it lists; empty for others.
std::map<std::string, std::string> paper_entries(const Pattern& p) {
  auto row = [](const char* t, const char* c, const char* d, const char* g) {
    return std::map<std::string, std::string>{
        {"time_per_token_paper", t}, {"cache_paper", c}, {"shortest_path_paper", d}, {"congestion_paper", g}};
  };
  const std::string& s = p.spec;
  if (s == "attention") return row("O(n)", "O(n)", "1", "1");
  if (s.rfind("local:", 0) == 0) return row("O(k)", "O(k)", "inf (no multi-hop)", "-");
  if (s == "ssm") return row("O(1)", "O(1)", "n", "n");
  if (s.rfind("window:", 0) == 0) return row("O(k)", "O(k)", "n/k", "n/k");
  if (s == "dense") return row("O(n)", "O(n)", "1", "1");
  if (s == "pow2") return row("O(log n)", "O(n)", "<= log2 n", "<= log2 n");
  if (s == "pow2+cache") return row("O(log n)", "O(log n)", "not stated", "not stated");
  if (s == "sq1") return row("O(sqrt n)", "O(n)", "<= 4", "<= 4");
  if (s == "sq1+cache") return row("O(sqrt n)", "O(sqrt n)", "not stated", "not stated");
  return {};
}

/// The option that left a section out, as written in the report.
std::string skip_reason(const ReportQuery& o) {
  std::string r = o.only_sections.empty() ? "--skip " : "--sections ";
  const auto& l = o.only_sections.empty() ? o.skip_sections : o.only_sections;
  for (std::size_t k = 0; k < l.size(); ++k) r += (k ? "," : "") + l[k];
  return r;
}

/// What a section left out (its "capped", "skipped" and "not built in" notes) is said in the section itself,
/// beside the list at the top; a section that shows nothing says so instead of leaving an empty heading.
void section_notes(ReportWriter& out, const ReportSection& s, std::size_t notes_before) {
  out.section(s.id, s.title, s.order);
  std::string list;
  for (std::size_t k = notes_before; k < out.notes().size(); ++k)
    list += "- **" + out.notes()[k].kind + "**: " + out.notes()[k].text + "\n";
  if (!list.empty())
    out.markdown("**Left out here:**\n\n" + list);
  else if (out.section_blocks(s.id) == 0)
    out.markdown("*Nothing to show for these patterns.*");
}

void check_out_dir(const std::string& out, bool force) {
  std::error_code ec;
  const fs::path p(out);
  if (!fs::exists(p, ec)) return;
  if (!fs::is_directory(p, ec))
    throw UsageError("--out '" + out + "' exists and is not a directory; choose a directory");
  if (!fs::is_empty(p, ec) && !force)
    throw UsageError("--out '" + out +
                     "' is not empty; pass --force to replace the report in it (as a whole) or choose a new "
                     "directory");
  if (!fs::is_empty(p, ec) && !fs::exists(p / "report.json", ec))
    throw UsageError(
        "--out '" + out +
        "' holds files but no report.json: --force replaces only a mixgraph report; choose a new "
        "directory");
}

/// The ids of --sections / --skip checked against the registered sections: an unknown id is a usage error
/// listing the valid ones. Returns the ids to skip (empty: run all).
std::set<std::string> skipped_sections(const std::vector<ReportSection>& sections, const ReportQuery& o) {
  std::set<std::string> ids;
  std::string valid;
  for (const auto& s : sections) {
    ids.insert(s.id);
    valid += (valid.empty() ? "" : ", ") + s.id;
  }
  auto check = [&](const std::vector<std::string>& list, const char* opt) {
    for (const auto& id : list)
      if (!ids.count(id))
        throw UsageError(std::string(opt) + ": unknown section '" + id + "'; valid sections: " + valid);
  };
  check(o.only_sections, "--sections");
  check(o.skip_sections, "--skip");
  if (!o.only_sections.empty() && !o.skip_sections.empty())
    throw UsageError("--sections and --skip exclude each other; give one of them");
  std::set<std::string> skip(o.skip_sections.begin(), o.skip_sections.end());
  if (!o.only_sections.empty()) {
    const std::set<std::string> only(o.only_sections.begin(), o.only_sections.end());
    for (const auto& id : ids)
      if (!only.count(id)) skip.insert(id);
  }
  return skip;
}

}  // namespace

std::vector<ReportSection> report_sections() {
  // the order `--sections` lists them in; the documents order them by ReportSection::order
  return {summary_section(),    profile_section(),  masks_section(),      operator_section(),
          ranks_section(),      stacks_section(),   validation_section(), verify_section(),
          congestion_section(), distances_section()};
}

ReportResult run_report(const ReportQuery& o) {
  const auto t_start = std::chrono::steady_clock::now();
  ReportParams params;
  params.patterns = o.patterns.empty() ? kDefaultPatterns : o.patterns;
  const bool n_given = !o.n_text.empty();
  if (n_given) params.n = parse_count(o.n_text, "--n");
  if (params.n < 1) throw UsageError("--n must be >= 1");
  if (params.n > 0xFFFFFFFFull) throw UsageError("--n must fit in 32 bits");
  params.seed = o.seed;
  params.dense_cap = parse_count(o.dense_cap, "--dense-cap");
  params.heatmap_cap = parse_count(o.heatmap_cap, "--heatmap-cap");
  params.svg_cap = parse_count(o.svg_cap, "--svg-cap");
  params.all_pairs_cap = parse_count(o.all_pairs_cap, "--all-pairs-cap");
  params.rank_cap = parse_count(o.rank_cap, "--rank-cap");
  params.rank_cuts = parse_count(o.rank_cuts, "--rank-cuts");
  params.routing_cap = parse_count(o.routing_cap, "--routing-cap");
  params.lp_cap = parse_count(o.lp_cap, "--lp-cap");
  params.pdf = o.pdf;
  params.threads = o.threads;
  params.mem_limit = o.mem_limit;
  if (o.out.empty()) throw UsageError("--out DIR is required");
  auto sections = o.sections.empty() ? report_sections() : o.sections;
  std::stable_sort(sections.begin(), sections.end(), [](auto& a, auto& b) { return a.order < b.order; });
  const std::set<std::string> skip = skipped_sections(sections, o);
  const std::string out_dir = resolve_report_out(o.out);  // a symbolic link's target (report_staging.hpp)
  check_out_dir(out_dir, o.force);

  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  };
  // Steps: each pattern's build, each (running section, pattern) pair, and the documents at the end.
  const std::size_t P = params.patterns.size();
  std::size_t running = 0;
  for (const auto& s : sections) running += s.run && !skip.count(s.id) ? 1 : 0;
  const std::size_t steps = P + running * P + 1;
  // each step goes to the caller (progress lines; the Python package sees it and can stop the report)
  auto step = [&](std::size_t k, const std::string& what) {
    if (o.on_step) o.on_step(k, steps, what);
  };

  // Build every pattern first: a bad spec fails before anything is written. Stacks (stack:P1,P2,...) are
  // checked here and analysed by the "stacks" section (report_stacks.cpp); the others leave them out.
  std::vector<PatternRun> runs;
  std::set<std::string> stems;
  std::string stack_list;  // the stacks, as `spec`, `spec`
  for (std::size_t k = 0; k < params.patterns.size(); ++k) {
    const std::string& spec = params.patterns[k];
    if (is_stack_spec(spec)) {
      step(runs.size(), spec + ": layers");
      // the one parse of each spec: the estimate, the build and every section's patterns at other n
      params.trees.push_back(parse_pattern_spec(spec));
      const PatternSpec& tree = params.trees.back();
      check_memory(estimate_stack_bytes(tree, params.n), params.mem_limit,
                   "pattern " + spec + " at n = " + std::to_string(params.n));
      (void)make_stack(tree, params.n);
      stack_list += (stack_list.empty() ? "`" : ", `") + spec + "`";
      continue;
    }
    params.trees.push_back(parse_pattern_spec(spec, false));
    const PatternSpec& tree = params.trees.back();
    const bool is_mtx = tree.is_matrix();
    const std::uint64_t n = is_mtx && !n_given ? 0 : params.n;
    step(runs.size(), spec + ": pattern and cache profile");
    if (!is_mtx) check_pattern_memory(tree, n, params.mem_limit, "pattern " + spec, {.per_position = true});
    PatternRun r;
    r.spec = spec;
    r.tree = tree;
    r.pattern = make_pattern(tree, n);
    ProfileOptions po;
    po.threads = params.threads;
    r.profile = cache_profile(r.pattern, po);
    std::string stem = file_stem(spec);
    for (int k = 2; stems.count(stem); ++k) stem = file_stem(spec) + "-" + std::to_string(k);
    stems.insert(stem);
    r.stem = stem;
    runs.push_back(std::move(r));
  }

  // Under several MPI ranks each running section is a shard (report_shards.hpp): every rank checked the
  // parameters and built the patterns above (so they meet a usage error alike), runs its sections in
  // writers of its own and sends them to rank 0, which replays them below in document order.
  const FigureStyle fig_style = o.style == "paper" ? FigureStyle::Paper : FigureStyle::Screen;
  const bool split = static_cast<bool>(o.shards.run);
  std::vector<SectionOutcome> shard_outcomes;
  if (split) {
    std::vector<const ReportSection*> todo;
    for (const auto& s : sections)
      if (s.run && !skip.count(s.id)) todo.push_back(&s);
    auto got = o.shards.run(
        todo, params, runs, o.fig_width, fig_style,
        [&](std::size_t i, const std::string& what) { step(P + i * P, what); },
        [&](std::size_t i, const PatternRun& r, const std::string& stage) {
          const auto k = static_cast<std::size_t>(&r - runs.data());
          step(P + i * P + std::min(k, P - 1), r.spec + ": " + stage);
        });
    if (!got) return {};  // the other ranks: rank 0 writes the report
    shard_outcomes = std::move(*got);
  }
  ReportStaging staging(out_dir);  // written whole there, then swapped in (report_staging.hpp)
  ReportWriter out(staging.dir());
  out.figure_look(o.fig_width, fig_style);
  std::map<std::string, std::map<std::string, Cell>> table1;
  ojson sections_json = ojson::array();
  out.section("table1", "Table 1: structure columns, measured", 5);
  std::size_t section_index = 0;
  for (const auto& s : sections) {
    out.section(s.id, s.title, s.order);
    ojson sj = {{"id", s.id}, {"title", s.title}};
    if (skip.count(s.id)) {
      out.markdown("*Skipped (`" + skip_reason(o) + "`): not computed in this report.* Leave `" + s.id +
                   "` out of `--skip` (or put it in `--sections`) to compute it.");
      out.note("skipped", s.title + ": section skipped (" + skip_reason(o) + ")");
      sj["status"] = "skipped";
      sections_json.push_back(sj);
      continue;
    }
    if (!s.run) {
      const std::string why = s.pending.empty() ? "not available" : "pending (" + s.pending + ")";
      out.markdown("*" + why + ".* This section will add " + s.planned + ".");
      out.note("pending",
               s.title + " (" + (s.pending.empty() ? "no analysis yet" : s.pending) + "): " + s.planned);
      sj["status"] = why;
      sections_json.push_back(sj);
      continue;
    }
    nlohmann::json results = nlohmann::json::object();
    ReportContext ctx{params,
                      runs,
                      out,
                      table1,
                      results,
                      [&](const PatternRun& r, const std::string& stage) {
                        const auto k = static_cast<std::size_t>(&r - runs.data());
                        step(P + section_index * P + std::min(k, P - 1), r.spec + ": " + stage);
                      },
                      [&](const std::string& what) { step(P + section_index * P, what); }};
    const double t0 = elapsed();
    double seconds = 0;
    const std::size_t notes_before = out.notes().size();
    const bool of_units = split && s.render && shard_outcomes.at(section_index).whole.empty();
    if (of_units) {  // a section of units: rendered here from what the ranks computed
      s.render(ctx, shard_outcomes.at(section_index).units);
      seconds = shard_outcomes.at(section_index).seconds;
    } else if (split) {
      results = o.shards.import(shard_outcomes.at(section_index).whole, out, table1, seconds);
    } else {
      step(P + section_index * P, s.title);
      s.run(ctx);
      seconds = elapsed() - t0;
    }
    ++section_index;
    if (!stack_list.empty() && s.id != "stacks" && s.id != "verify")
      out.note("skipped", s.title + ": " + stack_list +
                              " left out (a stack of layers is not a single-layer pattern; section \"Stacked "
                              "layers\" analyses it)");
    section_notes(out, s, notes_before);
    sj["status"] = "done";
    sj["seconds"] = seconds;
    sj["results"] = results;
    sections_json.push_back(sj);
  }

  // Table 1, measured beside the paper's entries.
  step(P + running * P, "Table 1, report.md, report.ipynb");
  std::map<std::string, std::string> column_pending;
  for (const auto& s : sections)
    for (const auto& c : s.table1_columns)
      column_pending[c] =
          skip.count(s.id) ? "not computed (section " + s.id + " skipped)"
          : s.run          ? ""
                           : "pending (" + (s.pending.empty() ? std::string("no analysis") : s.pending) + ")";
  DataTable t1{"table1",
               "Table 1 of the paper, measured at this n (paper columns: its claims, docs/math.md §6)",
               {},
               {}};
  t1.columns.push_back("pattern");
  for (const auto& c : table1_columns()) t1.columns.push_back(c.id);
  std::size_t run_index = 0;  // rows in the order given; stacks have no paper entries
  for (const auto& spec : params.patterns) {
    const PatternRun* run = is_stack_spec(spec) ? nullptr : &runs[run_index++];
    std::vector<Cell> row = {Cell::text(spec)};
    const auto paper = run ? paper_entries(run->pattern) : std::map<std::string, std::string>{};
    for (const auto& c : table1_columns()) {
      if (c.id.size() > 6 && c.id.substr(c.id.size() - 6) == "_paper") {
        auto it = paper.find(c.id);
        row.push_back(it == paper.end() || it->second == "-" ? Cell::empty() : Cell::text(it->second));
        continue;
      }
      auto& cells = table1[spec];
      if (auto it = cells.find(c.id); it != cells.end()) {
        Cell cell = it->second;
        if (auto fit = cells.find(c.id + "_fit"); fit != cells.end())
          cell = Cell::text(cell.str() + " (" + fit->second.str() + ")");
        row.push_back(cell);
      } else if (auto pit = column_pending.find(c.id); pit != column_pending.end() && !pit->second.empty())
        row.push_back(Cell::text(pit->second));
      else
        row.push_back(Cell::empty());
    }
    t1.add(std::move(row));
  }
  out.section("table1", "", 5);
  out.table(t1);
  std::string legend =
      "Measured columns give the value at this n with, in brackets, the growth class fitted over the sweep "
      "of n "
      "(section \"Decode cost and cache\"). `time_per_token` is the max decode cost, `cache` the max cache "
      "|C_i|. `shortest_path` is the diameter (max d(i, j) over j < i, section \"Shortest paths\"); "
      "`congestion` the copy task's congestion at the hardest copy length N <= n/2 (section \"Copy task and "
      "congestion\"), exact where it says optimal, else certified lower..upper bounds. The `_paper` columns "
      "are the paper's Table 1 entries (docs/math.md §6); \"not stated\" marks the cells the paper leaves "
      "open, which this table fills.";
  bool any_pending = false;
  for (const auto& [col, why] : column_pending) any_pending |= !why.empty();
  if (any_pending)
    legend +=
        " \"pending\" marks analyses not available in this build; \"not computed\" marks sections "
        "left out with --sections or --skip.";
  if (!stack_list.empty())
    legend +=
        " A stack's row (" + stack_list +
        ", section \"Stacked layers\") sums decode cost and cache over its layers, takes the diameter from "
        "the inputs to the last layer's outputs and the copy task across the layers at N = n/2; it has no "
        "growth class and no paper entry.";
  out.markdown(legend);
  // Key numbers: each cache-efficient pattern against its base, when both are in the report.
  std::string key;
  for (const auto& r : runs) {
    if (r.pattern.family != PatternFamily::CacheEfficient) continue;
    for (const auto& b : runs) {
      if (b.spec != r.pattern.base || b.pattern.n != r.pattern.n) continue;
      const double ratio =
          static_cast<double>(b.profile.max_cache) / std::max<std::uint32_t>(1, r.profile.max_cache);
      key += "- `" + r.spec + "` keeps at most " + std::to_string(r.profile.max_cache) +
             " positions where `" + b.spec + "` keeps " + std::to_string(b.profile.max_cache) + " (" +
             fmt_double(ratio, 3) + "x fewer), while a token reads at most " +
             std::to_string(r.profile.max_decode_cost) + " positions (`" + b.spec +
             "`: " + std::to_string(b.profile.max_decode_cost) + ").\n";
    }
  }
  if (!key.empty()) out.markdown("**Key numbers at n = " + std::to_string(params.n) + ":**\n\n" + key);

  // Intro and documents.
  std::string pattern_list;
  for (const auto& spec : params.patterns)
    pattern_list += (pattern_list.empty() ? "" : ", ") + ("`" + spec + "`");
  const std::string intro =
      "Generated by mixgraph " + version() + " for " + pattern_list + " at n = " + std::to_string(params.n) +
      " (positions 1..n; row i = target token, column j = source). Random weights use seed " +
      std::to_string(params.seed) + ". Caps: `--dense-cap " + std::to_string(params.dense_cap) +
      "`, `--heatmap-cap " + std::to_string(params.heatmap_cap) + "`, `--svg-cap " +
      std::to_string(params.svg_cap) +
      "`. Tables are in `tables/` (CSV and JSON), figures in `figures/`; `report.json` lists them all.";
  out.finish("mixgraph report", intro);

  // report.json: the manifest.
  nlohmann::json pj = {{"patterns", params.patterns},
                       {"n", params.n},
                       {"out", o.out},
                       {"force", o.force},
                       {"seed", params.seed},
                       {"dense_cap", params.dense_cap},
                       {"heatmap_cap", params.heatmap_cap},
                       {"svg_cap", params.svg_cap},
                       {"pdf", params.pdf},
                       {"all_pairs_cap", params.all_pairs_cap},
                       {"rank_cap", params.rank_cap},
                       {"rank_cuts", params.rank_cuts},
                       {"routing_cap", params.routing_cap},
                       {"lp_cap", params.lp_cap},
                       {"fig_width", o.fig_width},
                       {"style", o.style},
                       {"skipped_sections", std::vector<std::string>(skip.begin(), skip.end())}};
  auto manifest = json::header("report", 1, pj);
  manifest["sections"] = sections_json;
  manifest["notes"] = ojson::array();
  for (const auto& nt : out.notes()) manifest["notes"].push_back({{"kind", nt.kind}, {"text", nt.text}});
  manifest["table1"] = to_json(t1)["rows"];
  auto files = out.files();
  files.push_back("report.json");
  manifest["files"] = files;
  // every PNG as drawn: its size and smallest text (text_points(min_font_px, width_px, fig_width) is the
  // printed size in points at --fig-width)
  manifest["figures"] = ojson::array();
  for (const auto& f : out.figures())
    manifest["figures"].push_back({{"path", f.path},
                                   {"width_px", f.width_px},
                                   {"height_px", f.height_px},
                                   {"font_px", f.font_px},
                                   {"min_font_px", f.min_font_px}});
  manifest["seconds"] = elapsed();
  {
    std::ostringstream ss;
    json::print(ss, manifest);
    write_file_atomic((fs::path(staging.dir()) / "report.json").string(), ss.str());
  }
  staging.commit(o.force);
  ReportResult result;
  result.written = true;
  result.manifest = std::move(manifest);
  result.table1 = std::move(t1);
  result.files = std::move(files);
  result.notes = out.notes();
  return result;
}

}  // namespace mixgraph::analysis
