#include "mixgraph/report_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "mixgraph/atomic_file.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/figure_data.hpp"

namespace mixgraph {

namespace fs = std::filesystem;

std::string file_stem(const std::string& spec) {
  std::string out;
  for (char c : spec) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')
      out += c;
    else if (c == '+')
      out += '-';
    else
      out += '_';
  }
  return out.empty() ? "_" : out;
}

ReportWriter::ReportWriter(std::string dir) : dir_(std::move(dir)) {
  for (const char* sub : {"", "tables", "figures"}) {
    std::error_code ec;
    const fs::path p = fs::path(dir_) / sub;
    fs::create_directories(p, ec);
    if (ec || !fs::is_directory(p))
      throw RuntimeFailure("cannot create directory '" + p.string() +
                           "': " + (ec ? ec.message() : std::string("a file is in the way")));
  }
}

void ReportWriter::section(const std::string& id, const std::string& title, int order) {
  for (std::size_t k = 0; k < sections_.size(); ++k)
    if (sections_[k].id == id) {
      current_ = k;
      return;
    }
  sections_.push_back({id, title, order, sections_.size(), {}});
  current_ = sections_.size() - 1;
}

std::size_t ReportWriter::section_blocks(const std::string& id) const {
  for (const auto& s : sections_)
    if (s.id == id) return s.blocks.size();
  return 0;
}

ReportWriter::Section& ReportWriter::current() {
  if (current_ >= sections_.size()) section("main", "Results", 0);
  return sections_[current_];
}

void ReportWriter::record(const std::string& rel) {
  if (std::find(files_.begin(), files_.end(), rel) == files_.end()) files_.push_back(rel);
}

void ReportWriter::heading(const std::string& text, int level) {
  ReportBlock b;
  b.kind = ReportBlock::Kind::Heading;
  b.level = level;
  b.text = text;
  current().blocks.push_back(std::move(b));
}

void ReportWriter::markdown(const std::string& text) {
  ReportBlock b;
  b.kind = ReportBlock::Kind::Markdown;
  b.text = text;
  current().blocks.push_back(std::move(b));
}

void ReportWriter::table_file(const DataTable& t) {
  const std::string csv = "tables/" + t.name + ".csv", json = "tables/" + t.name + ".json";
  write_file_atomic((fs::path(dir_) / csv).string(), to_csv(t));
  write_file_atomic((fs::path(dir_) / json).string(), to_json(t).dump(1) + "\n");
  record(csv);
  record(json);
}

void ReportWriter::file(const std::string& rel, const std::function<void(std::ostream&)>& writer) {
  write_file_atomic((fs::path(dir_) / rel).string(), writer);
  record(rel);
}

void ReportWriter::table(const DataTable& t, std::size_t show_rows) {
  table_file(t);
  ReportBlock b;
  b.kind = ReportBlock::Kind::Table;
  b.text = t.caption;
  b.table = t;
  b.show_rows = show_rows;
  b.path = "tables/" + t.name + ".csv";
  current().blocks.push_back(std::move(b));
}

void ReportWriter::note(const std::string& kind, const std::string& text) {
  for (const auto& n : notes_)
    if (n.kind == kind && n.text == text) return;
  notes_.push_back({kind, text});
}

void ReportWriter::carry_on(const std::string& python) {
  carry_on_.push_back(python);
}

std::optional<HeatmapInfo> ReportWriter::heatmap(const std::string& name, const MatrixView& m,
                                                 const HeatmapOptions& opt, const std::string& caption,
                                                 bool svg, bool pdf) {
  ReportBlock b;
  b.kind = ReportBlock::Kind::Figure;
  b.text = caption;
  b.data = "figures/" + name + ".npy";
  HeatmapOptions o = opt;
  if (o.width_in <= 0) o.width_in = fig_width_in_;
  if (fig_style_ == FigureStyle::Paper) o.style = FigureStyle::Paper;
  // The matrix the PNG shows (pooled as drawn) goes to the .npy beside it.
  auto write_data = [&](std::size_t max_side) {
    const PooledMatrix pm = pool_matrix(m, max_side, o.pooling);
    write_file_atomic((fs::path(dir_) / b.data).string(), o.mask_label.empty()
                                                              ? npy_float32(pm.values, pm.rows, pm.cols)
                                                              : npy_mask(pm.values, pm.rows, pm.cols));
    record(b.data);
    b.code = heatmap_code(name, b.data, o, pm.factor);
  };
  if (!plots_built_in()) {
    write_data(o.max_side);
    note("not built in", "heatmaps and plots: " + plots_unavailable_reason());
    current().blocks.push_back(std::move(b));
    return std::nullopt;
  }
  b.path = "figures/" + name + ".png";
  HeatmapInfo info = write_heatmap((fs::path(dir_) / b.path).string(), m, o);
  write_data(info.max_side);
  record(b.path);
  figures_.push_back({b.path, info.width_px, info.height_px, info.font_px, info.min_font_px});
  for (auto [want, ext] : {std::pair{svg, ".svg"}, std::pair{pdf, ".pdf"}}) {
    if (!want) continue;
    const std::string rel = "figures/" + name + ext;
    write_heatmap((fs::path(dir_) / rel).string(), m, o);
    record(rel);
    b.other_files.push_back(rel);
  }
  current().blocks.push_back(std::move(b));
  return info;
}

