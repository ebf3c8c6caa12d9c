// `mixgraph report` options run end to end: --sections / --skip, --progress, and what capped sections
// say. The reference for the section ids is the report.json of a full run (every registered section).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "mixgraph/growth.hpp"
#include "mixgraph/plot.hpp"

namespace fs = std::filesystem;

namespace {

using mixgraph::test::read_file;
using mixgraph::test::run;

struct ReportCall {
  fs::path tmp;
  fs::path dir;
  int rc = -1;
  explicit ReportCall(const std::string& args) {
    std::random_device rd;
    tmp = fs::temp_directory_path() /
          ("mixgraph_test_report_opt_" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(tmp);
    dir = tmp / "out";
    rc = run(mixgraph::test::cli_path() + " report " + args + " --out " + dir.string() + " > " +
             (tmp / "stdout.txt").string() + " 2> " + (tmp / "stderr.txt").string());
  }
  ~ReportCall() {
    std::error_code ec;
    fs::remove_all(tmp, ec);
  }
  /// stderr without the leak sanitizer's "Suppressions used" summary (sanitizer builds print it at exit)
  std::string err() const {
    std::string e = read_file(tmp / "stderr.txt");
    const auto s = e.find("Suppressions used:");
    if (s != std::string::npos)
      e.erase(e.rfind("---", s) == std::string::npos ? s : e.rfind('\n', e.rfind("---", s)) + 1);
    return e;
  }
  nlohmann::json manifest() const { return nlohmann::json::parse(read_file(dir / "report.json")); }
  std::string md() const { return read_file(dir / "report.md"); }
};

/// The text of one "## <title>" section of report.md (up to the next "## ").
std::string md_section(const std::string& md, const std::string& title) {
  const auto a = md.find("\n## " + title + "\n");
  if (a == std::string::npos) return "";
  const auto b = md.find("\n## ", a + 4);
  return md.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

std::vector<std::string> all_section_ids() {
  static std::vector<std::string> ids = [] {
    ReportCall full(
        "--n 16 --pattern ssm --skip verify");  // the ids are listed whether a section runs or not
    std::vector<std::string> v;
    const auto j = full.manifest();  // kept alive: the loop reads into it
    for (const auto& s : j["sections"]) v.push_back(s["id"]);
    return v;
  }();
  return ids;
}

}  // namespace

TEST(ReportSkip, SkippedSectionsAreMarkedInMarkdownJsonAndTable1) {
  ReportCall r("--n 32 --pattern pow2 --pattern ssm --skip verify,validation,distances");
  ASSERT_EQ(r.rc, 0) << r.err();
  const auto j = r.manifest();
  const std::set<std::string> skipped = {"verify", "validation", "distances"};
  std::size_t seen = 0;
  for (const auto& s : j["sections"]) {
    const std::string id = s["id"], status = s["status"];
    EXPECT_EQ(status, skipped.count(id) ? "skipped" : "done") << id;
    if (skipped.count(id)) {
      ++seen;
      EXPECT_FALSE(s.contains("results")) << id;
      const std::string body = md_section(r.md(), s["title"].get<std::string>());
      EXPECT_NE(body.find("Skipped (`--skip verify,validation,distances`)"), std::string::npos) << body;
    }
  }
  EXPECT_EQ(seen, 3u);
  EXPECT_FALSE(fs::exists(r.dir / "tables/distances.csv"));
  EXPECT_TRUE(fs::exists(r.dir / "tables/congestion.csv"));
  // Table 1: the skipped section's column says "not computed", the others hold values.
  const auto cols = j["table1"][0];
  for (const auto& row : j["table1"]) {
    const std::string sp = row["shortest_path"].is_string() ? row["shortest_path"].get<std::string>() : "";
    EXPECT_EQ(sp, "not computed (section distances skipped)") << row.dump();
    EXPECT_FALSE(row["congestion"].is_null()) << row.dump();
    EXPECT_EQ(row["congestion"].dump().find("not computed"), std::string::npos) << row.dump();
  }
  (void)cols;
}

TEST(ReportSkip, SectionsRunsOnlyTheListedOnes) {
  const auto ids = all_section_ids();
  ASSERT_GE(ids.size(), 5u);
  ReportCall r("--n 32 --pattern sq1 --sections summary,ranks");
  ASSERT_EQ(r.rc, 0) << r.err();
  std::vector<std::string> got;
  const auto j = r.manifest();
  for (const auto& s : j["sections"]) {
    got.push_back(s["id"]);
    const bool on = s["id"] == "summary" || s["id"] == "ranks";
    EXPECT_EQ(s["status"], on ? "done" : "skipped") << s.dump();
  }
  EXPECT_EQ(got, ids);  // every registered section is listed, in the same order
  const auto row = j["table1"][0];
  EXPECT_EQ(row["congestion"], "not computed (section congestion skipped)");
  EXPECT_EQ(row["shortest_path"], "not computed (section distances skipped)");
  EXPECT_NE(r.md().find("\"not computed\" marks sections"), std::string::npos);
}

TEST(ReportSkip, UnknownIdsAreUsageErrorsListingTheValidOnes) {
  const auto ids = all_section_ids();
  for (const std::string opt : {"--skip", "--sections"}) {
    ReportCall r("--n 16 --pattern ssm " + opt + " verify,nosuch");
    EXPECT_EQ(r.rc, 2) << opt;
    const std::string e = r.err();
    EXPECT_NE(e.find("nosuch"), std::string::npos) << e;
    for (const auto& id : ids) EXPECT_NE(e.find(id), std::string::npos) << id << " not listed in: " << e;
    EXPECT_FALSE(fs::exists(r.dir)) << "nothing is written on a usage error";
  }
  ReportCall both("--n 16 --pattern ssm --skip verify --sections summary");
  EXPECT_EQ(both.rc, 2);
}

// ---- --progress ---------------------------------------------------------------------------------------

namespace {
struct ProgressLine {
  double t = 0;
  std::size_t step = 0, total = 0;
  std::string eta, what;
};
std::vector<ProgressLine> progress_lines(const std::string& err) {
  static const std::regex re(R"(^\[report +([0-9.]+)s  step ([0-9]+)/([0-9]+)  ETA ([^\]]+)\] (.+)$)");
  std::vector<ProgressLine> v;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, re)) continue;
    v.push_back({std::stod(m[1]), std::stoul(m[2]), std::stoul(m[3]), m[4], m[5]});
  }
  return v;
}
bool sighup_ignored() {
  struct sigaction old {};
  return ::sigaction(SIGHUP, nullptr, &old) == 0 && old.sa_handler == SIG_IGN;
}
}  // namespace

