// The paper layout of every figure kind at one column (3.3 in) and two (6.75 in): the plot area takes at
// least 60% of the picture, every drawn box is inside it, no two pieces of text overlap and none covers the
// plot. The boxes are those the drawing code recorded; the files are read back on their own: the PNG's
// size and pHYs chunk (libpng), its frame pixels where the plot box says, the PDF's MediaBox, the SVG's
// width, height and <text> elements (expat).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "mixgraph/plot.hpp"

#ifdef MIXGRAPH_TEST_HAVE_PNG
#include <png.h>
#include <zlib.h>
#endif
#ifdef MIXGRAPH_TEST_HAVE_EXPAT
#include <expat.h>
#endif

namespace fs = std::filesystem;
using mixgraph::FigureBox;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Drawn {
  std::string name;
  int width_px = 0, height_px = 0;
  double dpi = 0;
  std::vector<FigureBox> boxes;
};

/// One figure of each kind the report draws, in the paper style at `width_in`, written to `path`.
std::vector<Drawn> draw_all(const fs::path& dir, double width_in, const std::string& ext) {
  std::vector<Drawn> out;
  auto heat = [&](const std::string& name, std::size_t n, auto value, mixgraph::HeatmapOptions o) {
    std::vector<double> m(n * n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) m[i * n + j] = value(i, j);
    o.width_in = width_in;
    o.style = mixgraph::FigureStyle::Paper;
    o.title = "a title the paper style leaves out";
    const auto info =
        mixgraph::write_heatmap((dir / (name + ext)).string(), mixgraph::MatrixView::dense(m, n, n), o);
    out.push_back({name, info.width_px, info.height_px, info.dpi, info.boxes});
  };
  {  // |M|: a log colour bar (10^k labels) and exactly-zero cells (the masked-cell key)
    mixgraph::HeatmapOptions o;
    o.scale = mixgraph::ColorScale::Log;
    o.colorbar_label = "|M(i, j)|";
    o.masked_label = "exactly 0";
    heat(
        "M_log", 600,
        [](std::size_t i, std::size_t j) {
          return j > i ? NAN : std::pow(10.0, -6.0 * double(i - j) / 600.0);
        },
        o);
  }
  {  // distances: integer levels and unreachable cells
    mixgraph::HeatmapOptions o;
    o.integer_levels = true;
    o.colorbar_label = "d(i, j) (hops)";
    o.masked_label = "unreachable";
    heat(
        "d_int", 256,
        [](std::size_t i, std::size_t j) { return j > i ? NAN : double(__builtin_popcountll(i - j)); }, o);
  }
  {  // a mask: two-entry legend instead of a colour bar
    mixgraph::HeatmapOptions o;
    o.mask_label = "nonzero";
    o.masked_label = "zero";
    heat(
        "A_mask", 64, [](std::size_t i, std::size_t j) { return (i - j) % 3 == 0 && j <= i ? 1.0 : NAN; }, o);
  }
  {  // a linear continuous colour bar, nothing masked
    mixgraph::HeatmapOptions o;
    o.colorbar_label = "value";
    heat(
        "lin", 100, [](std::size_t i, std::size_t j) { return 1000.0 * std::sin(double(i * j) / 50.0); }, o);
  }
  auto lines = [&](const std::string& name, std::vector<mixgraph::LineSeries> s,
                   mixgraph::LinePlotOptions o) {
    o.width_in = width_in;
    o.style = mixgraph::FigureStyle::Paper;
    const auto info = mixgraph::write_line_plot((dir / (name + ext)).string(), s, o);
    out.push_back({name, info.width_px, info.height_px, info.dpi, info.boxes});
  };
  {  // log-log sweeps of five patterns (legend in rows)
    std::vector<mixgraph::LineSeries> s;
    for (const char* p : {"pow2", "pow2+cache", "sq1", "sq1+cache", "ssm"}) {
      mixgraph::LineSeries l(p, {}, {}, true);
      for (double n = 16; n <= 4096; n *= 2)
        l.x.push_back(n), l.y.push_back(std::pow(n, 0.3 + 0.1 * s.size()));
      s.push_back(l);
    }
    lines("sweep", s,
          {"Max cache over n", "n (tokens)", "max cache", true, true, "", {16, 64, 256, 1024, 4096}});
  }
  {  // a histogram (bars) on linear axes
    mixgraph::LineSeries b("load", {1, 2, 3, 4, 5, 6}, {120, 340, 220, 80, 20, 4});
    b.bars = true;
    lines("load", {b}, {"Load", "load (paths through a position)", "positions", false, false, "", {}});
  }
  {  // bands and points over a log x axis, linear y
    mixgraph::LineSeries band("pow2 certified bounds", {1, 2, 4, 8, 16, 32, 64}, {1, 2, 2, 3, 3, 4, 4});
    band.y_upper = {1, 2, 3, 4, 4, 5, 6};
    mixgraph::LineSeries pts("pow2 best routing", {1, 2, 4, 8, 16, 32, 64}, {1, 2, 3, 4, 4, 5, 6}, true);
    lines("congestion", {band, pts},
          {"Congestion", "copy length N (pattern on 2N tokens)", "congestion C", true, false, "", {}});
  }
  return out;
}

