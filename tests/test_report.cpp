// mixgraph report and the export layer: colour map, pooling, tables, base64, figures (decoded
// with libpng, SVG parsed with expat), the induced operator against a dense Eigen solve, atomic writes,
// and the `mixgraph report` command end to end (notebook validated with nbformat, executed with nbconvert);
// the analysis sections (distances, congestion, ranks, validation) against independent references.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "dense_mixer.hpp"
#include "mixgraph/atomic_file.hpp"
#include "mixgraph/colormap.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/induced.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/plot.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/report_writer.hpp"
#include "mixgraph/table.hpp"
#include "mixgraph/weights.hpp"

#ifdef MIXGRAPH_TEST_HAVE_PNG
#include <png.h>
#endif
#ifdef MIXGRAPH_TEST_HAVE_EXPAT
#include <expat.h>
#endif

namespace fs = std::filesystem;
using namespace mixgraph;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct ReportTempDir {
  fs::path path;
  ReportTempDir() {
    std::random_device rd;
    path =
        fs::temp_directory_path() / ("mixgraph_test_report_" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~ReportTempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& s) const { return (path / s).string(); }
};

using mixgraph::test::read_file;
using mixgraph::test::run;

std::string cli() {
  return mixgraph::test::cli_path();
}

bool have(const std::string& exe) {
  return fs::exists(exe);
}

struct Png {
  bool ok = false;
  std::string error;
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  std::array<int, 3> at(int x, int y) const {
    const std::size_t k = (static_cast<std::size_t>(y) * width + x) * 3;
    return {rgb[k], rgb[k + 1], rgb[k + 2]};
  }
};

/// Decodes a whole PNG file to 8-bit RGB with libpng's simplified API.
Png decode_png(const std::string& path) {
  Png out;
#ifdef MIXGRAPH_TEST_HAVE_PNG
  png_image img;
  std::memset(&img, 0, sizeof img);
  img.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&img, path.c_str())) {
    out.error = img.message;
    return out;
  }
  img.format = PNG_FORMAT_RGB;
  out.rgb.resize(PNG_IMAGE_SIZE(img));
  if (!png_image_finish_read(&img, nullptr, out.rgb.data(), 0, nullptr)) {
    out.error = img.message;
    png_image_free(&img);
    return out;
  }
  out.ok = true;
  out.width = static_cast<int>(img.width);
  out.height = static_cast<int>(img.height);
#else
  (void)path;
  out.error = "libpng not found at build time";
#endif
  return out;
}

/// Parses a file as XML with expat; returns "" when well formed, else the error, and the root's name.
std::string parse_xml(const std::string& path, std::string* root = nullptr) {
#ifdef MIXGRAPH_TEST_HAVE_EXPAT
  const std::string text = read_file(path);
  XML_Parser p = XML_ParserCreate(nullptr);
  std::string first;
  XML_SetUserData(p, &first);
  XML_SetStartElementHandler(p, [](void* ud, const XML_Char* name, const XML_Char**) {
    auto* f = static_cast<std::string*>(ud);
    if (f->empty()) *f = name;
  });
  std::string err;
  if (XML_Parse(p, text.data(), static_cast<int>(text.size()), 1) == XML_STATUS_ERROR)
    err = std::string(XML_ErrorString(XML_GetErrorCode(p))) + " at line " +
          std::to_string(XML_GetCurrentLineNumber(p));
  XML_ParserFree(p);
  if (root) *root = first;
  return err;
#else
  (void)path;
  (void)root;
  return "expat not found at build time";
#endif
}

/// An independent base64 decoder (the test's own, for the notebook's embedded PNGs).
std::string b64_decode(const std::string& s) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int buf = 0, bits = 0;
  for (char c : s) {
    const int v = val(c);
    if (v < 0) continue;
    buf = (buf << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buf >> bits) & 0xFF);
    }
  }
  return out;
}

std::array<int, 3> to8(const Rgb& c) {
  return {static_cast<int>(std::lround(c.r * 255)), static_cast<int>(std::lround(c.g * 255)),
          static_cast<int>(std::lround(c.b * 255))};
}

}  // namespace

// ---- colour map ------------------------------------------------------------------------------------------

TEST(Viridis, EndpointsAndMiddleMatchThePublishedTable) {
  // Published viridis (van der Walt & Smith 2015): first, middle (entry 128) and last entries.
  const Rgb lo = viridis(0.0), mid = viridis(0.5), hi = viridis(1.0);
  EXPECT_NEAR(lo.r, 0.267004, 1e-6);
  EXPECT_NEAR(lo.g, 0.004874, 1e-6);
  EXPECT_NEAR(lo.b, 0.329415, 1e-6);
  EXPECT_NEAR(mid.r, 0.127568, 1e-6);
  EXPECT_NEAR(mid.g, 0.566949, 1e-6);
  EXPECT_NEAR(mid.b, 0.550556, 1e-6);
  EXPECT_NEAR(hi.r, 0.993248, 1e-6);
  EXPECT_NEAR(hi.g, 0.906157, 1e-6);
  EXPECT_NEAR(hi.b, 0.143936, 1e-6);
  // Clamping and NaN.
  EXPECT_EQ(viridis(-3).r, lo.r);
  EXPECT_EQ(viridis(7).g, hi.g);
  EXPECT_EQ(viridis(kNaN).b, lo.b);
}

TEST(Viridis, LightnessIncreasesMonotonically) {
  // Perceptual maps have monotone lightness; relative luminance of sRGB is a close proxy.
  auto lin = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
  double prev = -1;
  for (const auto& e : viridis_table()) {
    const double y = 0.2126 * lin(e[0]) + 0.7152 * lin(e[1]) + 0.0722 * lin(e[2]);
    EXPECT_GT(y, prev);
    prev = y;
  }
}

TEST(Viridis, WholeTableMatchesMatplotlibWhenInstalled) {
  const std::string py = "/usr/bin/python3";
  if (!have(py)) GTEST_SKIP() << "/usr/bin/python3 not found (Debian python3-matplotlib gives the reference)";
  ReportTempDir d;
  const std::string out = d / "viridis.txt";
  const int rc = run(py +
                     " -c \"import matplotlib; cm = matplotlib.colormaps['viridis']; "
                     "print('\\n'.join('%.6f %.6f %.6f' % cm(k)[:3] for k in range(256)))\" > " +
                     out + " 2>/dev/null");
  if (rc != 0) GTEST_SKIP() << "python3-matplotlib not importable (apt install python3-matplotlib)";
  std::ifstream in(out);
  for (int k = 0; k < 256; ++k) {
    double r, g, b;
    ASSERT_TRUE(in >> r >> g >> b) << "entry " << k;
    const auto& e = viridis_table()[k];
    EXPECT_NEAR(e[0], r, 1e-6) << k;
    EXPECT_NEAR(e[1], g, 1e-6) << k;
    EXPECT_NEAR(e[2], b, 1e-6) << k;
  }
}