TEST(ReportProgress, AlwaysPrintsPlainLinesWithAnEtaIntoAPipe) {
  // stderr goes through a pipe (cat), as under Jupyter's `!` or a CI log.
  std::random_device rd;
  const fs::path tmp = fs::temp_directory_path() / ("mixgraph_test_progress_" + std::to_string(rd()));
  fs::create_directories(tmp);
  const std::string cmd =
      mixgraph::test::cli_path() +
      " report --n 32 --pattern pow2 --pattern ssm --skip verify --progress always --out " +
      (tmp / "out").string() + " 2>&1 >/dev/null | cat > " + (tmp / "err.txt").string();
  ASSERT_EQ(run(cmd), 0);
  const std::string err = read_file(tmp / "err.txt");
  const auto manifest = nlohmann::json::parse(read_file(tmp / "out/report.json"));
  std::error_code ec;
  fs::remove_all(tmp, ec);
  EXPECT_EQ(err.find('\r'), std::string::npos) << "no carriage returns";
  const auto lines = progress_lines(err);
  ASSERT_GE(lines.size(), 5u) << err;
  // Steps: 2 pattern builds + 2 per section that ran + the documents (counted from report.json).
  std::size_t done = 0;
  for (const auto& s : manifest["sections"]) done += s["status"] == "done" ? 1 : 0;
  const std::size_t total = 2 + 2 * done + 1;
  std::size_t with_eta = 0;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    EXPECT_EQ(lines[k].total, total) << err;
    EXPECT_GE(lines[k].step, 1u);
    EXPECT_LE(lines[k].step, total);
    if (k) {
      EXPECT_GE(lines[k].step, lines[k - 1].step) << err;
      EXPECT_GE(lines[k].t, lines[k - 1].t) << err;
    }
    if (std::regex_match(lines[k].eta, std::regex(R"([0-9]+s|[0-9]+m[0-9]{2}s|[0-9]+h[0-9]{2}m)"))) {
      ++with_eta;
    } else {
      EXPECT_EQ(lines[k].eta, "?") << "only before a step completed";
    }
  }
  EXPECT_EQ(lines.front().eta, "?");
  EXPECT_EQ(lines.front().what, "pow2: pattern and cache profile");
  EXPECT_EQ(lines.back().step, total);
  // The last line announces the last step (the documents), so its ETA is that step's estimate: a duration,
  // near 0 on a fast build but not exactly 0 (the sanitizer build takes seconds per step).
  EXPECT_NE(lines.back().eta, "?");
  EXPECT_GE(with_eta, lines.size() - 1);
}