bool inside(const FigureBox& b, int w, int h) {
  const double eps = 0.5;
  return b.x >= -eps && b.y >= -eps && b.x + b.w <= w + eps && b.y + b.h <= h + eps;
}
bool overlap(const FigureBox& a, const FigureBox& b) {
  const double eps = 0.5;  // touching is fine
  return a.x + a.w > b.x + eps && b.x + b.w > a.x + eps && a.y + a.h > b.y + eps && b.y + b.h > a.y + eps;
}

/// The layout checks on the recorded boxes of one figure.
void check_layout(const Drawn& d, double width_in) {
  SCOPED_TRACE(d.name + " at " + std::to_string(width_in) + " in");
  EXPECT_EQ(d.width_px, static_cast<int>(std::lround(width_in * mixgraph::kFigureDpi)));
  EXPECT_EQ(d.dpi, mixgraph::kFigureDpi);
  const FigureBox* plot = nullptr;
  std::vector<const FigureBox*> text;
  for (const auto& b : d.boxes) {
    EXPECT_TRUE(inside(b, d.width_px, d.height_px))
        << b.kind << " '" << b.text << "' at " << b.x << "," << b.y << " " << b.w << "x" << b.h << " in a "
        << d.width_px << "x" << d.height_px << " picture";
    if (b.kind == "plot") plot = &b;
    if (b.kind == "text") text.push_back(&b);
  }
  ASSERT_NE(plot, nullptr);
  EXPECT_GE(plot->w * plot->h, 0.6 * d.width_px * d.height_px)
      << "plot " << plot->w << "x" << plot->h << " of " << d.width_px << "x" << d.height_px;
  EXPECT_GE(text.size(), 6u) << "tick labels and axis labels";
  for (std::size_t a = 0; a < text.size(); ++a) {
    EXPECT_FALSE(overlap(*text[a], *plot)) << "'" << text[a]->text << "' covers the plot";
    for (std::size_t b = a + 1; b < text.size(); ++b)
      EXPECT_FALSE(overlap(*text[a], *text[b])) << "'" << text[a]->text << "' and '" << text[b]->text << "'";
  }
  for (const auto& b : d.boxes)
    if (b.kind == "legend") {
      EXPECT_FALSE(overlap(b, *plot)) << "legend '" << b.text << "' on the plot";
    }
  for (const auto& b : d.boxes) EXPECT_NE(b.text, "a title the paper style leaves out");
}

}  // namespace