// ---- pooling, ticks, tables, base64 ----------------------------------------------------------------------

TEST(Pooling, MaxAndMeanMatchBruteForceAndKeepTheMaximum) {
  const std::size_t R = 4100, C = 3000;
  std::vector<double> v(R * C);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (auto& x : v) x = u(rng) < 0.3 ? kNaN : u(rng);
  for (std::size_t j = 0; j < 7; ++j) v[j] = kNaN;  // a partly masked block
  for (std::size_t i = 0; i < 3; ++i)               // one block fully masked: rows 0..2, cols 3..5
    for (std::size_t j = 3; j < 6; ++j) v[i * C + j] = kNaN;
  v[1234 * C + 2345] = 5.0;  // the global max
  const auto pm = pool_matrix(MatrixView::dense(v, R, C), 2048, Pooling::Max);
  const auto pa = pool_matrix(MatrixView::dense(v, R, C), 2048, Pooling::Mean);
  ASSERT_EQ(pm.factor, 3u);  // ceil(4100 / 2048) = 3
  EXPECT_EQ(pm.rows, 1367u);
  EXPECT_EQ(pm.cols, 1000u);
  EXPECT_LE(pm.rows, 2048u);
  double gmax = -1;
  for (std::size_t bi = 0; bi < pm.rows; ++bi)
    for (std::size_t bj = 0; bj < pm.cols; ++bj) {
      double mx = -std::numeric_limits<double>::infinity(), sum = 0;
      int cnt = 0;
      for (std::size_t i = bi * 3; i < std::min(R, bi * 3 + 3); ++i)
        for (std::size_t j = bj * 3; j < std::min(C, bj * 3 + 3); ++j)
          if (!std::isnan(v[i * C + j])) mx = std::max(mx, v[i * C + j]), sum += v[i * C + j], ++cnt;
      const double gotm = pm.values[bi * pm.cols + bj], gota = pa.values[bi * pa.cols + bj];
      if (cnt == 0) {
        EXPECT_TRUE(std::isnan(gotm));
        EXPECT_TRUE(std::isnan(gota));
      } else {
        ASSERT_EQ(gotm, mx) << bi << "," << bj;
        ASSERT_NEAR(gota, sum / cnt, 1e-12);
        gmax = std::max(gmax, gotm);
      }
    }
  EXPECT_EQ(gmax, 5.0);
  EXPECT_TRUE(std::isnan(pm.values[1]));  // block (0, 1) = rows 0..2, cols 3..5
  // Small matrices are left alone.
  const auto same = pool_matrix(MatrixView::dense(v, 10, 10), 2048, Pooling::Max);
  EXPECT_EQ(same.factor, 1u);
}

TEST(Ticks, NiceTicksCoverTheRangeWithRoundSteps) {
  auto t = nice_ticks(0, 1000, 5);
  ASSERT_GE(t.size(), 4u);
  EXPECT_EQ(t.front(), 0);
  EXPECT_EQ(t.back(), 1000);
  auto u = nice_ticks(0.013, 0.087, 4);
  for (double v : u) EXPECT_TRUE(v >= 0.013 && v <= 0.087);
  EXPECT_EQ(nice_ticks(3, 3, 5).size(), 1u);
}

TEST(Table, CsvJsonMarkdownHtmlConventions) {
  DataTable t{"t", "caption", {"name", "count", "value", "d"}, {}};
  t.add({Cell::text("a,\"b\""), Cell::integer(3), Cell::real(0.5), Cell::unreachable()});
  t.add({Cell::text("x|y"), Cell::integer(-1), Cell::empty(), Cell::text("not available")});
  EXPECT_THROW(t.add({Cell::integer(1)}), std::invalid_argument);
  EXPECT_EQ(to_csv(t), "name,count,value,d\n\"a,\"\"b\"\"\",3,0.5,inf\nx|y,-1,,not available\n");
  const auto j = to_json(t);
  EXPECT_EQ(j["schema"], "mixgraph.report.table/1");
  EXPECT_TRUE(j["rows"][0]["d"].is_null());  // unreachable = null in JSON
  EXPECT_EQ(j["rows"][0]["count"], 3);
  EXPECT_TRUE(j["rows"][1]["value"].is_null());
  const auto md = to_markdown(t, 1);
  EXPECT_NE(md.find("| name | count | value | d |"), std::string::npos);
  EXPECT_NE(md.find("showing 1 of 2 rows"), std::string::npos);
  EXPECT_EQ(to_markdown(t).find("x|y"), std::string::npos);  // escaped as x\|y
  EXPECT_NE(to_html(t).find("a,&quot;b&quot;"), std::string::npos);
  // missing: empty in CSV, "-" in Markdown; booleans true/false everywhere; a whole real still reads as one
  DataTable b{"b", "caption", {"ok", "x", "r"}, {}};
  b.add({Cell::boolean(true), Cell::empty(), Cell::real(2.0)});
  b.add({Cell::boolean(false), Cell::integer(4), Cell::real(1e30)});
  EXPECT_EQ(to_csv(b), "ok,x,r\ntrue,,2.0\nfalse,4,1e+30\n");
  EXPECT_NE(to_markdown(b).find("| true | - | 2.0 |"), std::string::npos);
  const auto jb = to_json(b);
  EXPECT_EQ(jb["rows"][0]["ok"], true);
  EXPECT_EQ(jb["rows"][1]["ok"], false);
  EXPECT_TRUE(jb["rows"][0]["x"].is_null());
}

TEST(Base64, Rfc4648TestVectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  std::string bin;
  for (int k = 0; k < 1000; ++k) bin += static_cast<char>(k * 37);
  EXPECT_EQ(b64_decode(base64_encode(bin)), bin);
}

TEST(FileStem, SpecsBecomeSafeNames) {
  EXPECT_EQ(file_stem("pow2+cache"), "pow2-cache");
  EXPECT_EQ(file_stem("offsets:1,5"), "offsets_1_5");
  EXPECT_EQ(file_stem("mtx:a/b.mtx"), "mtx_a_b.mtx");
}

// ---- induced operator
// --------------------------------------------------------------------------------------

TEST(InducedOperator, MatchesDenseEigenTriangularSolve) {
  for (const char* spec : {"pow2", "sq1+cache", "ssm", "attention", "local:3", "window:3", "offsets:2"}) {
    const Pattern p = make_pattern(spec, 70);
    const auto w = random_weights(p, 5);
    const int n = static_cast<int>(p.n);
    const Eigen::MatrixXd ref = test::dense_operator(w, p.n);
    const Eigen::MatrixXd got = induced_operator_dense(p, 5);
    ASSERT_EQ(got.rows(), n);
    EXPECT_LT((got - ref).cwiseAbs().maxCoeff(), 1e-12) << spec;
    // Strictly upper part exactly zero; offsets {2} never links positions of different parity.
    EXPECT_EQ(got.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().cwiseAbs().maxCoeff(), 0.0) << spec;
    if (std::string(spec) == "offsets:2") {
      EXPECT_EQ(got(5, 2), 0.0);
    }
  }
}

