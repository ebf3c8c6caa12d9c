// mixgraph report: every analysis that exists, for each pattern on n tokens, written to a directory as
// tables (CSV + JSON), figures (PNG, SVG for small n), report.md and report.ipynb. The report is
// mixgraph/analysis/report.hpp's engine; this file parses the options, prints progress and the result, and
// splits the sections over MPI ranks (report_shards.hpp).
#include <chrono>
#include <iostream>
#include <memory>

#include "mixgraph/analysis/report.hpp"
#include "mpi_world.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "registry.hpp"
#include "report_progress.hpp"
#include "report_shards.hpp"

namespace mixgraph::cli {

namespace {

struct ReportOptions {
  CommonOptions common;
  std::vector<std::string> patterns;
  std::string n_text;
  std::string out;
  bool force = false;
  std::uint64_t seed = 1;
  std::string dense_cap = "1024";
  std::string heatmap_cap = "16384";
  std::string svg_cap = "128";
  std::string all_pairs_cap = "2^14";
  std::string rank_cap = "1024";
  std::string rank_cuts = "16";
  std::string routing_cap = "1024";
  std::string lp_cap = "32";
  bool pdf = false;
  std::vector<std::string> only_sections;  ///< --sections: run only these (ids as registered)
  std::vector<std::string> skip_sections;  ///< --skip: run every section but these
  std::string progress = "auto";
  double fig_width = 0;
  std::string style = "screen";
};

int run_report(const ReportOptions& o) {
  o.common.apply();
  const auto t_start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  };
  analysis::ReportQuery q;
  q.out = o.out;
  q.patterns = o.patterns;
  q.n_text = o.n_text;
  q.force = o.force;
  q.seed = o.seed;
  q.dense_cap = o.dense_cap;
  q.heatmap_cap = o.heatmap_cap;
  q.svg_cap = o.svg_cap;
  q.all_pairs_cap = o.all_pairs_cap;
  q.rank_cap = o.rank_cap;
  q.rank_cuts = o.rank_cuts;
  q.routing_cap = o.routing_cap;
  q.lp_cap = o.lp_cap;
  q.pdf = o.pdf;
  q.only_sections = o.only_sections;
  q.skip_sections = o.skip_sections;
  q.fig_width = o.fig_width;
  q.style = o.style;
  q.threads = o.common.threads;
  q.mem_limit = o.common.mem_limit_bytes();
  q.sections = analysis::report_sections();
  add_report_units(q.sections);  // verify's claims as units under several MPI ranks (report_shards.hpp)
  // progress lines on stderr (rank 0 only), one per step with an ETA (report_progress.hpp)
  std::unique_ptr<ReportProgress> progress;
  q.on_step = [&](std::size_t k, std::size_t steps, const std::string& what) {
    if (!progress) progress = std::make_unique<ReportProgress>(mpi::root() ? o.progress : "never", steps);
    progress->step(k, what);
  };
  if (mpi::size() > 1) {  // each running section a shard (report_shards.hpp); rank 0 writes the report
    q.shards.run = run_report_section_shards;
    q.shards.import = import_report_section;
  }
  const auto res = analysis::run_report(q);
  if (!res.written) return 0;  // the other ranks
  const DataTable& t1 = res.table1;
  switch (o.common.fmt()) {
    case Format::Json:
      print_json(std::cout, res.manifest);
      break;
    case Format::Csv:
      std::cout << to_csv(t1);
      break;
    case Format::Table: {
      std::vector<std::string> h = {"pattern"};
      for (const auto& c : t1.columns)
        if (c != "pattern" && c.find("_paper") == std::string::npos) h.push_back(c);
      Table t(h);
      for (const auto& row : t1.rows) {
        std::vector<std::string> cells;
        for (std::size_t k = 0; k < row.size(); ++k)
          if (t1.columns[k].find("_paper") == std::string::npos) cells.push_back(row[k].str());
        t.add(cells);
      }
      t.print_text(std::cout);
      std::cout << "\nwrote " << res.files.size() << " files to " << o.out
                << " (report.md, report.ipynb, report.json) in " << fmt_double(elapsed(), 3) << " s\n";
      for (const auto& nt : res.notes) std::cout << "  " << nt.kind << ": " << nt.text << "\n";
      break;
    }
  }
  return 0;
}

Registrar reg_cmd_report(
    "report",
    "Every analysis for a set of patterns, written to a directory: tables, heatmaps, report.md and "
    "report.ipynb",
    90, [](CLI::App& app) -> std::function<int()> {
      auto o = std::make_shared<ReportOptions>();
      app.add_option("--pattern,-p", o->patterns,
                     "Pattern spec, repeatable (default: pow2, pow2+cache, sq1, sq1+cache, ssm). " +
                         pattern_name_help())
          ->check(pattern_spec())
          ->type_name(type::kSpec);
      add_count_option(app, "--n,-n", o->n_text, "Number of tokens (default 1024); accepts 4096, 2^12, 1e4");
      add_output_option(
          app, o->out, "Output directory (created; an existing non-empty one needs --force). Old name: --out",
          "--out", type::kDir)
          ->required();
      app.add_flag("--force", o->force,
                   "Write into an existing non-empty --output (same-named files replaced)");
      add_seed_option(app, o->seed, "Seed of the random weights for |M|");
      add_count_option(app, "--dense-cap", o->dense_cap,
                       "Largest n for the dense induced operator |M| (default 1024)");
      add_count_option(app, "--heatmap-cap", o->heatmap_cap, "Largest n for mask heatmaps (default 16384)");
      add_count_option(app, "--svg-cap", o->svg_cap,
                       "Largest n for SVG heatmaps beside the PNG (default 128)");
      app.add_flag("--pdf", o->pdf, "Also write every figure as PDF");
      std::string ids;
      for (const auto& s : analysis::report_sections()) ids += (ids.empty() ? "" : ", ") + s.id;
      app.add_option(
             "--sections", o->only_sections,
             "Run only these sections (comma-separated ids: " + ids + "); the others are marked skipped")
          ->delimiter(',')
          ->type_name(type::kId);
      app.add_option("--fig-width", o->fig_width,
                     "Printed width of the figures (line plots and heatmaps) in inches (3.3: one column, "
                     "6.75: two columns; 200 dpi; default: the screen layout)")
          ->check(finite_range(0.5, 20.0));
      app.add_option(
             "--style", o->style,
             "Figures for a screen (titles, thick lines) or a paper (no titles, thin lines, 8 pt text, "
             "the plot at least 60% of the figure at --fig-width) (default screen)")
          ->check(CLI::IsMember({"screen", "paper"}));
      app.add_option(
             "--progress", o->progress,
             "Progress on stderr, one line per step with an ETA: auto (a terminal, a Jupyter kernel or "
             "nohup), always, never (default auto)")
          ->check(CLI::IsMember({"auto", "always", "never"}));
      app.add_option(
             "--skip", o->skip_sections,
             "Run every section but these (comma-separated ids, as for --sections), e.g. --skip verify")
          ->delimiter(',')
          ->type_name(type::kId);
      add_count_option(app, "--all-pairs-cap", o->all_pairs_cap,
                       "Largest n for all-pairs distances and the d(i,j) heatmap (default 2^14)");
      add_count_option(app, "--rank-cap", o->rank_cap,
                       "Every cut rank for n <= this, else --rank-cuts cuts (default 1024)");
      add_count_option(app, "--rank-cuts", o->rank_cuts, "Cuts above --rank-cap (default 16)");
      add_count_option(app, "--routing-cap", o->routing_cap,
                       "Congestion-minimising routing up to this copy length (default 1024)");
      add_count_option(app, "--lp-cap", o->lp_cap,
                       "LP congestion lower bounds up to this copy length (default 32)");
      add_common_options(app, o->common);
      return [o] { return run_report(*o); };
    });

}  // namespace
}  // namespace mixgraph::cli