bool ReportWriter::line_plot(const std::string& name, const std::vector<LineSeries>& series,
                             const LinePlotOptions& opt, const std::string& caption, bool svg, bool pdf) {
  ReportBlock b;
  b.kind = ReportBlock::Kind::Figure;
  b.text = caption;
  b.data = "figures/" + name + ".csv";
  write_file_atomic((fs::path(dir_) / b.data).string(), series_csv(series));
  record(b.data);
  b.code = lines_code(name, b.data, opt, series);
  if (!plots_built_in()) {
    note("not built in", "heatmaps and plots: " + plots_unavailable_reason());
    current().blocks.push_back(std::move(b));
    return false;
  }
  b.path = "figures/" + name + ".png";
  LinePlotOptions o = opt;
  if (o.width_in <= 0) o.width_in = fig_width_in_;
  if (fig_style_ == FigureStyle::Paper) o.style = FigureStyle::Paper;
  const LinePlotInfo info = write_line_plot((fs::path(dir_) / b.path).string(), series, o);
  record(b.path);
  figures_.push_back({b.path, info.width_px, info.height_px, info.font_px, info.min_font_px});
  for (auto [want, ext] : {std::pair{svg, ".svg"}, std::pair{pdf, ".pdf"}}) {
    if (!want) continue;
    const std::string rel = "figures/" + name + ext;
    write_line_plot((fs::path(dir_) / rel).string(), series, o);
    record(rel);
    b.other_files.push_back(rel);
  }
  current().blocks.push_back(std::move(b));
  return true;
}

std::vector<const ReportWriter::Section*> ReportWriter::ordered() const {
  std::vector<const Section*> s;
  for (const auto& x : sections_) s.push_back(&x);
  std::stable_sort(s.begin(), s.end(), [](auto* a, auto* b) { return a->order < b->order; });
  return s;
}

namespace {

std::string notes_markdown(const std::vector<ReportNote>& notes) {
  std::string out = "## What was capped or skipped\n\n";
  if (notes.empty()) return out + "Nothing: every analysis ran in full.\n";
  for (const auto& n : notes) out += "- **" + n.kind + "**: " + n.text + "\n";
  return out;
}

std::string files_line(const ReportBlock& b) {
  std::string s = b.path.empty() ? "" : "`" + b.path + "`";
  for (const auto& f : b.other_files) s += ", `" + f + "`";
  if (!b.data.empty()) s += (s.empty() ? "data `" : "; data `") + b.data + "`";
  return s;
}

std::string read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RuntimeFailure("cannot read back '" + path + "' for the notebook");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string python_string(const std::string& s) {
  return nlohmann::json(s).dump();
}

}  // namespace

std::string ReportWriter::render_markdown(const std::string& title, const std::string& intro) const {
  std::string md = "# " + title + "\n\n" + intro + "\n\n" + notes_markdown(notes_) + "\n";
  for (const Section* s : ordered()) {
    md += "## " + s->title + "\n\n";
    for (const auto& b : s->blocks) {
      switch (b.kind) {
        case ReportBlock::Kind::Heading:
          md += std::string(b.level, '#') + " " + b.text + "\n\n";
          break;
        case ReportBlock::Kind::Markdown:
          md += b.text + "\n\n";
          break;
        case ReportBlock::Kind::Table: {
          const std::string stem = b.path.substr(0, b.path.size() - 4);
          md += "*" + b.text + "* (`" + stem + ".csv`, `" + stem + ".json`)\n\n";
          md += to_markdown(b.table, b.show_rows) + "\n";
          break;
        }
        case ReportBlock::Kind::Figure:
          if (!b.path.empty()) md += "![" + b.text + "](" + b.path + ")\n\n";
          md += "*" + b.text + "* (" + files_line(b) + ")\n\n";
          break;
      }
    }
  }
  return md;
}