TEST(ReportProgress, NeverPrintsNothingAndAutoFollowsTheNotebookVariable) {
  ReportCall never("--n 16 --pattern ssm --skip verify --progress never");
  ASSERT_EQ(never.rc, 0);
  EXPECT_EQ(never.err(), "");
  // auto, stderr a file: silent, unless run from a Jupyter kernel (or under nohup).
  ReportCall quiet("--n 16 --pattern ssm --sections summary");
  ASSERT_EQ(quiet.rc, 0);
  if (!sighup_ignored() && !std::getenv("JPY_PARENT_PID")) {
    EXPECT_EQ(quiet.err(), "");
  }
  const std::string cmd = "JPY_PARENT_PID=1 " + mixgraph::test::cli_path() +
                          " report --n 16 --pattern ssm --sections summary --out " +
                          (quiet.tmp / "nb").string() + " 2> " + (quiet.tmp / "nb.txt").string() +
                          " >/dev/null";
  ASSERT_EQ(run(cmd), 0);
  EXPECT_EQ(progress_lines(read_file(quiet.tmp / "nb.txt")).size(), 3u);  // build, summary, documents
  ReportCall bad("--n 16 --pattern ssm --progress sometimes");
  EXPECT_EQ(bad.rc, 2);
}

// ---- capped sections ----------------------------------------------------------------------------------

TEST(ReportCaps, CappedSectionsSayWhatAndHowToLiftItAndNoHeadingIsEmpty) {
  ReportCall r(
      "--n 80 --pattern sq1 --pattern ssm --dense-cap 64 --all-pairs-cap 40 --heatmap-cap 50 --skip verify");
  ASSERT_EQ(r.rc, 0) << r.err();
  const std::string md = r.md();
  const std::string op = md_section(md, "The induced operator |M|");
  ASSERT_FALSE(op.empty()) << md;
  EXPECT_NE(op.find("|M| heatmap and operator table for sq1 skipped: n = 80 > --dense-cap 64"),
            std::string::npos)
      << op;
  EXPECT_NE(op.find("raise --dense-cap to draw it"), std::string::npos) << op;
  const std::string masks = md_section(md, "The A and B masks");
  EXPECT_NE(masks.find("n = 80 > --heatmap-cap 50; raise --heatmap-cap to draw them"), std::string::npos)
      << masks;
  const std::string dist = md_section(md, "Shortest paths");
  EXPECT_NE(dist.find("> --all-pairs-cap 40; raise --all-pairs-cap to draw it"), std::string::npos) << dist;
  // No "## " heading is followed directly by the next heading or the end.
  std::istringstream in(md);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (lines[k].rfind("## ", 0) != 0 && lines[k].rfind("### ", 0) != 0) continue;
    std::size_t j = k + 1;
    while (j < lines.size() && lines[j].find_first_not_of(" \t") == std::string::npos) ++j;
    EXPECT_TRUE(j < lines.size() && lines[j].rfind("## ", 0) != 0) << "empty heading: " << lines[k];
  }
}

// ---- figure width and style ---------------------------------------------------------------------------

namespace {
/// A PNG's width from its IHDR chunk (bytes 16..19, big-endian), read without the plotting code.
int png_width(const fs::path& p) {
  const std::string s = read_file(p);
  if (s.size() < 24 || s.compare(1, 3, "PNG") != 0) return -1;
  int w = 0;
  for (int k = 16; k < 20; ++k) w = (w << 8) | static_cast<unsigned char>(s[k]);
  return w;
}
}  // namespace