TEST(InducedOperator, RefusesWhatDoesNotFit) {
  const Pattern p = make_pattern("pow2", 4096);
  EXPECT_THROW(induced_operator_dense(p, 1, /*mem_limit=*/1 << 20), RuntimeFailure);
}

// ---- figures -------------------------------------------------------------------------------------------

TEST(Heatmap, PngHasTheRightSizeOrientationAndColours) {
  if (!plots_built_in()) GTEST_SKIP() << "cairo is not built in (libcairo2-dev)";
  ReportTempDir d;
  const std::size_t n = 12;
  std::vector<double> m(n * n, kNaN);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) m[i * n + j] = 1.0 + static_cast<double>(i + j);
  m[0] = 100.0;          // position (1, 1): the maximum -> the top of viridis
  m[(n - 1) * n] = 1.0;  // position (n, 1): the minimum -> the bottom
  HeatmapOptions o;
  o.title = "test";
  const auto info = write_heatmap(d / "h.png", MatrixView::dense(m, n, n), o);
  EXPECT_EQ(info.factor, 1u);
  EXPECT_EQ(info.vmin, 1.0);
  EXPECT_EQ(info.vmax, 100.0);
  const Png png = decode_png(d / "h.png");
  if (!png.ok && png.error == "libpng not found at build time") GTEST_SKIP() << png.error;
  ASSERT_TRUE(png.ok) << png.error;
  EXPECT_EQ(png.width, info.width_px);
  EXPECT_EQ(png.height, info.height_px);
  EXPECT_GE(png.width, static_cast<int>(n) * info.cell_px);
  auto centre = [&](std::size_t i, std::size_t j) {
    return png.at(static_cast<int>(info.plot_x + (j + 0.5) * info.cell_px),
                  static_cast<int>(info.plot_y + (i + 0.5) * info.cell_px));
  };
  EXPECT_EQ(centre(0, 0), to8(viridis(1.0)));       // row 1 at the top, column 1 at the left
  EXPECT_EQ(centre(n - 1, 0), to8(viridis(0.0)));   // row n at the bottom
  EXPECT_EQ(centre(0, n - 1), to8(masked_grey()));  // above the diagonal: masked
}

TEST(Heatmap, LargeMatricesArePooledToAtMost2048AndTheTitleSaysSo) {
  if (!plots_built_in()) GTEST_SKIP() << "cairo is not built in (libcairo2-dev)";
  ReportTempDir d;
  const std::size_t n = 4100;
  MatrixView v{
      n, n, [](std::size_t i, std::size_t j) { return i == 4000 && j == 17 ? 9.0 : (i >= j ? 1.0 : kNaN); }};
  HeatmapOptions o;
  o.title = "big";
  const auto info = write_heatmap(d / "big.png", v, o);
  EXPECT_EQ(info.factor, 3u);
  EXPECT_LE(info.rows, 2048u);
  EXPECT_EQ(info.vmax, 9.0);  // max pooling kept the single large entry
  const Png png = decode_png(d / "big.png");
  if (!png.ok && png.error == "libpng not found at build time") GTEST_SKIP() << png.error;
  ASSERT_TRUE(png.ok) << png.error;
  EXPECT_EQ(png.width, info.width_px);
  EXPECT_EQ(png.height, info.height_px);
  EXPECT_EQ(png.at(static_cast<int>(info.plot_x + (17 / 3 + 0.5) * info.cell_px),
                   static_cast<int>(info.plot_y + (4000 / 3 + 0.5) * info.cell_px)),
            to8(viridis(1.0)));
}

TEST(Heatmap, IntegerLevelsGetOneColourEach) {
  if (!plots_built_in()) GTEST_SKIP() << "cairo is not built in (libcairo2-dev)";
  ReportTempDir d;
  // A distance-like matrix: d(i, j) = popcount(i - j) below the diagonal, unreachable above.
  const std::size_t n = 40;
  std::vector<double> m(n * n, kNaN);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) m[i * n + j] = static_cast<double>(__builtin_popcountll(i - j));
  HeatmapOptions o;
  o.title = "d(i, j)";
  o.integer_levels = true;
  o.masked_label = "unreachable";
  const auto info = write_heatmap(d / "d.png", MatrixView::dense(m, n, n), o);
  EXPECT_EQ(info.vmin, 0.0);
  EXPECT_EQ(info.vmax, 5.0);  // popcount of 31
  const Png png = decode_png(d / "d.png");
  if (!png.ok && png.error == "libpng not found at build time") GTEST_SKIP() << png.error;
  ASSERT_TRUE(png.ok) << png.error;
  auto centre = [&](std::size_t i, std::size_t j) {
    return png.at(static_cast<int>(info.plot_x + (j + 0.5) * info.cell_px),
                  static_cast<int>(info.plot_y + (i + 0.5) * info.cell_px));
  };
  // Six levels 0..5: level k is viridis((k + 0.5) / 6).
  for (std::size_t i : {0u, 5u, 17u, 39u})
    for (std::size_t j = 0; j <= i; j += 3)
      EXPECT_EQ(centre(i, j), to8(viridis((__builtin_popcountll(i - j) + 0.5) / 6))) << i << "," << j;
}

TEST(Heatmap, SvgAndPdfAreWellFormed) {
  if (!plots_built_in()) GTEST_SKIP() << "cairo is not built in (libcairo2-dev)";
  ReportTempDir d;
  const std::size_t n = 16;
  std::vector<double> m(n * n, kNaN);
  for (std::size_t i = 0; i < n; ++i) m[i * n + i] = 1;
  HeatmapOptions o;
  o.title = "mask <&> test";
  o.mask_label = "nonzero";
  write_heatmap(d / "m.svg", MatrixView::dense(m, n, n), o);
  write_heatmap(d / "m.pdf", MatrixView::dense(m, n, n), o);
  write_line_plot(d / "l.svg", {{"a & b", {1, 2, 3}, {1, 4, 9}, true}}, {"t", "x", "y", false, true, "", {}});
  for (const char* f : {"m.svg", "l.svg"}) {
    std::string root;
    const auto err = parse_xml(d / f, &root);
    if (err == "expat not found at build time") GTEST_SKIP() << err;
    EXPECT_EQ(err, "") << f;
    EXPECT_EQ(root, "svg") << f;
  }
  EXPECT_EQ(read_file(d / "m.pdf").substr(0, 5), "%PDF-");
}

