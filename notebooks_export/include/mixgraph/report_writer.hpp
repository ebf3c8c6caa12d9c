#pragma once
// The report document: sections of headings, text, tables and figures, written as files in one
// directory and rendered at the end as report.md and report.ipynb (nbformat 4.5, outputs rendered).
//
//   mixgraph::ReportWriter w("out");                 // creates out/, out/tables, out/figures
//   w.section("summary", "Pattern summary", 10);
//   w.table(summary_table);                          // tables/summary.csv + .json, shown in the report
//   w.heatmap("A_pow2", view, opts, "The A mask");   // figures/A_pow2.png
//   w.note("capped", "|M| heatmaps only for n <= 1024");
//   w.finish("mixgraph report", intro_markdown);     // report.md, report.ipynb
//
// Every file is written atomically (temp file, then rename). The writer never computes an analysis: it
// receives plain tables, matrices and vectors. Each call costs O(size of what it writes) (heatmaps: see
// write_heatmap); tables shown in the report are kept in memory until finish(), figures are read back
// from disk there for the notebook. Errors: RuntimeFailure for I/O, UsageError for bad figure options.
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mixgraph/plot.hpp"
#include "mixgraph/table.hpp"

namespace mixgraph {

struct ReportBlock {
  enum class Kind { Heading, Markdown, Table, Figure };
  Kind kind = Kind::Markdown;
  int level = 3;     ///< Heading: Markdown level
  std::string text;  ///< Heading / Markdown text; Figure / Table caption
  DataTable table;   ///< Table: the rows to show
  std::size_t show_rows = 50;
  std::string path;  ///< Table: tables/<name>.csv; Figure: figures/<name>.png (relative to the dir)
  std::vector<std::string> other_files;  ///< Figure: the .svg / .pdf versions written beside the PNG
  std::string data;  ///< Figure: the data behind it (figures/<name>.npy or .csv, figure_data.hpp)
  std::string code;  ///< Figure: the notebook's matplotlib code that draws it from `data`
};

/// A figure as drawn (its PNG): size in pixels and its largest and smallest text, for report.json.
struct ReportFigure {
  std::string path;  ///< figures/<name>.png
  int width_px = 0, height_px = 0;
  double font_px = 0, min_font_px = 0;
};

struct ReportNote {
  std::string kind;  ///< "capped", "skipped", "pending", "not built in"
  std::string text;
};

class ReportWriter {
 public:
  /// Creates dir, dir/tables and dir/figures (the caller checks the --force rule first).
  explicit ReportWriter(std::string dir);

  /// Starts (or returns to) a section; sections are rendered by `order`, then by first use.
  void section(const std::string& id, const std::string& title, int order);
  void heading(const std::string& text, int level = 3);
  void markdown(const std::string& text);
  /// Writes tables/<name>.csv and tables/<name>.json and shows the first `show_rows` rows.
  void table(const DataTable& t, std::size_t show_rows = 50);
  /// Writes only the CSV and JSON files (no block).
  void table_file(const DataTable& t);
  /// Streams any other file (e.g. a per-position CSV of length n) to `rel` (relative to dir), atomically,
  /// and lists it in files().
  void file(const std::string& rel, const std::function<void(std::ostream&)>& writer);
  /// Writes figures/<name>.png, plus .svg when `svg` (use for small n only) and .pdf when `pdf`;
  /// shows the PNG. The matrix drawn (after pooling) goes to figures/<name>.npy for the notebook, which
  /// redraws it with matplotlib. Without cairo: only the .npy, a "not built in" note, and nothing returned.
  std::optional<HeatmapInfo> heatmap(const std::string& name, const MatrixView& m, const HeatmapOptions& opt,
                                     const std::string& caption, bool svg = false, bool pdf = false);
  /// A line plot as heatmap() writes a heatmap; its series go to figures/<name>.csv (series, x, y).
  bool line_plot(const std::string& name, const std::vector<LineSeries>& series, const LinePlotOptions& opt,
                 const std::string& caption, bool svg = true, bool pdf = false);
  /// The printed width and style of every later figure whose options leave width_in at 0.
  void figure_look(double width_in, FigureStyle style) {
    fig_width_in_ = width_in;
    fig_style_ = style;
  }
  /// A note for the "What was capped or skipped" list at the top of the report.
  void note(const std::string& kind, const std::string& text);
  /// Python appended to the notebook's "Carry on" part (code cells without outputs).
  void carry_on(const std::string& python);

  /// Renders report.md and report.ipynb from the sections. `intro` is Markdown shown under the title.
  void finish(const std::string& title, const std::string& intro);

  /// A report whose sections run in other processes (MPI ranks): the section `id` ran alone in a writer of
  /// its own; export_section gives what it left there (its blocks, the files it recorded, the figures as
  /// drawn, the notes and notebook code it added) as JSON, and import_section appends that to this writer
  /// as if the section had run here (the files must already be in this writer's dir, at the same relative
  /// paths). Doubles keep their bits (NaN included). O(size of the blocks).
  nlohmann::json export_section(const std::string& id) const;
  void import_section(const nlohmann::json& state);

  const std::string& dir() const { return dir_; }
  /// Every file written so far, relative to dir, in order.
  const std::vector<std::string>& files() const { return files_; }
  const std::vector<ReportNote>& notes() const { return notes_; }
  /// Every PNG figure written so far, as drawn.
  const std::vector<ReportFigure>& figures() const { return figures_; }
  /// The number of blocks (headings, text, tables, figures) section `id` holds so far (0 if none).
  std::size_t section_blocks(const std::string& id) const;

 private:
  struct Section {
    std::string id, title;
    int order = 0;
    std::size_t first_use = 0;
    std::vector<ReportBlock> blocks;
  };
  Section& current();
  void record(const std::string& rel);
  std::vector<const Section*> ordered() const;
  std::string render_markdown(const std::string& title, const std::string& intro) const;
  std::string render_notebook(const std::string& title, const std::string& intro) const;

  std::string dir_;
  std::vector<Section> sections_;
  std::size_t current_ = static_cast<std::size_t>(-1);
  std::vector<std::string> files_;
  std::vector<ReportNote> notes_;
  std::vector<ReportFigure> figures_;
  std::vector<std::string> carry_on_;
  double fig_width_in_ = 0;
  FigureStyle fig_style_ = FigureStyle::Screen;
};

/// O(length). A file-name stem from a pattern spec: letters, digits, '.', '_' and '-' kept, '+' becomes "-",
/// anything else '_' ("pow2+cache" -> "pow2-cache", "offsets:1,5" -> "offsets_1_5").
std::string file_stem(const std::string& spec);

}  // namespace mixgraph