TEST(PlotLayout, PaperFiguresAtOneAndTwoColumnsLeaveThePlotSixtyPercentAndOverlapNothing) {
  if (!mixgraph::plots_built_in()) GTEST_SKIP() << "cairo is not built in";
  const fs::path dir = fs::temp_directory_path() / ("mixgraph_plot_layout_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (double width : {3.3, 6.75})
    for (const auto& d : draw_all(dir, width, ".png")) check_layout(d, width);
  fs::remove_all(dir);
}

TEST(PlotLayout, PngCarriesItsDpiAndThePlotFrameIsWhereTheBoxSays) {
#ifndef MIXGRAPH_TEST_HAVE_PNG
  GTEST_SKIP() << "libpng (libpng-dev) was not found at build time";
#else
  if (!mixgraph::plots_built_in()) GTEST_SKIP() << "cairo is not built in";
  const fs::path dir = fs::temp_directory_path() / ("mixgraph_plot_png_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (double width : {3.3, 6.75})
    for (const auto& d : draw_all(dir, width, ".png")) {
      SCOPED_TRACE(d.name);
      png_image img{};
      img.version = PNG_IMAGE_VERSION;
      const std::string file = (dir / (d.name + ".png")).string();
      ASSERT_TRUE(png_image_begin_read_from_file(&img, file.c_str())) << img.message;
      img.format = PNG_FORMAT_RGB;
      std::vector<unsigned char> px(PNG_IMAGE_SIZE(img));
      ASSERT_TRUE(png_image_finish_read(&img, nullptr, px.data(), 0, nullptr)) << img.message;
      EXPECT_EQ(static_cast<int>(img.width), d.width_px);
      EXPECT_EQ(static_cast<int>(img.height), d.height_px);
      // The frame is drawn in dark ink on the plot box's left and right edges, at mid-height.
      for (const auto& b : d.boxes)
        if (b.kind == "plot")
          for (double x : {b.x, b.x + b.w}) {
            const auto at =
                (static_cast<std::size_t>(b.y + b.h / 2) * img.width + static_cast<std::size_t>(x)) * 3;
            EXPECT_LT(px[at] + px[at + 1] + px[at + 2], 3 * 128) << "no frame at x = " << x;
          }
      // The chunks read one by one, each CRC checked with zlib's crc32: pHYs in pixels per metre.
      const std::string bytes = read_file(file);
      auto be32 = [&](std::size_t at) {
        return (std::uint32_t(std::uint8_t(bytes[at])) << 24) |
               (std::uint32_t(std::uint8_t(bytes[at + 1])) << 16) |
               (std::uint32_t(std::uint8_t(bytes[at + 2])) << 8) | std::uint32_t(std::uint8_t(bytes[at + 3]));
      };
      std::size_t phys = 0, idat = 0;
      for (std::size_t at = 8; at + 12 <= bytes.size();) {
        const std::uint32_t len = be32(at);
        ASSERT_LE(at + 12 + len, bytes.size());
        const std::string type = bytes.substr(at + 4, 4);
        const auto crc = crc32(0, reinterpret_cast<const Bytef*>(bytes.data() + at + 4), len + 4);
        EXPECT_EQ(crc, be32(at + 8 + len)) << "CRC of " << type;
        if (type == "IDAT" && !idat) idat = at;
        if (type == "pHYs") {
          phys = at;
          ASSERT_EQ(len, 9u);
          EXPECT_EQ(be32(at + 8), be32(at + 12)) << "square pixels";
          EXPECT_NEAR(be32(at + 8) * 0.0254, mixgraph::kFigureDpi, 0.01) << "dpi";
          EXPECT_EQ(bytes[at + 16], 1) << "unit: metre";
        }
        at += 12 + len;
      }
      EXPECT_GT(phys, 0u) << "no pHYs chunk";
      EXPECT_LT(phys, idat) << "pHYs must come before the image data";
    }
  fs::remove_all(dir);
#endif
}

TEST(PlotLayout, PdfPageIsThePrintedWidth) {
  if (!mixgraph::plots_built_in()) GTEST_SKIP() << "cairo is not built in";
  const fs::path dir = fs::temp_directory_path() / ("mixgraph_plot_pdf_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (double width : {3.3, 6.75})
    for (const auto& d : draw_all(dir, width, ".pdf")) {
      SCOPED_TRACE(d.name);
      const std::string pdf = read_file(dir / (d.name + ".pdf"));
      std::smatch m;
      ASSERT_TRUE(
          std::regex_search(pdf, m, std::regex(R"(/MediaBox\s*\[\s*0\s+0\s+([0-9.]+)\s+([0-9.]+)\s*\])")));
      EXPECT_NEAR(std::stod(m[1]), width * 72, 0.01) << "page width in pt";
      EXPECT_NEAR(std::stod(m[2]), d.height_px * 72.0 / d.dpi, 0.01) << "page height in pt";
    }
  fs::remove_all(dir);
}

#ifdef MIXGRAPH_TEST_HAVE_EXPAT
namespace {
struct SvgRead {
  std::map<std::string, std::string> root;
  std::vector<std::string> texts;
  std::vector<std::pair<double, double>> text_at;  // x, y attributes
  std::size_t glyphs = 0;                          // <symbol> / glyph outlines
  std::string scale;                               // the transform of the text group
  int depth = 0;
  bool in_text = false;
  std::string cur;
};
void XMLCALL on_start(void* u, const char* name, const char** attr) {
  auto* r = static_cast<SvgRead*>(u);
  std::map<std::string, std::string> a;
  for (int k = 0; attr[k]; k += 2) a[attr[k]] = attr[k + 1];
  if (r->depth++ == 0) r->root = a;
  const std::string n = name;
  if (n == "symbol") ++r->glyphs;
  if (n == "g" && a.count("font-family")) r->scale = a["transform"];
  if (n == "text") {
    r->in_text = true;
    r->cur.clear();
    r->text_at.push_back({std::stod(a["x"]), std::stod(a["y"])});
  }
}
void XMLCALL on_end(void* u, const char* name) {
  auto* r = static_cast<SvgRead*>(u);
  --r->depth;
  if (std::string(name) == "text") r->texts.push_back(r->cur), r->in_text = false;
}
void XMLCALL on_chars(void* u, const char* s, int len) {
  auto* r = static_cast<SvgRead*>(u);
  if (r->in_text) r->cur.append(s, static_cast<std::size_t>(len));
}
}  // namespace
#endif

TEST(PlotLayout, SvgIsThePrintedSizeInPointsWithItsTextAsText) {
#ifndef MIXGRAPH_TEST_HAVE_EXPAT
  GTEST_SKIP() << "expat (libexpat1-dev) was not found at build time";
#else
  if (!mixgraph::plots_built_in()) GTEST_SKIP() << "cairo is not built in";
  const fs::path dir = fs::temp_directory_path() / ("mixgraph_plot_svg_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (double width : {3.3, 6.75})
    for (const auto& d : draw_all(dir, width, ".svg")) {
      SCOPED_TRACE(d.name);
      const std::string svg = read_file(dir / (d.name + ".svg"));
      SvgRead r;
      XML_Parser p = XML_ParserCreate("UTF-8");
      XML_SetUserData(p, &r);
      XML_SetElementHandler(p, on_start, on_end);
      XML_SetCharacterDataHandler(p, on_chars);
      ASSERT_EQ(XML_Parse(p, svg.data(), static_cast<int>(svg.size()), 1), XML_STATUS_OK)
          << XML_ErrorString(XML_GetErrorCode(p));
      XML_ParserFree(p);
      std::smatch m;
      const std::string w = r.root["width"], h = r.root["height"];
      ASSERT_TRUE(std::regex_match(w, m, std::regex(R"(([0-9.]+)pt)"))) << w;
      EXPECT_NEAR(std::stod(m[1]), width * 72, 0.01);
      ASSERT_TRUE(std::regex_match(h, m, std::regex(R"(([0-9.]+)pt)"))) << h;
      EXPECT_NEAR(std::stod(m[1]), d.height_px * 72.0 / d.dpi, 0.01);
      EXPECT_EQ(r.glyphs, 0u) << "text drawn as glyph outlines";
      // The same pieces of text as the drawing code recorded, each inside the picture (pixels, scaled to pt).
      std::multiset<std::string> drawn, written(r.texts.begin(), r.texts.end());
      for (const auto& b : d.boxes)
        if (b.kind == "text") drawn.insert(b.text);
      EXPECT_EQ(written, drawn);
      EXPECT_EQ(r.scale, "scale(0.36)");
      for (auto [x, y] : r.text_at) {
        EXPECT_GE(x, 0);
        EXPECT_LE(x, d.width_px);
        EXPECT_GE(y, 0);
        EXPECT_LE(y, d.height_px);
      }
    }
  fs::remove_all(dir);
#endif
}