TEST(ReportFigures, PaperStyleAtOneColumnHasTextOfAtLeast7Points) {
  if (!mixgraph::plots_built_in()) GTEST_SKIP() << "cairo is not built in";
  ReportCall tmp("--n 16 --pattern ssm --sections summary");  // a scratch directory
  std::vector<mixgraph::LineSeries> s = {{"pow2+cache", {1, 2, 4, 8, 16, 1024}, {1, 2, 3, 4, 5, 10}, true},
                                         {"sq1", {1, 2, 4, 8, 16, 1024}, {1, 1.5, 2, 3, 4, 32}, false}};
  mixgraph::LinePlotOptions o;
  o.title = "max cache";
  o.note = "a note line";
  o.log_x = o.log_y = true;  // 10^k labels: exponents are the smallest text
  const auto screen = mixgraph::write_line_plot((tmp.tmp / "screen.png").string(), s, o);
  const int ws = png_width(tmp.tmp / "screen.png");
  ASSERT_EQ(ws, screen.width_px);
  // The default layout shrunk into a 3.3-inch column: text far below 7 pt (what --fig-width fixes).
  EXPECT_LT(mixgraph::text_points(screen.min_font_px, ws, 3.3), 5.0);
  for (double width : {3.3, 6.9}) {
    o.width_in = width;
    o.style = mixgraph::FigureStyle::Paper;
    const auto paper = mixgraph::write_line_plot((tmp.tmp / "paper.png").string(), s, o);
    const int wp = png_width(tmp.tmp / "paper.png");
    EXPECT_EQ(wp, static_cast<int>(std::lround(width * mixgraph::kFigureDpi)));
    EXPECT_EQ(wp, paper.width_px);
    EXPECT_GE(mixgraph::text_points(paper.min_font_px, wp, width), 7.0) << width;
    EXPECT_LE(mixgraph::text_points(paper.font_px, wp, width), 12.0) << width;
  }
}

TEST(ReportFigures, FigWidthAndStyleReachTheReportsLinePlots) {
  if (!mixgraph::plots_built_in()) GTEST_SKIP() << "cairo is not built in";
  ReportCall r(
      "--n 64 --pattern pow2 --pattern ssm --sections profile,congestion,ranks --fig-width 3.3 "
      "--style paper");
  ASSERT_EQ(r.rc, 0) << r.err();
  const auto j = r.manifest();
  EXPECT_EQ(j["parameters"]["style"], "paper");
  EXPECT_DOUBLE_EQ(j["parameters"]["fig_width"].get<double>(), 3.3);
  for (const char* f : {"figures/cut_rank.png", "figures/congestion_over_n.png"}) {
    ASSERT_TRUE(fs::exists(r.dir / f)) << f;
    EXPECT_EQ(png_width(r.dir / f), 660) << f;
  }
  ReportCall bad("--n 16 --pattern ssm --style poster");
  EXPECT_EQ(bad.rc, 2);
}

TEST(ReportFigures, CutRankPlotDataHasTheNumericCheckBesideTheFlowRank) {
  // The cut_rank figure draws tables/cut_ranks.csv: the flow rank at every cut, the numeric rank at the
  // spaced cuts. pow2 has full rank min(K, n - K) at every cut, so both must equal that.
  ReportCall r("--n 64 --pattern pow2 --sections ranks --rank-cuts 8");
  ASSERT_EQ(r.rc, 0) << r.err();
  std::istringstream csv(read_file(r.dir / "tables/cut_ranks.csv"));
  std::string line;
  std::getline(csv, line);
  ASSERT_EQ(line.rfind("pattern,K,numeric_rank,flow_rank", 0), 0u) << line;
  std::size_t cuts = 0, numeric = 0;
  for (; std::getline(csv, line); ++cuts) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_GE(f.size(), 4u) << line;
    const long K = std::stol(f[1]), full = std::min(K, 64 - K);
    EXPECT_EQ(std::stol(f[3]), full) << line;
    if (!f[2].empty()) {
      ++numeric;
      EXPECT_EQ(std::stol(f[2]), full) << line;
    }
  }
  EXPECT_EQ(cuts, 63u);
  EXPECT_GE(numeric, 8u);
  const std::string md = r.md();
  EXPECT_NE(md.find("linear y from 0"), std::string::npos);
  EXPECT_NE(md.find("the numeric rank at the spaced cuts"), std::string::npos);
}