// cairo names an SVG's drawing after a per-process counter of surfaces; the file must not depend on what
// was drawn before it (a report's sections drawn on other MPI ranks give the same bytes).
TEST(Heatmap, SvgBytesDoNotDependOnEarlierFigures) {
  if (!plots_built_in()) GTEST_SKIP() << "cairo is not built in (libcairo2-dev)";
  ReportTempDir d;
  const std::size_t n = 8;
  std::vector<double> m(n * n, kNaN);
  for (std::size_t i = 0; i < n; ++i) m[i * n + i] = 1;
  HeatmapOptions o;
  o.title = "diagonal";
  write_heatmap(d / "a.svg", MatrixView::dense(m, n, n), o);
  for (int k = 0; k < 3; ++k) write_heatmap(d / "other.png", MatrixView::dense(m, n, n), o);
  write_line_plot(d / "l.svg", {{"a", {1, 2, 3}, {1, 4, 9}, true}}, {"t", "x", "y", false, true, "", {}});
  write_heatmap(d / "b.svg", MatrixView::dense(m, n, n), o);
  const std::string a = read_file(d / "a.svg"), b = read_file(d / "b.svg");
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("id=\"surface1\""), std::string::npos);
  EXPECT_NE(read_file(d / "l.svg").find("id=\"surface1\""), std::string::npos);
}

TEST(Heatmap, BadExtensionAndEmptyMatrixAreUsageErrors) {
  ReportTempDir d;
  std::vector<double> m(4, 1.0);
  EXPECT_THROW(write_heatmap(d / "x.jpg", MatrixView::dense(m, 2, 2), {}), UsageError);
  EXPECT_THROW(write_heatmap(d / "x.png", MatrixView::dense(m, 0, 0), {}), UsageError);
  EXPECT_FALSE(fs::exists(d / "x.png"));
}

TEST(LinePlot, PngDecodesWithItsSize) {
  if (!plots_built_in()) GTEST_SKIP() << "cairo is not built in (libcairo2-dev)";
  ReportTempDir d;
  std::vector<LineSeries> s = {{"one", {1, 2, 4, 8}, {1, 2, 3, 4}, true},
                               {"two", {1, 2, 4, 8}, {0, 5, kNaN, 2}, false}};
  write_line_plot(d / "p.png", s, {"title", "x", "y", true, true, "note", {1, 2, 4, 8}});
  const Png png = decode_png(d / "p.png");
  if (!png.ok && png.error == "libpng not found at build time") GTEST_SKIP() << png.error;
  ASSERT_TRUE(png.ok) << png.error;
  EXPECT_GT(png.width, 800);
  EXPECT_GT(png.height, 500);
  EXPECT_THROW(write_line_plot(d / "q.png", {{"bad", {1, 2}, {1}, false}}, {}), UsageError);
}

// ---- atomic files ----------------------------------------------------------------------------------------

TEST(Atomic, AFailingWriterLeavesNoFileAndKeepsTheOldOne) {
  ReportTempDir d;
  const std::string target = d / "f.txt";
  EXPECT_THROW(write_file_atomic(target,
                                 [](std::ostream& os) {
                                   os << "partial";
                                   throw RuntimeFailure("boom");
                                 }),
               RuntimeFailure);
  EXPECT_FALSE(fs::exists(target));
  write_file_atomic(target, std::string("old"));
  EXPECT_THROW(write_file_atomic(target,
                                 [](std::ostream& os) {
                                   os << "new but partial";
                                   throw std::runtime_error("boom");
                                 }),
               std::runtime_error);
  EXPECT_EQ(read_file(target), "old");
  std::size_t entries = 0;
  for (auto& e : fs::directory_iterator(d.path)) (void)e, ++entries;
  EXPECT_EQ(entries, 1u);  // no temp file left behind
}

TEST(Atomic, FigureIntoAMissingDirectoryFailsCleanly) {
  if (!plots_built_in()) GTEST_SKIP() << "cairo is not built in (libcairo2-dev)";
  ReportTempDir d;
  std::vector<double> m(4, 1.0);
  EXPECT_THROW(write_heatmap(d / "no/such/dir/x.png", MatrixView::dense(m, 2, 2), {}), RuntimeFailure);
  EXPECT_FALSE(fs::exists(d / "no"));
}

// ---- the report writer and `mixgraph report`
// ----------------------------------------------------------------

TEST(ReportWriter, OrdersSectionsAndWritesEveryCellWithAnId) {
  ReportTempDir d;
  ReportWriter w(d / "r");
  w.section("late", "Late", 50);
  w.markdown("late text");
  w.section("early", "Early", 10);
  DataTable t{"tab", "a table", {"a"}, {}};
  t.add({Cell::integer(1)});
  w.table(t);
  w.note("capped", "something");
  w.carry_on("x = 1");
  w.finish("Title", "intro");
  const std::string md = read_file(d / "r/report.md");
  EXPECT_LT(md.find("## Early"), md.find("## Late"));
  EXPECT_NE(md.find("**capped**: something"), std::string::npos);
  EXPECT_TRUE(fs::exists(d / "r/tables/tab.csv"));
  EXPECT_TRUE(fs::exists(d / "r/tables/tab.json"));
  const auto nb = nlohmann::json::parse(read_file(d / "r/report.ipynb"));
  EXPECT_EQ(nb["nbformat"], 4);
  EXPECT_EQ(nb["nbformat_minor"], 5);
  std::set<std::string> ids;
  for (const auto& c : nb["cells"]) {
    ASSERT_TRUE(c.contains("id"));
    EXPECT_TRUE(ids.insert(c["id"].get<std::string>()).second);
  }
}

namespace {

struct ReportRun {
  ReportTempDir tmp;
  std::string dir;
  int rc = -1;
  explicit ReportRun(const std::string& args) {
    dir = tmp / "out";
    rc = run(cli() + " report " + args + " --out " + dir + " > " + (tmp / "stdout.txt") + " 2> " +
             (tmp / "stderr.txt"));
  }
};

/// Each figures/<name>.png of the report run decodes (nothing to check where plots are not built in; the test
/// is skipped where libpng is missing).
void expect_figures_decode(const ReportRun& r, std::initializer_list<const char*> names) {
  if (!plots_built_in()) return;
  for (const char* f : names) {
    const Png png = decode_png(r.dir + "/figures/" + f + ".png");
    if (!png.ok && png.error == "libpng not found at build time") GTEST_SKIP() << png.error;
    EXPECT_TRUE(png.ok) << f << ": " << png.error;
  }
}

}  // namespace