std::string ReportWriter::render_notebook(const std::string& title, const std::string& intro) const {
  using nlohmann::json;
  json cells = json::array();
  std::size_t next_id = 1;
  auto id = [&] {
    char buf[32];
    std::snprintf(buf, sizeof buf, "mixgraph-%04zu", next_id++);
    return std::string(buf);
  };
  auto md_cell = [&](const std::string& text) {
    cells.push_back(
        {{"cell_type", "markdown"}, {"id", id()}, {"metadata", json::object()}, {"source", text}});
  };
  auto code_cell = [&](const std::string& code, json outputs) {
    cells.push_back({{"cell_type", "code"},
                     {"id", id()},
                     {"metadata", json::object()},
                     {"execution_count", nullptr},
                     {"outputs", std::move(outputs)},
                     {"source", code}});
  };
  md_cell("# " + title + "\n\n" + intro);
  md_cell(notes_markdown(notes_));
  code_cell(
      "# The outputs below were rendered by mixgraph; run the notebook to redraw them from the data "
      "files.\n" +
          notebook_setup_code(),
      json::array());
  for (const Section* s : ordered()) {
    std::string head = "## " + s->title;
    for (const auto& b : s->blocks) {
      switch (b.kind) {
        case ReportBlock::Kind::Heading:
          if (!head.empty()) md_cell(head), head.clear();
          md_cell(std::string(b.level, '#') + " " + b.text);
          break;
        case ReportBlock::Kind::Markdown:
          md_cell(head.empty() ? b.text : head + "\n\n" + b.text);
          head.clear();
          break;
        case ReportBlock::Kind::Table: {
          md_cell((head.empty() ? "" : head + "\n\n") + "*" + b.text + "* (`" + b.path + "`)");
          head.clear();
          std::string code = "display(tables[" + python_string(fs::path(b.path).stem().string()) + "]";
          if (b.table.rows.size() > b.show_rows) code += ".head(" + std::to_string(b.show_rows) + ")";
          code += ")";
          json out = {{"output_type", "display_data"},
                      {"metadata", json::object()},
                      {"data",
                       {{"text/html", to_html(b.table, b.show_rows)},
                        {"text/markdown", to_markdown(b.table, b.show_rows)},
                        {"text/plain", to_markdown(b.table, b.show_rows)}}}};
          code_cell(code, json::array({out}));
          break;
        }
        case ReportBlock::Kind::Figure: {
          md_cell((head.empty() ? "" : head + "\n\n") + "*" + b.text + "* (" + files_line(b) + ")");
          head.clear();
          json outs = json::array();
          if (!b.path.empty()) {
            const std::string png = read_binary((fs::path(dir_) / b.path).string());
            outs.push_back({{"output_type", "display_data"},
                            {"metadata", json::object()},
                            {"data",
                             {{"image/png", base64_encode(png)},
                              {"text/plain", "<IPython.core.display.Image object>"}}}});
          }
          code_cell(b.code.empty() ? "display(Image(filename=" + python_string(b.path) + "))" : b.code, outs);
          break;
        }
      }
    }
    if (!head.empty()) md_cell(head);
  }
  if (!carry_on_.empty()) {
    md_cell(
        "## Carry on\n\nThe cells below reload the tables with pandas and redraw figures with matplotlib; "
        "edit them freely.");
    for (const auto& c : carry_on_) code_cell(c, json::array());
  }
  json nb = {{"cells", cells},
             {"metadata",
              {{"kernelspec", {{"display_name", "Python 3"}, {"language", "python"}, {"name", "python3"}}},
               {"language_info", {{"name", "python"}}},
               {"mixgraph", {{"generator", "mixgraph report"}}}}},
             {"nbformat", 4},
             {"nbformat_minor", 5}};
  return nb.dump(1) + "\n";
}

void ReportWriter::finish(const std::string& title, const std::string& intro) {
  write_file_atomic((fs::path(dir_) / "report.md").string(), render_markdown(title, intro));
  record("report.md");
  write_file_atomic((fs::path(dir_) / "report.ipynb").string(), render_notebook(title, intro));
  record("report.ipynb");
}

}  // namespace mixgraph