TEST(ReportFigures, LoadHistogramDataCoversEveryPositionOnceAndReachesTheCongestion) {
  // The load figure draws tables/congestion_load_<stem>.csv (load, positions): a histogram of the 2N
  // positions of the hardest copy length, so the counts sum to 2N and the largest load is the congestion
  // of that routing, which Table 1 reports as "C (optimal) at N = X" or "lo..hi at N = X".
  ReportCall r("--n 64 --pattern pow2 --sections congestion");
  ASSERT_EQ(r.rc, 0) << r.err();
  const std::string cell = r.manifest()["table1"][0]["congestion"].get<std::string>();
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(cell, m, std::regex(R"(^([0-9]+)(?: \(optimal\)|\.\.([0-9]+)) at N = ([0-9]+))")))
      << cell;
  const long upper = m[2].matched ? std::stol(m[2]) : std::stol(m[1]), N = std::stol(m[3]);
  std::istringstream csv(read_file(r.dir / "tables/congestion_load_pow2.csv"));
  std::string line;
  std::getline(csv, line);
  ASSERT_EQ(line, "load,positions");
  long positions = 0, max_load = -1, prev = -1;
  while (std::getline(csv, line)) {
    const auto comma = line.find(',');
    const long load = std::stol(line.substr(0, comma)), count = std::stol(line.substr(comma + 1));
    EXPECT_GT(load, prev) << "loads ascending, each once";
    EXPECT_GT(count, 0);
    prev = load, positions += count, max_load = std::max(max_load, load);
  }
  EXPECT_EQ(positions, 2 * N);
  EXPECT_EQ(max_load, upper);
}

namespace {
/// A CSV file as rows of fields keyed by the header's names (RFC 4180 quotes; no line breaks in fields).
std::vector<std::map<std::string, std::string>> read_csv(const fs::path& p) {
  std::istringstream in(read_file(p));
  std::string line;
  std::vector<std::string> head;
  std::vector<std::map<std::string, std::string>> rows;
  auto split = [](const std::string& l) {
    std::vector<std::string> f;
    std::string cur;
    bool quoted = false;
    for (std::size_t k = 0; k < l.size(); ++k) {
      const char c = l[k];
      if (c == '"' && quoted && k + 1 < l.size() && l[k + 1] == '"') {
        cur += '"';
        ++k;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        f.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    f.push_back(cur);
    return f;
  };
  if (std::getline(in, line)) head = split(line);
  while (std::getline(in, line)) {
    const auto f = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t k = 0; k < head.size() && k < f.size(); ++k) row[head[k]] = f[k];
    rows.push_back(row);
  }
  return rows;
}

/// A lower-triangular n x n matrix with values over many decades (like |M|), dense row-major.
std::vector<double> decades_matrix(std::size_t n) {
  std::vector<double> m(n * n, NAN);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) m[i * n + j] = std::pow(10.0, -6.0 * double(i - j) / double(n));
  return m;
}
}  // namespace

TEST(ReportFigures, HeatmapsTakeTheFigureWidthAndStyle) {
  if (!mixgraph::plots_built_in()) GTEST_SKIP() << "cairo is not built in";
  ReportCall tmp("--n 16 --pattern ssm --sections summary");  // a scratch directory
  const std::size_t n = 1024;
  const auto m = decades_matrix(n);
  mixgraph::HeatmapOptions o;
  o.title = "|M| of a test matrix";
  o.note = "a long note line that is wider than a one-column figure and has to be wrapped to fit it";
  o.scale = mixgraph::ColorScale::Log;  // 10^k labels: exponents are the smallest text
  o.colorbar_label = "|M(i, j)|";
  const auto screen =
      mixgraph::write_heatmap((tmp.tmp / "screen.png").string(), mixgraph::MatrixView::dense(m, n, n), o);
  const int ws = png_width(tmp.tmp / "screen.png");
  ASSERT_EQ(ws, screen.width_px);
  // The default layout shrunk into a 3.3-inch column: text far below 7 pt (what --fig-width fixes).
  EXPECT_LT(mixgraph::text_points(screen.min_font_px, ws, 3.3), 5.0);
  for (auto style : {mixgraph::FigureStyle::Paper, mixgraph::FigureStyle::Screen})
    for (double width : {3.3, 6.9}) {
      o.width_in = width;
      o.style = style;
      const auto h =
          mixgraph::write_heatmap((tmp.tmp / "sized.png").string(), mixgraph::MatrixView::dense(m, n, n), o);
      const int w = png_width(tmp.tmp / "sized.png");
      EXPECT_EQ(w, static_cast<int>(std::lround(width * mixgraph::kFigureDpi))) << width;
      EXPECT_EQ(w, h.width_px);
      EXPECT_GE(mixgraph::text_points(h.min_font_px, w, width), 7.0) << width;
      EXPECT_LE(mixgraph::text_points(h.font_px, w, width), 12.0) << width;
      // The cells fit the picture: pooled (to what pool_matrix gives for max_side) where the room is short.
      EXPECT_LE(h.plot_x + double(h.cols * h.cell_px), double(w));
      const auto pm =
          mixgraph::pool_matrix(mixgraph::MatrixView::dense(m, n, n), h.max_side, mixgraph::Pooling::Max);
      EXPECT_EQ(pm.rows, h.rows);
      EXPECT_EQ(pm.factor, h.factor);
      if (width < 4) {
        EXPECT_GT(h.factor, 1u) << "1024 cells do not fit a one-column figure";
      }
    }
}