TEST(ReportCommand, WritesEveryFileItListsAndEveryPngDecodes) {
  ReportRun r("--n 64 --pattern pow2 --pattern pow2+cache --pattern ssm --pattern attention");
  ASSERT_EQ(r.rc, 0) << read_file(r.tmp / "stderr.txt");
  const auto manifest = nlohmann::json::parse(read_file(r.dir + "/report.json"));
  EXPECT_EQ(manifest["schema"], "mixgraph.report/1");
  for (const auto& sec : manifest["sections"]) {
    // Every analysis is built in: every section ran, none is pending.
    const std::string id = sec["id"], status = sec["status"];
    EXPECT_EQ(status, "done") << id;
  }
  std::size_t pngs = 0;
  for (const auto& f : manifest["files"]) {
    const std::string path = r.dir + "/" + f.get<std::string>();
    ASSERT_TRUE(fs::exists(path)) << path;
    if (path.size() > 4 && path.substr(path.size() - 4) == ".png") {
      const Png png = decode_png(path);
      if (!png.ok && png.error == "libpng not found at build time") GTEST_SKIP() << png.error;
      ASSERT_TRUE(png.ok) << path << ": " << png.error;
      EXPECT_GE(png.width, 400) << path;
      EXPECT_GE(png.height, 400) << path;
      EXPECT_LE(png.width, 2048 + 600) << path;
      ++pngs;
    }
    if (path.size() > 4 && path.substr(path.size() - 4) == ".svg") {
      const auto err = parse_xml(path);
      if (err != "expat not found at build time") {
        EXPECT_EQ(err, "") << path;
      }
    }
  }
  if (plots_built_in()) {
    // A, B, |M|, d(i, j) and the node load of the best routing per pattern; three profile plots, the distance
    // profile, congestion over N, cut rank and cut rank vs cache.
    EXPECT_EQ(pngs, 4u * 5 + 3 + 1 + 1 + 2);
  }
  // Every file in the directory is listed (no stray temp files).
  for (auto& e : fs::recursive_directory_iterator(r.dir)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = fs::relative(e.path(), r.dir).string();
    EXPECT_NE(std::find(manifest["files"].begin(), manifest["files"].end(), rel), manifest["files"].end())
        << rel;
  }
  // Table 1: measured cells filled, none pending.
  const auto t1 = nlohmann::json::parse(read_file(r.dir + "/tables/table1.json"));
  ASSERT_EQ(t1["rows"].size(), 4u);
  EXPECT_EQ(t1["rows"][0]["pattern"], "pow2");
  // ceil(log2 64) = 6 offsets below 64, growing like log n; ssm keeps one position.
  EXPECT_EQ(t1["rows"][0]["time_per_token"], "6 (O(log n))");
  EXPECT_EQ(t1["rows"][2]["cache"], "1 (O(1))");
  // pow2 on 64 tokens: the diameter is popcount(63) = 6; full attention reaches every pair in one hop.
  EXPECT_EQ(t1["rows"][0]["shortest_path"], 6);
  EXPECT_EQ(t1["rows"][3]["shortest_path"], 1);
  for (const auto& row : t1["rows"])
    for (const auto& [k, v] : row.items())
      if (v.is_string()) {
        EXPECT_EQ(v.get<std::string>().find("pending"), std::string::npos) << k;
      }
  EXPECT_EQ(t1["rows"][0]["congestion_paper"], "<= log2 n");
  // report.md embeds images that exist.
  const std::string md = read_file(r.dir + "/report.md");
  std::size_t pos = 0, images = 0;
  while ((pos = md.find("](figures/", pos)) != std::string::npos) {
    const auto end = md.find(')', pos);
    EXPECT_TRUE(fs::exists(r.dir + "/" + md.substr(pos + 2, end - pos - 2)));
    pos = end, ++images;
  }
  if (plots_built_in()) {
    EXPECT_EQ(images, pngs);
  }
  EXPECT_EQ(md.find("pending ("), std::string::npos);
  // The notebook embeds the PNGs byte for byte; each figure's cell draws it from the data file beside it
  // (figures/<name>.npy or .csv).
  const auto nb = nlohmann::json::parse(read_file(r.dir + "/report.ipynb"));
  std::size_t embedded = 0;
  for (const auto& c : nb["cells"]) {
    if (c["cell_type"] != "code") continue;
    for (const auto& o : c["outputs"])
      if (o["data"].contains("image/png")) {
        const std::string src = c["source"].get<std::string>();
        const auto a = src.find("\"figures/") + 1, b = src.find('"', a);
        ASSERT_NE(a, std::string::npos + 1) << src;
        const std::string data = src.substr(a, b - a);
        EXPECT_TRUE(fs::exists(r.dir + "/" + data)) << data;
        EXPECT_EQ(b64_decode(o["data"]["image/png"].get<std::string>()),
                  read_file(r.dir + "/" + data.substr(0, data.rfind('.')) + ".png"));
        ++embedded;
      }
  }
  EXPECT_EQ(embedded, pngs);
}

TEST(ReportCommand, ForceRuleExitCodesAndNothingWrittenOnBadInput) {
  ReportRun r("--n 32 --pattern ssm");
  ASSERT_EQ(r.rc, 0);
  const std::string before = read_file(r.dir + "/report.md");
  // Non-empty without --force: usage error, nothing touched.
  EXPECT_EQ(run(cli() + " report --n 16 --pattern pow2 --out " + r.dir + " 2>/dev/null >/dev/null"), 2);
  EXPECT_EQ(read_file(r.dir + "/report.md"), before);
  // With --force: rewritten.
  EXPECT_EQ(run(cli() + " report --n 16 --pattern pow2 --force --out " + r.dir + " 2>/dev/null >/dev/null"),
            0);
  EXPECT_NE(read_file(r.dir + "/report.md"), before);
  // A bad pattern: usage error before any directory is made.
  EXPECT_EQ(
      run(cli() + " report --n 16 --pattern nosuch --out " + (r.tmp / "bad") + " 2>/dev/null >/dev/null"), 2);
  EXPECT_FALSE(fs::exists(r.tmp / "bad"));
  // --out is a file: usage error. --out below a file: runtime failure (cannot create).
  write_file_atomic(r.tmp / "afile", std::string("x"));
  EXPECT_EQ(run(cli() + " report --n 16 --out " + (r.tmp / "afile") + " 2>/dev/null >/dev/null"), 2);
  EXPECT_EQ(
      run(cli() + " report --n 16 --pattern ssm --out " + (r.tmp / "afile/sub") + " 2>/dev/null >/dev/null"),
      1);
  EXPECT_EQ(run(cli() + " report --n 0 --out " + (r.tmp / "zero") + " 2>/dev/null >/dev/null"), 2);
}

TEST(ReportCommand, CapsAreReported) {
  ReportRun r("--n 80 --pattern sq1 --dense-cap 64 --svg-cap 100 --format json");
  ASSERT_EQ(r.rc, 0) << read_file(r.tmp / "stderr.txt");
  const auto j = nlohmann::json::parse(read_file(r.tmp / "stdout.txt"));
  bool capped = false;
  for (const auto& nt : j["notes"])
    capped |=
        nt["kind"] == "capped" && nt["text"].get<std::string>().find("--dense-cap") != std::string::npos;
  EXPECT_TRUE(capped);
  EXPECT_FALSE(fs::exists(r.dir + "/figures/M_sq1.png"));
  if (plots_built_in()) {
    EXPECT_TRUE(fs::exists(r.dir + "/figures/A_sq1.svg"));
  }
  EXPECT_NE(read_file(r.dir + "/report.md").find("--dense-cap"), std::string::npos);
}