TEST(ReportFigures, EveryFigureOfTheReportAtOneColumnPaperHasTextOfAtLeast7Points) {
  // Every PNG the report lists is in report.json's "figures" with the size it was drawn at and the
  // smallest text drawn in it (measured while drawing); the PNG's own header must agree on the width.
  if (!mixgraph::plots_built_in()) GTEST_SKIP() << "cairo is not built in";
  ReportCall r(
      "--n 64 --pattern pow2 --pattern ssm --pattern sq1 --skip verify --fig-width 3.3 --style paper");
  ASSERT_EQ(r.rc, 0) << r.err();
  const auto j = r.manifest();
  std::map<std::string, nlohmann::json> drawn;
  for (const auto& f : j["figures"]) drawn[f["path"].get<std::string>()] = f;
  std::size_t pngs = 0;
  std::set<std::string> kinds;
  for (const auto& f : j["files"]) {
    const std::string path = f.get<std::string>();
    if (path.size() < 4 || path.compare(path.size() - 4, 4, ".png") != 0) continue;
    ++pngs;
    kinds.insert(path.substr(8, path.find('_', 8) - 8));  // "figures/M_pow2.png" -> "M"
    ASSERT_TRUE(drawn.count(path)) << path << " is not in report.json's figures";
    const auto& d = drawn[path];
    const int w = png_width(r.dir / path);
    EXPECT_EQ(w, 660) << path;
    EXPECT_EQ(w, d["width_px"].get<int>()) << path;
    EXPECT_GE(mixgraph::text_points(d["min_font_px"].get<double>(), w, 3.3), 7.0) << path;
    EXPECT_LE(mixgraph::text_points(d["font_px"].get<double>(), w, 3.3), 12.0) << path;
  }
  EXPECT_EQ(pngs, drawn.size());
  // Heatmaps (masks, |M|, distances) and line plots (profiles, congestion, cut ranks) are all among them.
  for (const char* k : {"A", "B", "M", "d", "congestion", "cut", "sweep", "distance"})
    EXPECT_TRUE(kinds.count(k)) << "no figure " << k << "_*";
}

TEST(ReportFigures, HeatmapDataBesideThePngIsPooledAsDrawn) {
  // At one column a 1024 x 1024 distance matrix does not fit one pixel per cell: the PNG pools it, and the
  // .npy beside it (which the notebook redraws) must hold the same pooled matrix.
  if (!mixgraph::plots_built_in()) GTEST_SKIP() << "cairo is not built in";
  ReportCall r("--n 1024 --pattern pow2 --sections distances --fig-width 3.3 --style paper");
  ASSERT_EQ(r.rc, 0) << r.err();
  const std::string npy = read_file(r.dir / "figures/d_pow2.npy");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(npy, m, std::regex(R"('shape': \(([0-9]+), ([0-9]+)\))")))
      << npy.substr(0, 80);
  const long rows = std::stol(m[1]), cols = std::stol(m[2]);
  EXPECT_EQ(rows, cols);
  EXPECT_LT(rows, 1024) << "pooled";
  const long f = (1024 + rows - 1) / rows;
  EXPECT_EQ((1024 + f - 1) / f, rows) << "blocks of " << f;
  EXPECT_LE(rows, 660) << "fits the one-column plot";
  // The notebook cell that redraws it passes the same pooling factor.
  EXPECT_NE(read_file(r.dir / "report.ipynb").find("factor=" + std::to_string(f)), std::string::npos);
}