TEST(ReportCommand, NotebookValidatesWithNbformatAndExecutesSlow) {
  const std::string py = "/usr/bin/python3", jupyter = "/usr/bin/jupyter";
  if (!have(py)) GTEST_SKIP() << "/usr/bin/python3 not found";
  if (run(py + " -c 'import nbformat' 2>/dev/null") != 0) GTEST_SKIP() << "python3-nbformat is not installed";
  ReportRun r("--n 48 --pattern pow2 --pattern sq1+cache");
  ASSERT_EQ(r.rc, 0) << read_file(r.tmp / "stderr.txt");
  const std::string nb = r.dir + "/report.ipynb";
  EXPECT_EQ(run(py + " -c \"import nbformat; nbformat.validate(nbformat.read('" + nb + "', 4))\""), 0);
  if (!have(jupyter) || run(jupyter + " nbconvert --version >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "jupyter-nbconvert is not installed (apt install jupyter-nbconvert python3-ipykernel)";
  if (run(py + " -c 'import pandas, matplotlib, ipykernel' 2>/dev/null") != 0)
    GTEST_SKIP() << "python3-pandas, python3-matplotlib or python3-ipykernel missing";
  const std::string executed = r.tmp / "executed.ipynb";
  ASSERT_EQ(
      run("cd " + r.dir + " && " + jupyter + " nbconvert --to notebook --execute report.ipynb --output " +
          executed + " > " + (r.tmp / "nbconvert.txt") + " 2>&1"),
      0)
      << read_file(r.tmp / "nbconvert.txt");
  const auto ex = nlohmann::json::parse(read_file(executed));
  std::size_t errors = 0, images = 0;
  for (const auto& c : ex["cells"])
    if (c["cell_type"] == "code")
      for (const auto& o : c["outputs"]) {
        errors += o["output_type"] == "error";
        images += o.contains("data") && o["data"].contains("image/png");
      }
  EXPECT_EQ(errors, 0u);
  if (plots_built_in()) {
    EXPECT_GT(images, 6u);  // the rendered figures plus the matplotlib ones
  }
}

// ---- the analysis sections (distances, congestion, ranks, validation)
// -----------------------------------------------------------------------------

namespace {

/// d(i, j) for every pair by the test's own BFS over the layered DAG of docs/math.md §3, from the pattern's
/// read lists alone: x_j reaches y_j at 0 when A has the diagonal, y_k at 1 when A(k, j) != 0 (k != j), then
/// every further hop is a B read. dist[i * n + j]; -1 = no path.
std::vector<int> brute_distances(const Pattern& p) {
  const pos_t n = p.n;
  std::vector<std::vector<pos_t>> a_out(n), b_out(n);
  std::vector<char> diag(n, 0);
  for (pos_t i = 0; i < n; ++i) {
    for_each_a_read(p, i, [&](pos_t j) {
      if (j == i)
        diag[i] = 1;
      else
        a_out[j].push_back(i);
    });
    for_each_b_read(p, i, [&](pos_t j) { b_out[j].push_back(i); });
  }
  std::vector<int> d(static_cast<std::size_t>(n) * n, -1);
  for (pos_t j = 0; j < n; ++j) {
    std::vector<int> dist(n, -1);
    std::deque<pos_t> q;
    // 0-1 BFS: the diagonal hop is free.
    if (diag[j]) dist[j] = 0, q.push_back(j);
    for (pos_t k : a_out[j])
      if (dist[k] < 0) dist[k] = 1, q.push_back(k);
    if (diag[j])
      for (pos_t k : b_out[j])
        if (dist[k] < 0 || dist[k] > 1) dist[k] = 1, q.push_back(k);
    // Plain BFS from the seeds in order of distance (seeds are at 0 or 1, queue is sorted).
    std::sort(q.begin(), q.end(), [&](pos_t a, pos_t b) { return dist[a] < dist[b]; });
    while (!q.empty()) {
      const pos_t u = q.front();
      q.pop_front();
      for (pos_t v : b_out[u])
        if (dist[v] < 0) dist[v] = dist[u] + 1, q.push_back(v);
    }
    for (pos_t i = 0; i < n; ++i) d[static_cast<std::size_t>(i) * n + j] = dist[i];
  }
  return d;
}

nlohmann::json row_of(const nlohmann::json& table, const std::string& pattern) {
  for (const auto& r : table["rows"])
    if (r["pattern"] == pattern) return r;
  return nullptr;
}

}  // namespace

TEST(ReportSections, Table1SaysTooFewPointsWhereTheSweepHasOneN) {
  // n = 16: the decode-cost sweep (powers of two up to n) has one point per pattern, too few for a growth
  // fit; Table 1 gives the measured value and says so (never an empty "or" between two classes).
  ReportRun r("--n 16 --pattern ssm --pattern pow2 --sections summary,profile --progress never");
  ASSERT_EQ(r.rc, 0) << read_file(r.tmp / "stderr.txt");
  const auto sweep = nlohmann::json::parse(read_file(r.dir + "/tables/sweep.json"));
  const auto t1 = nlohmann::json::parse(read_file(r.dir + "/tables/table1.json"));
  for (const char* spec : {"ssm", "pow2"}) {
    SCOPED_TRACE(spec);
    std::uint64_t points = 0, decode = 0, cache = 0;
    for (const auto& row : sweep["rows"])
      if (row["pattern"] == spec && row["max_decode_cost"].get<std::uint64_t>() > 0) {
        ++points;
        if (row["n"] == 16) decode = row["max_decode_cost"], cache = row["max_cache"];
      }
    ASSERT_EQ(points, 1u);
    const std::string note = " (too few points to fit (" + std::to_string(points) + "))";
    EXPECT_EQ(row_of(t1, spec)["time_per_token"], std::to_string(decode) + note);
    EXPECT_EQ(row_of(t1, spec)["cache"], std::to_string(cache) + note);
  }
}

TEST(ReportSections, DistancesAgreeWithAnIndependentBfsAndFillTable1) {
  const std::vector<std::string> specs = {"pow2",    "pow2+cache", "sq1+cache",
                                          "local:5", "attention",  "offsets:2,3"};
  std::string args = "--n 96";
  for (const auto& s : specs) args += " --pattern " + s;
  ReportRun r(args);
  ASSERT_EQ(r.rc, 0) << read_file(r.tmp / "stderr.txt");
  const auto dist = nlohmann::json::parse(read_file(r.dir + "/tables/distances.json"));
  const auto hist = nlohmann::json::parse(read_file(r.dir + "/tables/distance_histogram.json"));
  const auto t1 = nlohmann::json::parse(read_file(r.dir + "/tables/table1.json"));
  const auto manifest = nlohmann::json::parse(read_file(r.dir + "/report.json"));
  for (const auto& spec : specs) {
    SCOPED_TRACE(spec);
    const Pattern p = make_pattern(spec, 96);
    const auto d = brute_distances(p);
    int diameter = 0;
    std::uint64_t reach = 0, unreach = 0, sum = 0;
    std::map<int, std::uint64_t> h;
    for (pos_t i = 0; i < p.n; ++i)
      for (pos_t j = 0; j < i; ++j) {
        const int v = d[static_cast<std::size_t>(i) * p.n + j];
        if (v < 0) {
          ++unreach;
        } else {
          ++reach, sum += v, ++h[v];
          diameter = std::max(diameter, v);
        }
      }
    const auto row = row_of(dist, spec);
    ASSERT_FALSE(row.is_null());
    EXPECT_EQ(row["method"], p.translation_invariant() ? "profile" : "all-pairs");
    EXPECT_EQ(row["diameter"], diameter);
    EXPECT_EQ(row["reachable_pairs"], reach);
    EXPECT_EQ(row["unreachable_pairs"], unreach);
    EXPECT_NEAR(row["mean_distance"].get<double>(), reach ? static_cast<double>(sum) / reach : 0.0, 1e-9);
    // Copy distance at N = 48: max_j d(j + 48, j).
    int copy = 0;
    bool copy_ok = true;
    for (pos_t j = 0; j < 48; ++j) {
      const int v = d[static_cast<std::size_t>(j + 48) * p.n + j];
      copy_ok &= v >= 0;
      copy = std::max(copy, v);
    }
    if (copy_ok) {
      EXPECT_EQ(row["copy_distance_n_half"], copy);
    } else {
      EXPECT_TRUE(row["copy_distance_n_half"].is_null());
    }
    for (const auto& hr : hist["rows"])
      if (hr["pattern"] == spec) {
        EXPECT_EQ(hr["pairs"], h[hr["distance"].get<int>()]) << hr["distance"];
        h.erase(hr["distance"].get<int>());
      }
    EXPECT_TRUE(h.empty()) << "histogram rows missing";
    // Table 1: the diameter; A-only patterns 1 (attention) or "inf (no multi-hop)" (a window).
    const auto t1row = row_of(t1, spec);
    if (spec == "local:5") {
      EXPECT_EQ(t1row["shortest_path"], "inf (no multi-hop)");
    } else if (unreach > 0) {
      EXPECT_EQ(t1row["shortest_path"],
                std::to_string(diameter) + " (" + std::to_string(unreach) + " pairs unreachable)");
    } else {
      EXPECT_EQ(t1row["shortest_path"], diameter);
    }
    // The heatmap exists and decodes.
    const std::string png_path = r.dir + "/figures/d_" + file_stem(spec) + ".png";
    ASSERT_TRUE(fs::exists(png_path) || !plots_built_in());
    if (plots_built_in()) {
      const Png png = decode_png(png_path);
      if (!png.ok && png.error == "libpng not found at build time") GTEST_SKIP() << png.error;
      ASSERT_TRUE(png.ok) << png.error;
      EXPECT_GE(png.width, 400);
      EXPECT_GE(png.height, 400);
    }
  }
  // The full profile of pow2: delta(m) = popcount(m) (Prop. 4.4), and offsets {2, 3} never make 1.
  std::istringstream prof(read_file(r.dir + "/tables/distance_profile_pow2.csv"));
  std::string line;
  std::getline(prof, line);
  EXPECT_EQ(line, "m,delta");
  std::size_t rows = 0;
  while (std::getline(prof, line)) {
    const auto comma = line.find(',');
    const unsigned m = std::stoul(line.substr(0, comma));
    EXPECT_EQ(std::stoi(line.substr(comma + 1)), std::popcount(m)) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 96u);
  const std::string p23 = read_file(r.dir + "/tables/distance_profile_offsets_2_3.csv");
  EXPECT_NE(p23.find("\n1,inf\n"), std::string::npos);
  // report.json carries the key numbers; the section is done.
  for (const auto& sec : manifest["sections"])
    if (sec["id"] == "distances") {
      EXPECT_EQ(sec["status"], "done");
      EXPECT_EQ(sec["results"]["pow2"]["diameter"], 6);  // popcount(95) = 6 is the largest below 96
    }
}

TEST(ReportSections, DistancesAboveTheAllPairsCapAreALowerBoundAndSaySo) {
  ReportRun r("--n 96 --pattern pow2+cache --pattern pow2 --all-pairs-cap 64 --format json");
  ASSERT_EQ(r.rc, 0) << read_file(r.tmp / "stderr.txt");
  const auto j = nlohmann::json::parse(read_file(r.tmp / "stdout.txt"));
  bool noted = false;
  for (const auto& nt : j["notes"])
    noted |= nt["kind"] == "capped" &&
             nt["text"].get<std::string>().find("all-pairs distances of pow2+cache") != std::string::npos;
  EXPECT_TRUE(noted);
  const auto dist = nlohmann::json::parse(read_file(r.dir + "/tables/distances.json"));
  const auto row = row_of(dist, "pow2+cache");
  EXPECT_EQ(row["method"], "sampled");
  EXPECT_TRUE(row["diameter"].is_null());  // sampled: only a lower bound, in its own column
  const int lb = row["diameter_lower_bound"];
  const auto d = brute_distances(make_pattern("pow2+cache", 96));
  EXPECT_GE(lb, 1);
  EXPECT_LE(lb, static_cast<int>(*std::max_element(d.begin(), d.end())));
  EXPECT_FALSE(fs::exists(r.dir + "/figures/d_pow2-cache.png"));
  EXPECT_NE(read_file(r.dir + "/report.md").find("--all-pairs-cap"), std::string::npos);
  // pow2 is above the cap too: its profile still gives exact numbers, but no heatmap.
  EXPECT_EQ(row_of(dist, "pow2")["diameter"], 6);
  EXPECT_FALSE(fs::exists(r.dir + "/figures/d_pow2.png"));
}

TEST(ReportSections, CongestionTableCoversNonPowersOfTwoWithConsistentBounds) {
  ReportRun r("--n 64 --pattern pow2 --pattern ssm --pattern sq1+cache");
  ASSERT_EQ(r.rc, 0) << read_file(r.tmp / "stderr.txt");
  const auto t = nlohmann::json::parse(read_file(r.dir + "/tables/congestion.json"));
  std::set<int> lengths;
  for (const auto& row : t["rows"]) {
    const std::string spec = row["pattern"];
    const int N = row["N"];
    SCOPED_TRACE(spec + " N = " + std::to_string(N));
    lengths.insert(N);
    EXPECT_LE(N, 32);
    ASSERT_EQ(row["status"] == "impossible", false);
    const int lower = row["lower"], upper = row["upper"];
    EXPECT_LE(lower, upper);
    EXPECT_EQ(row["status"], lower == upper ? "optimal" : "open");
    EXPECT_EQ(row["gap"], upper - lower);
    if (spec == "pow2") {
      // Copy distance popcount(N) (Prop. 4.4); the shift routing has congestion exactly that (Prop. 4.8).
      EXPECT_EQ(row["copy_distance"], std::popcount(static_cast<unsigned>(N)));
      EXPECT_EQ(row["shift"], std::popcount(static_cast<unsigned>(N)));
      EXPECT_LE(upper, std::popcount(static_cast<unsigned>(N)));
    }
    if (spec == "ssm") {
      // Every path i -> i + N visits all of i..i+N, so position N carries all N paths: congestion N.
      EXPECT_EQ(row["copy_distance"], N);
      EXPECT_EQ(upper, N);
      EXPECT_EQ(lower, N);
    }
    if (lp_built_in()) {
      EXPECT_FALSE(row["lp"].is_null());  // N <= --lp-cap 32 on every row
    }
  }
  // Powers of two and others (3, 6, 12, 24 and n/2 - 1 = 31).
  for (int N : {1, 2, 3, 4, 6, 8, 12, 16, 24, 31, 32}) EXPECT_TRUE(lengths.count(N)) << N;
  const auto t1 = nlohmann::json::parse(read_file(r.dir + "/tables/table1.json"));
  EXPECT_EQ(row_of(t1, "ssm")["congestion"], "32 (optimal) at N = 32");
  expect_figures_decode(
      r, {"congestion_load_pow2", "congestion_load_ssm", "congestion_load_sq1-cache", "congestion_over_n"});
}

TEST(ReportSections, CutRanksMatchADenseEigenRankAndTheCacheBound) {
  ReportRun r("--n 40 --pattern pow2 --pattern pow2+cache --pattern ssm --pattern sq1");
  ASSERT_EQ(r.rc, 0) << read_file(r.tmp / "stderr.txt");
  const auto cr = nlohmann::json::parse(read_file(r.dir + "/tables/cut_ranks.json"));
  const auto sum = nlohmann::json::parse(read_file(r.dir + "/tables/cut_rank_summary.json"));
  for (const char* spec : {"pow2", "pow2+cache", "ssm", "sq1"}) {
    SCOPED_TRACE(spec);
    // M = (I - B)^{-1} A with the report's weights (seed 1), dense, and its blocks' ranks by full-pivot LU.
    const Pattern p = make_pattern(spec, 40);
    const auto w = random_weights(p, 1);
    const int n = static_cast<int>(p.n);
    const Eigen::MatrixXd M = test::dense_operator(w, p.n);
    const auto prof = cache_profile(p, {});
    std::size_t cuts = 0, numeric = 0;
    std::uint32_t max_rank = 0;
    for (const auto& row : cr["rows"]) {
      if (row["pattern"] != spec) continue;
      const int K = row["K"];
      Eigen::FullPivLU<Eigen::MatrixXd> lu(M.bottomLeftCorner(n - K, K));
      lu.setThreshold(1e-10);
      if (!row["numeric_rank"].is_null()) {
        EXPECT_EQ(row["numeric_rank"], lu.rank()) << "K = " << K;
        ++numeric;
      }
      EXPECT_EQ(row["flow_rank"], lu.rank()) << "K = " << K;  // generic weights: Menger = numeric
      EXPECT_EQ(row["cache"], prof.cache_size[K - 1]);
      const std::uint32_t bound = (std::string(spec) == "ssm" ? 1 : 2) * prof.cache_size[K - 1];
      EXPECT_LE(lu.rank(), bound);
      EXPECT_EQ(row["holds"], true);
      if (std::string(spec) == "ssm") {
        EXPECT_EQ(lu.rank(), 1);  // a scalar recurrence is 1-semiseparable
      }
      max_rank = std::max<std::uint32_t>(max_rank, lu.rank());
      ++cuts;
    }
    EXPECT_EQ(cuts, 39u);     // the flow rank at every cut (n <= --rank-cap)
    EXPECT_EQ(numeric, 16u);  // the numeric cross-check at --rank-cuts 16 spaced cuts
    EXPECT_EQ(row_of(sum, spec)["numeric_equals_flow"], true);
    EXPECT_EQ(row_of(sum, spec)["numeric_flow_disagreements"], 0);
    EXPECT_EQ(row_of(sum, spec)["max_cut_rank"], max_rank);
    EXPECT_EQ(row_of(sum, spec)["bound_holds"], true);
  }
  expect_figures_decode(r, {"cut_rank", "cut_rank_vs_cache"});
}

TEST(ReportSections, RankCutsAboveTheRankCapAreSpacedAndNoted) {
  ReportRun r("--n 60 --pattern pow2+cache --rank-cap 32 --rank-cuts 5 --format json");
  ASSERT_EQ(r.rc, 0) << read_file(r.tmp / "stderr.txt");
  const auto sum = nlohmann::json::parse(read_file(r.dir + "/tables/cut_rank_summary.json"));
  EXPECT_EQ(row_of(sum, "pow2+cache")["cuts"], 5);
  const auto j = nlohmann::json::parse(read_file(r.tmp / "stdout.txt"));
  bool noted = false;
  for (const auto& nt : j["notes"])
    noted |=
        nt["kind"] == "capped" && nt["text"].get<std::string>().find("--rank-cap 32") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(ReportSections, ValidationRunsTheChecksOfTheValidateCommand) {
  ReportRun r("--n 64 --pattern pow2 --pattern ssm");
  ASSERT_EQ(r.rc, 0) << read_file(r.tmp / "stderr.txt");
  const auto t = nlohmann::json::parse(read_file(r.dir + "/tables/validation.json"));
  for (const char* spec : {"pow2", "ssm"}) {
    SCOPED_TRACE(spec);
    // The same checks as `mixgraph validate` on the CPU (the other path to them).
    const std::string out = (r.tmp / "validate.json");
    ASSERT_EQ(run(cli() + " validate --backend cpu --pattern " + spec + " --n 64 --format json > " + out), 0);
    const auto v = nlohmann::json::parse(read_file(out));
    std::vector<std::string> got, want;
    for (const auto& row : t["rows"])
      if (row["pattern"] == spec) {
        got.push_back(row["check"]);
        EXPECT_EQ(row["passed"], true) << row["check"] << ": " << row["detail"];
      }
    for (const auto& c : v["checks"]) want.push_back(c["name"]);
    EXPECT_EQ(got, want);
    EXPECT_FALSE(got.empty());
  }
}