TEST(ReportFigures, CongestionBandDataIsTheCongestionTablesBounds) {
  // figures/congestion_over_n.csv: per pattern a band "<p> certified bounds" (y = certified lower bound,
  // y_upper = best checked routing) and points "<p> best routing" (y = that routing), one per row of
  // tables/congestion.csv where copying is possible.
  ReportCall r("--n 64 --pattern pow2 --pattern sq1 --sections congestion");
  ASSERT_EQ(r.rc, 0) << r.err();
  const auto table = read_csv(r.dir / "tables/congestion.csv");
  const auto fig = read_csv(r.dir / "figures/congestion_over_n.csv");
  ASSERT_FALSE(fig.empty());
  ASSERT_TRUE(fig[0].count("y_upper")) << "no y_upper column";
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> band, points;
  for (const auto& row : fig) {
    if (row.at("x").empty()) continue;  // the break between points
    const std::string s = row.at("series");
    for (const char* suffix : {" certified bounds", " best routing"}) {
      const std::string sf = suffix;
      if (s.size() > sf.size() && s.compare(s.size() - sf.size(), sf.size(), sf) == 0) {
        auto& into = sf == " best routing" ? points : band;
        const auto key = std::make_pair(s.substr(0, s.size() - sf.size()), row.at("x"));
        EXPECT_FALSE(into.count(key)) << s << " twice at N = " << row.at("x");
        into[key] = {row.at("y"), row.at("y_upper")};
      }
    }
  }
  std::size_t rows = 0;
  for (const auto& t : table) {
    if (t.at("status") == "impossible") continue;
    ++rows;
    const auto key = std::make_pair(t.at("pattern"), t.at("N"));
    ASSERT_TRUE(band.count(key)) << key.first << " N = " << key.second;
    EXPECT_EQ(band[key].first, t.at("lower")) << key.first << " N = " << key.second;
    EXPECT_EQ(band[key].second, t.at("upper")) << key.first << " N = " << key.second;
    if (!t.at("upper").empty()) {
      EXPECT_LE(std::stol(t.at("lower")), std::stol(t.at("upper")));
      EXPECT_EQ(points[key].first, t.at("upper")) << key.first << " N = " << key.second;
    }
  }
  EXPECT_EQ(band.size(), rows);
  EXPECT_GT(rows, 10u);
}

TEST(ReportGrowth, LabelsAreThoseOfPatternSweepForTheSameData) {
  // The report's sweep runs n = 16, 32, ..., 4096; `pattern --sweep 16..4096` runs the same points. The
  // max cache is fitted by both (bounded by n): the labels must be equal. The report's max decode cost (also
  // bounded by n) gets the same free fit on the max decode costs `pattern --sweep` lists.
  ReportCall r("--n 4096 --pattern pow2 --pattern sq1+cache --sections summary,profile");
  ASSERT_EQ(r.rc, 0) << r.err();
  const auto growth = read_csv(r.dir / "tables/growth.csv");
  const auto t1 = r.manifest()["table1"];
  ASSERT_EQ(t1.size(), 2u);
  for (const std::string spec : {"pow2", "sq1+cache"}) {
    const auto s = mixgraph::test::run_cli("pattern -p " + spec + " --sweep 16..4096 --format json");
    ASSERT_EQ(s.code, 0) << s.err;
    const auto j = nlohmann::json::parse(s.out);
    std::vector<double> ns, decode;
    for (const auto& e : j["sweep"]) {
      ns.push_back(e["n"].get<double>());
      decode.push_back(e["max_decode_cost"].get<double>());
    }
    ASSERT_EQ(ns.size(), 9u);
    const std::map<std::string, std::string> want = {
        {"max_cache", j["fits"]["max_cache"]["free"]["label"].get<std::string>()},
        {"max_decode_cost", mixgraph::fit_power(ns, decode, 1.0).label}};
    int seen = 0;
    for (const auto& row : growth) {
      if (row.at("pattern") != spec) continue;
      ++seen;
      EXPECT_EQ(row.at("label"), want.at(row.at("quantity"))) << spec << " " << row.at("quantity");
    }
    EXPECT_EQ(seen, 2) << spec;
    for (const auto& row : t1)  // Table 1 shows the label in brackets
      if (row["pattern"] == spec) {
        EXPECT_NE(row["cache"].get<std::string>().find("(" + want.at("max_cache") + ")"), std::string::npos)
            << row["cache"];
        EXPECT_NE(row["time_per_token"].get<std::string>().find("(" + want.at("max_decode_cost") + ")"),
                  std::string::npos)
            << row["time_per_token"];
      }
  }
}
