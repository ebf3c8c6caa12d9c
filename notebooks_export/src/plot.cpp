// Heatmaps and line plots drawn with cairo (PNG, SVG and PDF through one drawing API; see
// docs/dependencies.md for the choice). Without cairo every writer throws "not built in".
#include "mixgraph/plot.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <ostream>
#include <sstream>

#include "mixgraph/atomic_file.hpp"
#include "mixgraph/colormap.hpp"
#include "mixgraph/error.hpp"

#ifdef MIXGRAPH_HAVE_CAIRO
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include "cairo_api.hpp"  // last: cairo_* calls go to libcairo.so.2, loaded on the first figure
#endif

#if defined(__SANITIZE_ADDRESS__) && defined(MIXGRAPH_HAVE_CAIRO)
// fontconfig (cairo's font lookup) keeps process-lifetime caches that LeakSanitizer reports at exit in
// MIXGRAPH_SANITIZE builds; they are not leaks of ours. (LSan reads this hook when the object is linked.)
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libfontconfig.so\n";
}
#endif

namespace mixgraph {

bool plots_built_in() {
#ifdef MIXGRAPH_HAVE_CAIRO
  return detail::cairo_loadable();
#else
  return false;
#endif
}

std::string plots_unavailable_reason() {
#ifdef MIXGRAPH_HAVE_CAIRO
  if (plots_built_in()) return "";
  try {
    detail::cairo_api();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
#else
  return "cairo is not built in (install libcairo2-dev and rebuild)";
#endif
}

MatrixView MatrixView::dense(const std::vector<double>& v, std::size_t rows, std::size_t cols) {
  return {rows, cols, [&v, cols](std::size_t i, std::size_t j) { return v[i * cols + j]; }};
}

PooledMatrix pool_matrix(const MatrixView& m, std::size_t max_side, Pooling pooling) {
  if (max_side == 0) max_side = 1;
  PooledMatrix p;
  p.factor =
      std::max<std::size_t>({1, (m.rows + max_side - 1) / max_side, (m.cols + max_side - 1) / max_side});
  const std::size_t f = p.factor;
  p.rows = (m.rows + f - 1) / f;
  p.cols = (m.cols + f - 1) / f;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  p.values.assign(p.rows * p.cols, nan);
  std::vector<double> acc(p.cols);
  std::vector<std::size_t> cnt(p.cols);
  for (std::size_t bi = 0; bi < p.rows; ++bi) {
    std::fill(acc.begin(), acc.end(),
              pooling == Pooling::Max ? -std::numeric_limits<double>::infinity() : 0.0);
    std::fill(cnt.begin(), cnt.end(), 0);
    const std::size_t i_end = std::min(m.rows, (bi + 1) * f);
    for (std::size_t i = bi * f; i < i_end; ++i)
      for (std::size_t j = 0; j < m.cols; ++j) {
        const double v = m.value(i, j);
        if (std::isnan(v)) continue;
        const std::size_t b = j / f;
        if (pooling == Pooling::Max)
          acc[b] = std::max(acc[b], v);
        else
          acc[b] += v;
        ++cnt[b];
      }
    for (std::size_t b = 0; b < p.cols; ++b)
      if (cnt[b])
        p.values[bi * p.cols + b] = pooling == Pooling::Max ? acc[b] : acc[b] / static_cast<double>(cnt[b]);
  }
  return p;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> t;
  if (!(hi >= lo) || !std::isfinite(lo) || !std::isfinite(hi)) return t;
  if (hi == lo) return {lo};
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw * 0.999) {
      step = m * mag;
      break;
    }
  const double start = std::ceil(lo / step - 1e-9) * step;
  for (double v = start; v <= hi + step * 1e-9; v += step) t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  return t;
}

namespace {

enum class FileKind { Png, Svg, Pdf };

FileKind file_kind(const std::string& path) {
  auto dot = path.rfind('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == "png") return FileKind::Png;
  if (ext == "svg") return FileKind::Svg;
  if (ext == "pdf") return FileKind::Pdf;
  throw UsageError("figure '" + path + "': unknown extension; use .png, .svg or .pdf");
}

#ifndef MIXGRAPH_HAVE_CAIRO
[[noreturn]] void not_built_in() {
  throw RuntimeFailure(
      "figures need cairo, which is not built in; install libcairo2-dev and rebuild "
      "(MIXGRAPH_CAIRO=ON insists on it)");
}
#endif

#ifdef MIXGRAPH_HAVE_CAIRO

/// Ticks for positions 1..n drawn on an axis: 1, then multiples of a nice step (n/4 for powers of two),
/// the step doubled until ticks are at least `min_spacing` apart on an axis `axis_px` long.
std::vector<double> position_ticks(std::size_t n, double axis_px, double min_spacing) {
  std::vector<double> t;
  if (n <= 1) return {1.0};
  double step;
  if ((n & (n - 1)) == 0 && n >= 8)
    step = static_cast<double>(n) / 4;
  else {
    auto nt = nice_ticks(1, static_cast<double>(n), 5);
    step = nt.size() >= 2 ? nt[1] - nt[0] : 1;
  }
  while (step < static_cast<double>(n) && step * axis_px / static_cast<double>(n) < min_spacing) step *= 2;
  t.push_back(1);
  for (double v = step; v <= static_cast<double>(n) + 1e-9; v += step)
    if ((v - 1) * axis_px / static_cast<double>(n) >= min_spacing && v - 1 >= 0.5 * step) t.push_back(v);
  if (t.size() == 1) t.push_back(static_cast<double>(n));  // at least both ends
  return t;
}

const char* kFont = "DejaVu Sans";

struct CairoDeleter {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
using CrPtr = std::unique_ptr<cairo_t, CairoDeleter>;
using SurfacePtr = std::unique_ptr<cairo_surface_t, CairoDeleter>;

cairo_status_t write_to_stream(void* closure, const unsigned char* data, unsigned int length) {
  auto* os = static_cast<std::ostream*>(closure);
  os->write(reinterpret_cast<const char*>(data), length);
  return os->good() ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

void check(cairo_status_t st, const std::string& path) {
  if (st != CAIRO_STATUS_SUCCESS)
    throw RuntimeFailure("drawing '" + path + "' failed: " + cairo_status_to_string(st));
}

/// cairo names an SVG's drawing `surfaceN` after a counter of every surface the process made so far;
/// renamed `surface1`, the file is the same whatever was drawn before it (in this process or another).
std::string stable_svg_ids(std::string svg) {
  const std::string tag = "<g id=\"surface";
  const auto at = svg.find(tag);
  if (at == std::string::npos) return svg;
  auto end = at + tag.size();
  while (end < svg.size() && std::isdigit(static_cast<unsigned char>(svg[end]))) ++end;
  const std::string id = svg.substr(at + 7, end - at - 7);  // "surfaceN"
  std::string out;
  for (std::size_t k = 0;;) {
    const auto f = svg.find(id, k);
    const bool whole =
        f != std::string::npos &&
        (f + id.size() == svg.size() || !std::isdigit(static_cast<unsigned char>(svg[f + id.size()])));
    if (f == std::string::npos) return out + svg.substr(k);
    out += svg.substr(k, f - k) + (whole ? "surface1" : id);
    k = f + id.size();
  }
}

/// One piece of text of an SVG, written as an SVG <text> element (cairo's SVG surface writes glyph outlines).
struct SvgText {
  double x, y, angle, size;  ///< the anchor on the baseline in picture pixels, rotation in degrees, em size
  double ha;                 ///< the anchor: 0 start, 0.5 middle, 1 end (so other fonts stay aligned)
  bool bold;
  double r, g, b;
  std::string s;
};

/// What the current render() on this thread drew: the smallest text in device pixels (so a figure's info
/// reports what was drawn, not what its layout meant to draw), the boxes, and for an SVG its text.
struct DrawLog {
  double min_text_px = 0;
  std::vector<FigureBox>* boxes = nullptr;
  std::vector<SvgText>* svg_text = nullptr;  ///< non-null: text goes here instead of to cairo
  bool bold = false;                         ///< the current font's weight (font() sets it)
};
thread_local DrawLog g_log;

/// Records a box given in user coordinates (its device bounding box when the user space is rotated).
void record_box(cairo_t* cr, const std::string& kind, double x, double y, double w, double h,
                const std::string& s = "") {
  if (!g_log.boxes) return;
  double lo_x = std::numeric_limits<double>::infinity(), lo_y = lo_x, hi_x = -lo_x, hi_y = -lo_x;
  for (int c = 0; c < 4; ++c) {
    double px = x + (c & 1 ? w : 0), py = y + (c & 2 ? h : 0);
    cairo_user_to_device(cr, &px, &py);
    lo_x = std::min(lo_x, px), hi_x = std::max(hi_x, px), lo_y = std::min(lo_y, py),
    hi_y = std::max(hi_y, py);
  }
  g_log.boxes->push_back({kind, s, lo_x, lo_y, hi_x - lo_x, hi_y - lo_y});
}

/// PNG: cairo writes no pHYs chunk; this one (pixels per metre, both axes) goes right after IHDR.
std::string png_with_dpi(const std::string& png, double dpi) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  const std::size_t ihdr_end = 8 + 4 + 4 + 13 + 4;  // signature, IHDR length, type, data, CRC
  if (png.size() < ihdr_end || png.compare(12, 4, "IHDR") != 0) return png;
  const auto ppm = static_cast<std::uint32_t>(std::lround(dpi / 0.0254));
  std::string chunk = "pHYs";
  for (int rep = 0; rep < 2; ++rep)
    for (int sh = 24; sh >= 0; sh -= 8) chunk += static_cast<char>((ppm >> sh) & 0xFF);
  chunk += '\1';  // unit: metre
  std::uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char c : chunk) crc = table[(crc ^ c) & 0xFF] ^ (crc >> 8);
  crc ^= 0xFFFFFFFFu;
  std::string out = png.substr(0, ihdr_end);
  for (int sh = 24; sh >= 0; sh -= 8) out += static_cast<char>((9u >> sh) & 0xFF);  // data length
  out += chunk;
  for (int sh = 24; sh >= 0; sh -= 8) out += static_cast<char>((crc >> sh) & 0xFF);
  return out + png.substr(ihdr_end);
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '&')
      o += "&amp;";
    else if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

std::string svg_num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", std::abs(v) < 0.005 ? 0.0 : v);
  return buf;
}

/// The SVG's text as <text> elements in picture pixels, scaled to the document's points, before </svg>.
std::string svg_with_text(std::string svg, const std::vector<SvgText>& text, double dpi, const char* family) {
  if (text.empty()) return svg;
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.6g", 72.0 / dpi);
  std::string g =
      "<g font-family=\"" + std::string(family) + ", sans-serif\" transform=\"scale(" + scale + ")\">\n";
  for (const auto& t : text) {
    auto u8 = [](double v) { return std::to_string(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
    g += "<text x=\"" + svg_num(t.x) + "\" y=\"" + svg_num(t.y) + "\" font-size=\"" + svg_num(t.size) + "\"" +
         (t.ha >= 0.75   ? " text-anchor=\"end\""
          : t.ha >= 0.25 ? " text-anchor=\"middle\""
                         : "") +
         (t.bold ? " font-weight=\"bold\"" : "") + " fill=\"rgb(" + u8(t.r) + "," + u8(t.g) + "," + u8(t.b) +
         ")\"" +
         (std::abs(t.angle) > 0.01
              ? " transform=\"rotate(" + svg_num(t.angle) + " " + svg_num(t.x) + " " + svg_num(t.y) + ")\""
              : "") +
         ">" + xml_escape(t.s) + "</text>\n";
  }
  g += "</g>\n";
  const auto end = svg.rfind("</svg>");
  if (end == std::string::npos) return svg;
  return svg.insert(end, g);
}

/// Creates the surface for `kind`, runs draw(cr), and streams the result into `path` atomically. The
/// drawing is in pixels of a w x h picture at `dpi`: SVG and PDF are w / dpi x h / dpi inches (a device
/// scale maps pixels to points), a PNG carries the dpi. Returns the smallest text drawn, in pixels (0 if
/// none); `boxes` receives what was drawn where.
template <class Draw>
double render(const std::string& path, FileKind kind, int w, int h, double dpi, std::vector<FigureBox>& boxes,
              Draw&& draw) {
  g_log = DrawLog{};
  g_log.min_text_px = std::numeric_limits<double>::infinity();
  boxes.clear();
  g_log.boxes = &boxes;
  std::vector<SvgText> svg_text;
  if (kind == FileKind::Svg) g_log.svg_text = &svg_text;
  struct Reset {
    ~Reset() { g_log.boxes = nullptr, g_log.svg_text = nullptr; }
  } reset;
  const double pt = 72.0 / dpi;  // points per pixel
  write_file_atomic(path, [&](std::ostream& file) {
    std::ostringstream buf;  // an SVG gets its text and stable ids, a PNG its pHYs, before the file
    std::ostream& os = kind == FileKind::Pdf ? file : static_cast<std::ostream&>(buf);
    SurfacePtr s;
    if (kind == FileKind::Png) {
      s.reset(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h));
    } else if (kind == FileKind::Svg) {
      s.reset(cairo_svg_surface_create_for_stream(write_to_stream, &os, w * pt, h * pt));
      cairo_svg_surface_set_document_unit(s.get(), CAIRO_SVG_UNIT_PT);
    } else {
      s.reset(cairo_pdf_surface_create_for_stream(write_to_stream, &os, w * pt, h * pt));
    }
    check(cairo_surface_status(s.get()), path);
    if (kind != FileKind::Png) cairo_surface_set_device_scale(s.get(), pt, pt);
    {
      CrPtr cr(cairo_create(s.get()));
      cairo_set_source_rgb(cr.get(), 1, 1, 1);
      cairo_paint(cr.get());
      draw(cr.get());
      check(cairo_status(cr.get()), path);
    }
    if (kind == FileKind::Png) check(cairo_surface_write_to_png_stream(s.get(), write_to_stream, &os), path);
    cairo_surface_finish(s.get());
    check(cairo_surface_status(s.get()), path);
    if (kind == FileKind::Svg) file << svg_with_text(stable_svg_ids(buf.str()), svg_text, dpi, kFont);
    if (kind == FileKind::Png) file << png_with_dpi(buf.str(), dpi);
  });
  return std::isfinite(g_log.min_text_px) ? g_log.min_text_px : 0;
}

/// A scratch context for measuring text before the picture's size is known.
struct Measure {
  SurfacePtr s{cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)};
  CrPtr cr{cairo_create(s.get())};
};

void font(cairo_t* cr, double size, bool bold = false) {
  g_log.bold = bold;
  cairo_select_font_face(cr, kFont, CAIRO_FONT_SLANT_NORMAL,
                         bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

double text_width(cairo_t* cr, const std::string& s) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  return e.x_advance;
}

/// Splits s at spaces into lines at most max_w wide in the current font (0: one line). A word wider than
/// max_w stays whole on its own line.
std::vector<std::string> wrap_text(cairo_t* cr, const std::string& s, double max_w) {
  if (max_w <= 0 || text_width(cr, s) <= max_w) return {s};
  std::vector<std::string> lines;
  std::string line;
  std::size_t k = 0;
  while (k < s.size()) {
    std::size_t e = s.find(' ', k);
    if (e == std::string::npos) e = s.size();
    const std::string word = s.substr(k, e - k);
    const std::string joined = line.empty() ? word : line + " " + word;
    if (!line.empty() && text_width(cr, joined) > max_w) {
      lines.push_back(line);
      line = word;
    } else {
      line = joined;
    }
    k = e + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

void set_rgb(cairo_t* cr, const Rgb& c) {
  cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

/// Text with its anchor at (x, y): ha 0 = left, 0.5 = centre, 1 = right; y is the vertical middle of
/// digits/capitals (cap height ~0.72 em). Records its ink box; in an SVG it becomes a <text> element.
void text(cairo_t* cr, double x, double y, const std::string& s, double ha = 0.0) {
  if (s.empty()) return;
  cairo_matrix_t fm;  // the em size in device pixels, whatever the rotation
  cairo_get_font_matrix(cr, &fm);
  double dx = fm.xy, dy = fm.yy;
  cairo_user_to_device_distance(cr, &dx, &dy);
  const double em_px = std::hypot(dx, dy);
  g_log.min_text_px = std::min(g_log.min_text_px, em_px);
  cairo_font_extents_t fe;
  cairo_font_extents(cr, &fe);
  const double size = fe.ascent / 0.93;  // DejaVu: ascent ~0.93 em
  cairo_text_extents_t te;
  cairo_text_extents(cr, s.c_str(), &te);
  const double bx = x - ha * te.x_advance, by = y + 0.36 * size;
  if (te.width > 0) record_box(cr, "text", bx + te.x_bearing, by + te.y_bearing, te.width, te.height, s);
  if (g_log.svg_text) {
    double px = x, py = by, ux = 1, uy = 0;
    cairo_user_to_device(cr, &px, &py);
    cairo_user_to_device_distance(cr, &ux, &uy);
    double r = 0, g = 0, b = 0, a = 1;
    cairo_pattern_get_rgba(cairo_get_source(cr), &r, &g, &b, &a);
    g_log.svg_text->push_back({px, py, std::atan2(uy, ux) * 180 / M_PI, em_px, ha, g_log.bold, r, g, b, s});
    return;
  }
  cairo_move_to(cr, bx, by);
  cairo_show_text(cr, s.c_str());
}

/// Rotated text (90 degrees counter-clockwise), centred on (x, y).
void text_vertical(cairo_t* cr, double x, double y, const std::string& s) {
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_rotate(cr, -M_PI / 2);
  text(cr, 0, 0, s, 0.5);
  cairo_restore(cr);
}

std::string fmt_num(double v) {
  char buf[64];
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (a >= 1e-3 && a < 1e6) {
    std::snprintf(buf, sizeof buf, "%.6g", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

/// A power of ten label: plain for exponents 0..4 ("1", "10", ..., "10000"), else 10 with a superscript
/// `sub` pixels high (0: 0.7 of the label's size).
struct PowLabel {
  int k;
  double sub = 0;
  bool plain() const { return k >= 0 && k <= 4; }
  double sub_size(double fs) const { return sub > 0 ? sub : fs * 0.7; }
  double width(cairo_t* cr, double fs) const {
    if (plain()) return text_width(cr, fmt_num(std::pow(10.0, k)));
    double w = text_width(cr, "10");
    font(cr, sub_size(fs));
    w += text_width(cr, exponent()) + fs * 0.05;
    font(cr, fs);
    return w;
  }
  std::string exponent() const { return k < 0 ? "\u2212" + std::to_string(-k) : std::to_string(k); }
  void draw(cairo_t* cr, double x, double y, double fs, double ha) const {
    const double w = width(cr, fs);
    const double x0 = x - ha * w;
    if (plain()) {
      text(cr, x0, y, fmt_num(std::pow(10.0, k)), 0);
      return;
    }
    text(cr, x0, y, "10", 0);
    const double w10 = text_width(cr, "10");
    font(cr, sub_size(fs));
    text(cr, x0 + w10 + fs * 0.05, y - fs * 0.42, exponent(), 0);
    font(cr, fs);
  }
};

/// Series k: marker shape k mod 5 (circle, square, triangle, diamond, inverted triangle) filled at (x, y).
void marker(cairo_t* cr, double x, double y, std::size_t k, double r) {
  cairo_new_sub_path(cr);
  switch (k % 5) {
    case 0:
      cairo_arc(cr, x, y, r, 0, 2 * M_PI);
      break;
    case 1:
      cairo_rectangle(cr, x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8);
      break;
    case 2:
      cairo_move_to(cr, x, y - r * 1.2), cairo_line_to(cr, x + r * 1.1, y + r * 0.8),
          cairo_line_to(cr, x - r * 1.1, y + r * 0.8);
      cairo_close_path(cr);
      break;
    case 3:
      cairo_move_to(cr, x, y - r * 1.25), cairo_line_to(cr, x + r * 1.1, y),
          cairo_line_to(cr, x, y + r * 1.25), cairo_line_to(cr, x - r * 1.1, y);
      cairo_close_path(cr);
      break;
    default:
      cairo_move_to(cr, x, y + r * 1.2), cairo_line_to(cr, x + r * 1.1, y - r * 0.8),
          cairo_line_to(cr, x - r * 1.1, y - r * 0.8);
      cairo_close_path(cr);
  }
  cairo_fill(cr);
}

/// Series k: solid for even k, dashed for odd k, so coinciding lines stay distinguishable.
void line_style(cairo_t* cr, std::size_t k) {
  static const double dash[] = {7.0, 4.0};
  if (k % 2)
    cairo_set_dash(cr, dash, 2, 0);
  else
    cairo_set_dash(cr, nullptr, 0, 0);
}

const Rgb kInk{0.15, 0.15, 0.15};
const Rgb kGrid{0.90, 0.90, 0.90};

#endif

}  // namespace

HeatmapInfo write_heatmap(const std::string& path, const MatrixView& m, const HeatmapOptions& opt) {
  const FileKind kind = file_kind(path);
  if (m.rows == 0 || m.cols == 0) throw UsageError("heatmap '" + path + "': the matrix is empty");
#ifndef MIXGRAPH_HAVE_CAIRO
  (void)kind;
  (void)opt;
  not_built_in();
#else
  const bool log = opt.scale == ColorScale::Log;
  const bool sized = opt.width_in > 0, paper = opt.style == FigureStyle::Paper;
  const double target_w = sized ? std::round(opt.width_in * kFigureDpi) : 0;
  HeatmapInfo info;
  PooledMatrix p;
  double lo = 0, hi = 0, levels = 0;
  bool mask_mode = false, discrete = false;
  // Pools m to at most max_side cells a side and derives the colour range from the pooled values.
  auto pool_and_range = [&](std::size_t max_side) {
    p = pool_matrix(m, max_side, opt.pooling);
    info.rows = p.rows;
    info.cols = p.cols;
    info.factor = p.factor;
    info.max_side = max_side;
    info.masked = 0;
    lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double& v : p.values) {
      if (log && !(v > 0)) v = std::numeric_limits<double>::quiet_NaN();
      if (std::isnan(v)) {
        ++info.masked;
        continue;
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const bool any = hi >= lo;
    if (!any) lo = log ? 0.1 : 0, hi = 1;
    mask_mode = !opt.mask_label.empty() && (lo == hi || !any);
    if (opt.vmin) lo = *opt.vmin;
    if (opt.vmax) hi = *opt.vmax;
    // Integer levels (distances, ranks): one colour per integer, a stepped colour bar with integer ticks.
    discrete = opt.integer_levels && !log && !mask_mode && std::ceil(hi) - std::floor(lo) + 1 <= 32;
    if (discrete) lo = std::floor(lo), hi = std::ceil(hi);
    levels = discrete ? hi - lo + 1 : 0;
    if (!discrete && hi <= lo) lo = log ? hi / 10 : hi - 1;
    if (log && lo <= 0) lo = hi * 1e-12;
    info.vmin = lo;
    info.vmax = hi;
  };
  pool_and_range(opt.max_side);
  auto t_of = [&](double v) {
    if (discrete) return (std::round(std::clamp(v, lo, hi)) - lo + 0.5) / levels;
    return log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
  };
  const Rgb mask_colour = viridis(0.0);
  auto colour_of = [&](double v) -> Rgb {
    if (std::isnan(v)) return masked_grey();
    return mask_mode ? mask_colour : viridis(t_of(v));
  };

  // Layout. At a printed width the text has a fixed size (12 pt screen, 8 pt paper) and the plot takes
  // the room the labels leave; else the plot is about 640 px and the text grows with it. The paper layout
  // (compact) keeps margins to what its labels need and puts the colour bar under the plot when that leaves
  // the plot a larger share of the picture.
  const double dpi = sized ? kFigureDpi : kScreenDpi;
  const bool compact = sized && paper;
  const double fs_min = 7.0 * kFigureDpi / 72.0;  // the smallest text of a printed figure: 7 pt
  const double fs_sized = (paper ? 8.0 : 12.0) * kFigureDpi / 72.0;
  double fs = fs_sized, pad = 0, tick = 0, gap = 0, pw = 0, ph = 0, left = 0, right = 0, ytw = 0, ctw = 0;
  double legend_w = 0, cbw = 0, bar_gap = 0, cell = 1, sub = 0, room = 0, top_c = 0, bottom_c = 0;
  bool horiz = false;  // compact: the colour bar under the plot
  // compact, horizontal: the bar is bar_len long; with side_label its label (and the masked-cell key under
  // it) sit right of the bar, from side_x on, instead of rows of their own.
  bool side_label = false;
  double bar_len = 0, side_x = 0;
  std::vector<double> cticks, xt, yt;
  std::vector<int> cdecades;
  Measure ms;
  // Rows of the compact layout under the plot.
  auto xrows = [&] { return tick + gap + fs * 0.95 + gap + fs * 1.2; };  // x tick labels, x label
  auto cb_row = [&] { return log ? fs * 1.3 : fs * 0.95; };              // colour bar tick labels
  const double key_row = fs * 1.4;                                       // masked-cell key, mask legend
  auto bar_ticks = [&](double bar_px, double spacing) {
    cticks.clear(), cdecades.clear();
    const int fit = std::max(2, static_cast<int>(bar_px / spacing));  // labels that fit the bar
    if (mask_mode) return;
    if (log) {
      const int d0 = static_cast<int>(std::ceil(std::log10(lo) - 1e-9)),
                d1 = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
      const int span = std::max(1, d1 - d0);
      const int most = std::min(8, fit);
      const int every = span <= most ? 1 : (span + most - 1) / most;
      for (int d = d0; d <= d1; ++d)
        if ((d - d0) % every == 0) cdecades.push_back(d);
      if (cdecades.empty()) cticks = {lo, hi};
    } else if (discrete) {
      const int every = static_cast<int>(std::ceil(levels / std::min(12, fit)));
      for (double v = lo; v <= hi; v += every) cticks.push_back(v);
    } else {
      cticks = nice_ticks(lo, hi, std::min(5, fit));
      while (cticks.size() > static_cast<std::size_t>(fit) && fit >= 2) {  // nice_ticks may give more
        const auto fewer = nice_ticks(lo, hi, static_cast<int>(cticks.size()) / 2);
        if (fewer.size() >= cticks.size()) break;
        cticks = fewer;
      }
    }
  };
  auto measure_bar = [&] {
    ctw = 0;
    for (double v : cticks) ctw = std::max(ctw, text_width(ms.cr.get(), fmt_num(v)));
    for (int d : cdecades) ctw = std::max(ctw, PowLabel{d, sub}.width(ms.cr.get(), fs));
  };
  auto lay_out = [&] {
    const std::size_t side = std::max(p.rows, p.cols);
    cell = std::max(1, static_cast<int>(640 / side));
    if (!sized) fs = std::clamp(static_cast<double>(side) * cell / 44.0, 13.0, 40.0);
    sub = sized ? std::max(fs * 0.7, fs_min) : fs * 0.7;
    if (compact)
      pad = fs * 0.25, tick = fs * 0.3, gap = fs * 0.25, cbw = fs * 0.55, bar_gap = fs * 0.5;
    else
      pad = fs * 0.8, tick = fs * 0.35, gap = fs * 0.35, cbw = fs * (sized ? 0.8 : 1.1),
      bar_gap = fs * (sized ? 0.6 : 1.3);
    font(ms.cr.get(), fs);
    // Room for the colour bar's tick labels first: it fixes the plot's size at a printed width.
    bar_ticks(sized ? target_w / 2 : static_cast<double>(side) * cell, fs * 1.3);
    measure_bar();
    legend_w = 0;
    if (mask_mode)
      legend_w = fs * 1.6 +
                 std::max(text_width(ms.cr.get(), opt.mask_label), text_width(ms.cr.get(), opt.masked_label));
    ytw = 0;
    for (double v : position_ticks(m.rows, 1, 0)) ytw = std::max(ytw, text_width(ms.cr.get(), fmt_num(v)));
    double xlw = 0;
    for (double v : position_ticks(m.cols, 1, 0)) xlw = std::max(xlw, text_width(ms.cr.get(), fmt_num(v)));
    if (compact) {
      left = pad + fs * 1.1 + gap + ytw + gap + tick;
      const double overhang = xlw / 2 + pad;  // the last x label is centred on the plot's right edge
      const double key = mask_mode || info.masked > 0 ? key_row : 0;
      const double cbl_w = text_width(ms.cr.get(), opt.colorbar_label);
      const double key_w =
          info.masked > 0 ? fs * 0.8 + gap * 1.5 + text_width(ms.cr.get(), opt.masked_label) : 0;
      const double side_col = ctw / 2 + gap * 2 + std::max(cbl_w, key_w);
      side_label =
          target_w - std::ceil(left) - overhang - side_col >= 0.4 * (target_w - std::ceil(left) - overhang);
      // Right of the plot (a) or under it (b): the one that gives the plot the larger share of the picture.
      const double right_a =
          mask_mode ? overhang : std::max(overhang, bar_gap + cbw + tick + gap + ctw + gap + fs * 1.1 + pad);
      const double bottom_a = xrows() + key + pad;
      const double right_b = side_label ? overhang : std::max(overhang, ctw / 2 + pad);
      const double bottom_b =
          side_label ? xrows() + fs * 0.4 + cbw + tick + gap + cb_row() + pad
                     : xrows() + fs * 0.4 + cbw + tick + gap + cb_row() + gap + fs * 1.2 + key + pad;
      // The top holds half the first y label; a vertical log colour bar's top label has an exponent.
      const double top_a = pad + fs * (log ? 0.8 : 0.5), top_b = pad + fs * 0.5;
      auto share = [&](double r, double t, double b) {
        const double c = (target_w - std::ceil(left) - r) / static_cast<double>(p.cols);
        const double w = c * static_cast<double>(p.cols), h = c * static_cast<double>(p.rows);
        return c <= 0 ? 0.0 : w * h / (target_w * (std::ceil(t) + h + b));
      };
      horiz = !mask_mode && share(right_b, top_b, bottom_b) > share(right_a, top_a, bottom_a);
      top_c = horiz ? top_b : top_a;
      right = horiz ? right_b : right_a;
      bottom_c = horiz ? bottom_b : bottom_a;
      room = std::floor(target_w - std::ceil(left) - right);
      if (room < 16) throw UsageError("heatmap '" + path + "': the figure width leaves no room for the plot");
      cell = room / static_cast<double>(side);
      pw = static_cast<double>(p.cols) * cell, ph = static_cast<double>(p.rows) * cell;
      bar_len = side_label ? pw - side_col : pw;
      side_x = std::ceil(left) + bar_len + ctw / 2 + gap * 2;
      bar_ticks(horiz ? bar_len : ph, horiz ? ctw + fs : fs * 1.3);
      measure_bar();
    } else {
      left = pad + fs * 1.3 + gap * 2 + ytw + tick;
      right = bar_gap + (mask_mode ? legend_w + pad : cbw + tick + gap + ctw + gap * 2 + fs * 1.3 + pad);
      if (!mask_mode && info.masked > 0) {  // the masked-cell key under the colour bar
        font(ms.cr.get(), fs * 0.85);
        right = std::max(right, bar_gap + fs * 1.5 + text_width(ms.cr.get(), opt.masked_label) + pad);
        font(ms.cr.get(), fs);
      }
      room = std::floor(target_w - std::ceil(left) - right);
      if (sized) {
        // The plot takes what the labels leave of the width; cells of at least one pixel.
        if (room < 16)
          throw UsageError("heatmap '" + path + "': the figure width leaves no room for the plot");
        cell = std::max(1, static_cast<int>(room / static_cast<double>(side)));
      }
      pw = static_cast<double>(p.cols) * cell, ph = static_cast<double>(p.rows) * cell;
      bar_ticks(ph, fs * 1.3);
      measure_bar();
    }
    // Position ticks spaced so that their labels never touch.
    xt = position_ticks(m.cols, pw, xlw + fs);
    yt = position_ticks(m.rows, ph, fs * 1.4);
  };
  lay_out();
  if (sized && static_cast<double>(std::max(p.rows, p.cols)) > room) {
    // Too many cells for the room: pool down to it (one pixel per cell) and lay out again.
    pool_and_range(static_cast<std::size_t>(room) - (compact ? 0 : static_cast<std::size_t>(std::ceil(fs))));
    lay_out();
  }
  const bool titled = !paper;
  std::string title = titled ? opt.title : "";
  std::string note = titled ? opt.note : "";
  if (titled && p.factor > 1) {
    std::string pooled = "downsampled " + std::to_string(m.rows) + "\u00d7" + std::to_string(m.cols) +
                         " \u2192 " + std::to_string(p.rows) + "\u00d7" + std::to_string(p.cols) + " by " +
                         (opt.pooling == Pooling::Max ? "max" : "mean") + " pooling of " +
                         std::to_string(p.factor) + "\u00d7" + std::to_string(p.factor) + " blocks";
    note = note.empty() ? pooled : note + "; " + pooled;
  }
  // Title and note lines, wrapped to the printed width when there is one.
  font(ms.cr.get(), fs * 1.15, true);
  const std::vector<std::string> title_lines =
      title.empty() ? std::vector<std::string>{}
                    : wrap_text(ms.cr.get(), title, sized ? target_w - 2 * pad : 0);
  font(ms.cr.get(), fs * 0.85);
  const std::vector<std::string> note_lines =
      note.empty() ? std::vector<std::string>{}
                   : wrap_text(ms.cr.get(), note, sized ? target_w - 2 * pad : 0);
  double top = pad + fs * 1.15 * 1.3 * static_cast<double>(title_lines.size()) +
               fs * 0.85 * 1.35 * static_cast<double>(note_lines.size()) + fs * 0.9;
  if (!titled) top = compact ? top_c : pad + fs * 0.6;
  const double bottom = compact ? bottom_c : tick + gap + fs + gap * 2 + fs * 1.3 + pad;
  // Masked-cell legend under a colour bar (only when something is masked).
  const bool grey_key = !mask_mode && info.masked > 0;
  font(ms.cr.get(), compact ? fs : fs * 0.85);
  const double grey_key_w = grey_key ? fs * 1.5 + text_width(ms.cr.get(), opt.masked_label) : 0;
  double title_w = 0;
  font(ms.cr.get(), fs * 1.15, true);
  for (const auto& l : title_lines) title_w = std::max(title_w, text_width(ms.cr.get(), l));
  const double W0 = std::ceil(left) + pw + right;
  const double W = sized
                       ? std::max(target_w, std::ceil(W0))
                       : std::ceil(std::max({W0, title_w + 2 * pad, left + pw + bar_gap + grey_key_w + pad}));
  const double H = std::ceil(std::ceil(top) + ph + bottom);
  info.width_px = static_cast<int>(W);
  info.height_px = static_cast<int>(H);
  info.font_px = fs;
  info.dpi = dpi;
  const double x0 = std::ceil(left), y0 = std::ceil(top);  // whole pixels: crisp cell edges in PNGs
  info.plot_x = x0;
  info.plot_y = y0;
  info.cell_px = cell;
  // Where the labels go.
  const double xl_y = compact ? y0 + ph + tick + gap + fs * 0.45 : y0 + ph + tick + gap + fs * 0.5;
  const double xlab_y = compact ? y0 + ph + tick + gap + fs * 0.95 + gap + fs * 0.55
                                : y0 + ph + tick + gap + fs + gap * 2 + fs * 0.6;
  const double ylab_x = compact ? pad + fs * 0.45 : pad + fs * 0.6;
  const double by = y0 + ph + xrows() + fs * 0.4;  // compact, horizontal bar: its top
  const double key_top = !compact ? 0
                         : horiz  ? by + cbw + tick + gap + cb_row() + gap + fs * 1.2
                                  : y0 + ph + xrows();

  info.min_font_px = render(path, kind, info.width_px, info.height_px, dpi, info.boxes, [&](cairo_t* cr) {
    // Title and note lines (centred on the plot, kept inside the picture; wrapped lines on the picture).
    const double tc = sized ? W / 2 : x0 + pw / 2;
    double ty = pad + fs * 0.55;
    font(cr, fs * 1.15, true);
    set_rgb(cr, kInk);
    for (const auto& l : title_lines) {
      const double lw = text_width(cr, l);
      text(cr, std::clamp(tc, pad + lw / 2, W - pad - lw / 2), ty, l, 0.5);
      ty += fs * 1.15 * 1.3;
    }
    font(cr, fs * 0.85);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    ty = pad + fs * 1.15 * 1.3 * static_cast<double>(title_lines.size()) + fs * 0.5;
    for (const auto& l : note_lines) {
      const double lw = text_width(cr, l);
      text(cr, std::clamp(tc, pad + lw / 2, W - pad - lw / 2), ty, l, 0.5);
      ty += fs * 0.85 * 1.35;
    }
    // Cells.
    record_box(cr, "plot", x0, y0, pw, ph);
    const bool vector_cells = kind != FileKind::Png && p.rows * p.cols <= 512 * 512;
    if (vector_cells) {
      // Grey background in one piece, then one rectangle per run of equal colour in a row. Runs overlap
      // their right and lower neighbours by a fraction of a cell, so viewers that antialias SVG/PDF show
      // no hairline seams between cells (a later cell covers the overlap exactly).
      set_rgb(cr, masked_grey());
      cairo_rectangle(cr, x0, y0, pw, ph);
      cairo_fill(cr);
      const double overlap = std::min(0.5, cell * 0.25);
      for (std::size_t i = 0; i < p.rows; ++i) {
        std::size_t j = 0;
        while (j < p.cols) {
          const double v0 = p.values[i * p.cols + j];
          const Rgb c = colour_of(v0);
          std::size_t k = j + 1;
          while (k < p.cols) {
            const Rgb d = colour_of(p.values[i * p.cols + k]);
            if (d.r != c.r || d.g != c.g || d.b != c.b) break;
            ++k;
          }
          if (!std::isnan(v0)) {
            set_rgb(cr, c);
            // Overlap only into neighbours that are drawn later (unmasked), never into grey cells.
            const double ox = k < p.cols && !std::isnan(p.values[i * p.cols + k]) ? overlap : 0.0;
            bool below = i + 1 < p.rows;
            for (std::size_t q = j; below && q < k; ++q) below = !std::isnan(p.values[(i + 1) * p.cols + q]);
            const double oy = below ? overlap : 0.0;
            cairo_rectangle(cr, x0 + static_cast<double>(j) * cell, y0 + static_cast<double>(i) * cell,
                            static_cast<double>(k - j) * cell + ox, cell + oy);
            cairo_fill(cr);
          }
          j = k;
        }
      }
    } else {
      SurfacePtr img(
          cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(p.cols), static_cast<int>(p.rows)));
      check(cairo_surface_status(img.get()), path);
      cairo_surface_flush(img.get());
      unsigned char* data = cairo_image_surface_get_data(img.get());
      const int stride = cairo_image_surface_get_stride(img.get());
      for (std::size_t i = 0; i < p.rows; ++i) {
        auto* row = reinterpret_cast<std::uint32_t*>(data + static_cast<std::size_t>(stride) * i);
        for (std::size_t j = 0; j < p.cols; ++j) {
          const Rgb c = colour_of(p.values[i * p.cols + j]);
          auto u8 = [](double v) {
            return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255));
          };
          row[j] = 0xFF000000u | (u8(c.r) << 16) | (u8(c.g) << 8) | u8(c.b);
        }
      }
      cairo_surface_mark_dirty(img.get());
      cairo_save(cr);
      cairo_translate(cr, x0, y0);
      cairo_scale(cr, cell, cell);
      cairo_set_source_surface(cr, img.get(), 0, 0);
      cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
      cairo_rectangle(cr, 0, 0, static_cast<double>(p.cols), static_cast<double>(p.rows));
      cairo_fill(cr);
      cairo_restore(cr);
    }
    // Frame and ticks.
    set_rgb(cr, kInk);
    cairo_set_line_width(cr, std::max(1.0, fs / 16));
    cairo_rectangle(cr, x0, y0, pw, ph);
    cairo_stroke(cr);
    font(cr, fs);
    auto mark = [&](double xa, double ya, double xb, double yb) {
      cairo_move_to(cr, xa, ya);
      cairo_line_to(cr, xb, yb);
      cairo_stroke(cr);
      record_box(cr, "tick", std::min(xa, xb), std::min(ya, yb), std::abs(xb - xa), std::abs(yb - ya));
    };
    for (double v : xt) {
      const double x = x0 + (v - 0.5) / static_cast<double>(m.cols) * pw;
      mark(x, y0 + ph, x, y0 + ph + tick);
      text(cr, x, xl_y, fmt_num(v), 0.5);
    }
    for (double v : yt) {
      const double y = y0 + (v - 0.5) / static_cast<double>(m.rows) * ph;
      mark(x0, y, x0 - tick, y);
      text(cr, x0 - tick - gap, y, fmt_num(v), 1.0);
    }
    text(cr, x0 + pw / 2, xlab_y, opt.x_label, 0.5);
    text_vertical(cr, ylab_x, y0 + ph / 2, opt.y_label);
    // A legend entry: a swatch of `c` (outlined) and its label; records both as one "legend" box.
    auto entry = [&](double x, double ymid, double sw, const Rgb& c, const std::string& label) {
      set_rgb(cr, c);
      cairo_rectangle(cr, x, ymid - sw / 2, sw, sw);
      cairo_fill(cr);
      set_rgb(cr, kInk);
      cairo_set_line_width(cr, 1);
      cairo_rectangle(cr, x, ymid - sw / 2, sw, sw);
      cairo_stroke(cr);
      text(cr, x + sw + gap * 1.5, ymid, label);
      record_box(cr, "legend", x, ymid - sw / 2, sw + gap * 1.5 + text_width(cr, label), sw);
    };
    const double cx = x0 + pw + bar_gap;
    if (mask_mode) {
      const double sw = fs * 1.0;
      if (compact) {  // one row under the x label
        const double ym = key_top + key_row / 2, sw2 = fs * 0.8;
        entry(x0, ym, sw2, mask_colour, opt.mask_label);
        entry(x0 + sw2 + gap * 1.5 + text_width(cr, opt.mask_label) + fs, ym, sw2, masked_grey(),
              opt.masked_label);
        return;
      }
      entry(cx, y0 + sw / 2, sw, mask_colour, opt.mask_label);
      entry(cx, y0 + sw * 2.1, sw, masked_grey(), opt.masked_label);
      return;
    }
    // Colour bar: 256 bands (or one per integer level) from vmin (bottom or left) to vmax (top or right).
    const double bands = discrete ? levels : 256;
    const double bx = horiz ? x0 : cx, byy = horiz ? by : y0, bw = horiz ? bar_len : cbw,
                 bh = horiz ? cbw : ph;
    cairo_save(cr);
    cairo_rectangle(cr, bx, byy, bw, bh);
    cairo_clip(cr);
    for (int k = 0; k < static_cast<int>(bands); ++k) {
      set_rgb(cr, viridis((k + 0.5) / bands));
      if (horiz) {
        const double xb = x0 + k * bar_len / bands;
        if (discrete)
          cairo_rectangle(cr, xb, by, bar_len / bands, cbw);
        else
          cairo_rectangle(cr, std::floor(xb), by, std::ceil(bar_len / bands) + 1, cbw);
      } else {
        const double yb = y0 + ph - (k + 1) * ph / bands;
        if (discrete)
          cairo_rectangle(cr, cx, yb, cbw, ph / bands);
        else
          cairo_rectangle(cr, cx, std::floor(yb), cbw, std::ceil(ph / bands) + 1);
      }
      cairo_fill(cr);
    }
    cairo_restore(cr);
    record_box(cr, "colorbar", bx, byy, bw, bh);
    set_rgb(cr, kInk);
    cairo_set_line_width(cr, std::max(1.0, fs / 16));
    cairo_rectangle(cr, bx, byy, bw, bh);
    cairo_stroke(cr);
    const double cl_y = by + cbw + tick + gap + (log ? fs * 0.8 : fs * 0.45);  // horizontal: tick labels
    auto bar_at = [&](double v) {
      const double t = std::clamp(t_of(v), 0.0, 1.0);
      return horiz ? x0 + t * bar_len : y0 + ph - t * ph;
    };
    for (double v : cticks) {
      const double q = bar_at(v);
      if (horiz) {
        mark(q, by + cbw, q, by + cbw + tick);
        text(cr, q, cl_y, fmt_num(v), 0.5);
      } else {
        mark(cx + cbw, q, cx + cbw + tick, q);
        text(cr, cx + cbw + tick + gap, q, fmt_num(v));
      }
    }
    for (int d : cdecades) {
      const double q = bar_at(std::pow(10.0, d));
      if (horiz) {
        mark(q, by + cbw, q, by + cbw + tick);
        PowLabel{d, sub}.draw(cr, q, cl_y, fs, 0.5);
      } else {
        mark(cx + cbw, q, cx + cbw + tick, q);
        PowLabel{d, sub}.draw(cr, cx + cbw + tick + gap, q, fs, 0);
      }
    }
    if (horiz && side_label)
      text(cr, side_x, by + cbw / 2, opt.colorbar_label);
    else if (horiz)
      text(cr, x0 + pw / 2, by + cbw + tick + gap + cb_row() + gap + fs * 0.55, opt.colorbar_label, 0.5);
    else
      text_vertical(cr,
                    compact ? cx + cbw + tick + gap + ctw + gap + fs * 0.45
                            : cx + cbw + tick + gap + ctw + gap * 2 + fs * 0.6,
                    y0 + ph / 2, opt.colorbar_label);
    if (grey_key) {
      if (compact && horiz && side_label) {
        entry(side_x, by + cbw + tick + gap + cb_row() / 2, fs * 0.8, masked_grey(), opt.masked_label);
      } else if (compact) {
        entry(x0, key_top + key_row / 2, fs * 0.8, masked_grey(), opt.masked_label);
      } else {
        font(cr, fs * 0.85);
        const double sw = fs * 0.9;
        entry(cx, xlab_y, sw, masked_grey(), opt.masked_label);
      }
    }
  });
  return info;
#endif
}

LinePlotInfo write_line_plot(const std::string& path, const std::vector<LineSeries>& series,
                             const LinePlotOptions& opt) {
  const FileKind kind = file_kind(path);
  for (const auto& s : series)
    if (s.x.size() != s.y.size())
      throw UsageError("line plot '" + path + "': series '" + s.label + "' has x and y of different lengths");
#ifndef MIXGRAPH_HAVE_CAIRO
  (void)kind;
  (void)opt;
  not_built_in();
  return {};
#else
  auto usable = [](double v, bool log) { return std::isfinite(v) && (!log || v > 0); };
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const auto& s : series)
    for (std::size_t k = 0; k < s.x.size(); ++k) {
      if (!usable(s.x[k], opt.log_x) || !usable(s.y[k], opt.log_y)) continue;
      xlo = std::min(xlo, s.x[k]), xhi = std::max(xhi, s.x[k]);
      ylo = std::min(ylo, s.y[k]), yhi = std::max(yhi, s.y[k]);
      if (k < s.y_upper.size() && usable(s.y_upper[k], opt.log_y)) yhi = std::max(yhi, s.y_upper[k]);
    }
  if (!(xhi >= xlo)) xlo = 1, xhi = 10, ylo = 1, yhi = 10;
  // Points and bars keep clear of the frame on a linear x axis: half a bar (the closest two bars' distance)
  // or 3% of the range on each side.
  if (!opt.log_x) {
    double bar_step = std::numeric_limits<double>::infinity();
    bool dots = false;
    for (const auto& s : series) {
      dots = dots || s.markers || s.bars;
      if (!s.bars) continue;
      std::vector<double> xs;
      for (double v : s.x)
        if (std::isfinite(v)) xs.push_back(v);
      std::sort(xs.begin(), xs.end());
      for (std::size_t k = 1; k < xs.size(); ++k)
        if (xs[k] > xs[k - 1]) bar_step = std::min(bar_step, xs[k] - xs[k - 1]);
    }
    const double margin = std::isfinite(bar_step) ? 0.6 * bar_step
                          : dots                  ? (xhi > xlo ? 0.03 * (xhi - xlo) : 0.5)
                                                  : 0.0;
    xlo -= margin, xhi += margin;
  }
  // Axis ranges and ticks.
  struct Axis {
    bool log;
    double lo, hi;
    std::vector<double> major;  // linear values
    std::vector<int> decades;   // log axes
    std::vector<double> minor;
    double map(double v, double a, double b) const {
      const double t =
          log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
      return a + t * (b - a);
    }
  };
  auto make_axis = [](bool log, double lo, double hi, bool pad_out, const std::vector<double>& fixed) {
    Axis a{log, lo, hi, {}, {}, {}};
    if (log) {
      // Data range widened by 4% of its log span on each side (a constant line stays visible).
      const double span = hi > lo ? std::log10(hi / lo) : 0.6;
      a.lo = lo / std::pow(10.0, 0.04 * span + (hi > lo ? 0 : 0.3));
      a.hi = hi * std::pow(10.0, 0.04 * span + (hi > lo ? 0 : 0.3));
      const int d0 = static_cast<int>(std::ceil(std::log10(a.lo) - 1e-9));
      const int d1 = static_cast<int>(std::floor(std::log10(a.hi) + 1e-9));
      const int every = (d1 - d0) <= 8 ? 1 : (d1 - d0 + 7) / 8;
      for (int d = d0; d <= d1; ++d)
        if ((d - d0) % every == 0) a.decades.push_back(d);
      for (int d = d0 - 1; d <= d1 && every == 1; ++d)
        for (int m = 2; m <= 9; ++m) {
          const double v = m * std::pow(10.0, d);
          if (v < a.lo || v > a.hi) continue;
          // Fewer than two labelled decades: label 2x and 5x too.
          if (a.decades.size() < 2 && (m == 2 || m == 5))
            a.major.push_back(v);
          else
            a.minor.push_back(v);
        }
    } else {
      if (pad_out && lo > 0) lo = 0;
      if (hi == lo) hi = lo + 1;
      auto t = nice_ticks(lo, hi, 6);
      const double step = t.size() >= 2 ? t[1] - t[0] : (hi - lo);
      if (pad_out) {
        a.lo = std::floor(lo / step + 1e-9) * step;
        a.hi = std::ceil(hi / step - 1e-9) * step;
      } else {
        a.lo = lo, a.hi = hi;
      }
      a.major = nice_ticks(a.lo, a.hi, 6);
    }
    if (!fixed.empty()) {
      a.decades.clear();
      a.major.clear();
      for (double v : fixed)
        if (v >= a.lo * (1 - 1e-12) && v <= a.hi * (1 + 1e-12)) a.major.push_back(v);
    }
    return a;
  };
  const Axis ax = make_axis(opt.log_x, xlo, xhi, false, opt.x_ticks);
  const Axis ay = make_axis(opt.log_y, ylo, yhi, true, {});

  const bool sized = opt.width_in > 0, paper = opt.style == FigureStyle::Paper;
  // The paper layout at a printed width (compact): 8 pt text, margins of what the labels need, and a plot
  // tall enough to take at least 62% of the picture (up to square).
  const bool compact = sized && paper;
  const double dpi = sized ? kFigureDpi : kScreenDpi;
  const double fs = sized ? (paper ? 8.0 : 12.0) * kFigureDpi / 72.0 : 17;
  const double sub = sized ? std::max(fs * 0.7, 7.0 * kFigureDpi / 72.0) : fs * 0.7;
  const double pad = fs * (compact ? 0.25 : 0.8), tick = fs * (compact ? 0.3 : 0.35),
               gap = fs * (compact ? 0.25 : 0.35);
  const bool titled = !paper, legend_below = sized || paper;
  const std::string note = titled ? opt.note : "";
  const double line_w = paper ? std::max(1.0, fs * 0.06) : 2.4 * fs / 17, mark_r = 4.2 * fs / 17;
  Measure ms;
  font(ms.cr.get(), fs);
  double ytw = 0;
  for (double v : ay.major) ytw = std::max(ytw, text_width(ms.cr.get(), fmt_num(v)));
  for (int d : ay.decades) ytw = std::max(ytw, PowLabel{d, sub}.width(ms.cr.get(), fs));
  double lw = 0;
  for (const auto& s : series) lw = std::max(lw, text_width(ms.cr.get(), s.label));
  auto colour_index = [&](std::size_t si) {
    return series[si].color >= 0 ? std::size_t(series[si].color) : si;
  };
  const double legend_w = series.empty() || legend_below ? 0 : fs * 2.6 + gap + lw + pad;
  const double left =
      compact ? pad + fs * 1.1 + gap + ytw + gap + tick : pad + fs * 1.3 + gap * 2 + ytw + tick;
  const double top = titled    ? pad + fs * 1.15 * 1.3 + (note.empty() ? 0 : fs * 0.85 * 1.35) + fs * 0.6
                     : compact ? pad + fs * 0.8
                               : pad + fs;
  // compact: the right margin holds half the widest x tick label (the last one may sit on the right edge).
  double xtw = 0;
  for (double v : ax.major) xtw = std::max(xtw, text_width(ms.cr.get(), fmt_num(v)));
  for (int d : ax.decades) xtw = std::max(xtw, PowLabel{d, sub}.width(ms.cr.get(), fs));
  const double right = compact ? std::max(fs * 0.6, xtw / 2 + pad) : fs * 1.2 + legend_w;
  const double W_target = std::round(opt.width_in * kFigureDpi);
  const double pw = sized ? std::max(4 * fs, W_target - left - right) : 760;
  // Rows under the plot: x tick labels (taller with exponents), the x label, then the legend.
  const double xl_row = compact ? (ax.decades.empty() ? fs * 0.95 : fs * 1.3) : fs * 1.2;
  const double xl_dy =
      compact ? tick + gap + (ax.decades.empty() ? fs * 0.45 : fs * 0.8) : tick + gap + fs * 0.55;
  const double xlab_dy =
      compact ? tick + gap + xl_row + gap + fs * 0.55 : tick + gap + fs * 1.2 + gap * 2 + fs * 0.6;
  const double xrows =
      compact ? tick + gap + xl_row + gap + fs * 1.2 : tick + gap + fs * 1.2 + gap * 2 + fs * 1.3;
  const double row_h = compact ? fs * 1.3 : fs * 1.6;
  // A legend under the plot: entries flow left to right in rows as wide as the picture.
  std::vector<std::pair<double, double> > legend_at;  // entry k: (x offset from pad, row)
  double legend_rows = 0;
  if (legend_below) {
    double x = 0;
    for (const auto& s : series) {
      const double w = fs * 2.6 + gap + text_width(ms.cr.get(), s.label) + fs * (compact ? 0.8 : 1.2);
      // compact: the legend starts under the plot's left edge
      const double room = compact ? pw + right - pad : left + pw + right - 2 * pad;
      if (x > 0 && x + w > room) x = 0, legend_rows += 1;
      legend_at.push_back({x, legend_rows});
      x += w;
    }
    if (!series.empty()) legend_rows += 1;
  }
  const double bottom = xrows + pad + legend_rows * row_h + (compact && legend_rows > 0 ? gap : 0);
  double ph = sized ? std::round(pw * 0.62) : 470;
  if (compact) {
    // pw * ph >= r * W * (top + ph + bottom) for r = 0.62, up to a square plot.
    const double r = 0.62, Wt = left + pw + right;
    if (pw > r * Wt) ph = std::max(ph, std::ceil(r * Wt * (top + bottom) / (pw - r * Wt)));
    ph = std::min(ph, pw);
  }
  const int W = static_cast<int>(std::ceil(left + pw + right)),
            H = static_cast<int>(std::ceil(top + ph + bottom));
  LinePlotInfo info;
  info.width_px = W;
  info.height_px = H;
  info.font_px = fs;
  info.dpi = dpi;
  const double x0 = left, y0 = top;
  info.min_font_px = render(path, kind, W, H, dpi, info.boxes, [&](cairo_t* cr) {
    font(cr, fs * 1.15, true);
    set_rgb(cr, kInk);
    if (titled) text(cr, x0 + pw / 2, pad + fs * 0.55, opt.title, 0.5);
    if (!note.empty()) {
      font(cr, fs * 0.85);
      cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
      text(cr, x0 + pw / 2, pad + fs * 1.15 * 1.3 + fs * 0.5, note, 0.5);
    }
    font(cr, fs);
    auto X = [&](double v) { return ax.map(v, x0, x0 + pw); };
    auto Y = [&](double v) { return ay.map(v, y0 + ph, y0); };
    // Grid.
    cairo_set_line_width(cr, 1);
    set_rgb(cr, kGrid);
    for (double v : ax.major) cairo_move_to(cr, X(v), y0), cairo_line_to(cr, X(v), y0 + ph);
    for (int d : ax.decades)
      cairo_move_to(cr, X(std::pow(10.0, d)), y0), cairo_line_to(cr, X(std::pow(10.0, d)), y0 + ph);
    for (double v : ay.major) cairo_move_to(cr, x0, Y(v)), cairo_line_to(cr, x0 + pw, Y(v));
    for (int d : ay.decades)
      cairo_move_to(cr, x0, Y(std::pow(10.0, d))), cairo_line_to(cr, x0 + pw, Y(std::pow(10.0, d)));
    cairo_stroke(cr);
    // Series, clipped to the plot: bands first, then bars, lines and markers on top.
    cairo_save(cr);
    cairo_rectangle(cr, x0, y0, pw, ph);
    cairo_clip(cr);
    for (std::size_t si = 0; si < series.size(); ++si) {
      const auto& s = series[si];
      if (s.y_upper.empty()) continue;
      const Rgb c = okabe_ito(colour_index(si));
      // One stepped polygon per run of points with both ends: each point's interval [y, y_upper] spans
      // half-way to its neighbours (integer values at a few x are not interpolated), along the upper
      // values, back along the lower; filled, no outline, so where y == y_upper nothing shows.
      std::size_t k = 0;
      while (k < s.x.size()) {
        auto ok = [&](std::size_t q) {
          return q < s.y_upper.size() && usable(s.x[q], opt.log_x) && usable(s.y[q], opt.log_y) &&
                 usable(s.y_upper[q], opt.log_y);
        };
        if (!ok(k)) {
          ++k;
          continue;
        }
        std::size_t e = k;
        while (e + 1 < s.x.size() && ok(e + 1)) ++e;
        auto xl = [&](std::size_t q) {
          if (q > k) return (X(s.x[q - 1]) + X(s.x[q])) / 2;
          return q < e ? X(s.x[q]) - (X(s.x[q + 1]) - X(s.x[q])) / 2 : X(s.x[q]) - fs * 0.3;
        };
        auto xr = [&](std::size_t q) {
          if (q < e) return (X(s.x[q]) + X(s.x[q + 1])) / 2;
          return q > k ? X(s.x[q]) + (X(s.x[q]) - X(s.x[q - 1])) / 2 : X(s.x[q]) + fs * 0.3;
        };
        cairo_move_to(cr, xl(k), Y(s.y_upper[k]));
        for (std::size_t q = k; q <= e; ++q)
          cairo_line_to(cr, xl(q), Y(s.y_upper[q])), cairo_line_to(cr, xr(q), Y(s.y_upper[q]));
        for (std::size_t q = e + 1; q-- > k;)
          cairo_line_to(cr, xr(q), Y(s.y[q])), cairo_line_to(cr, xl(q), Y(s.y[q]));
        cairo_close_path(cr);
        cairo_set_source_rgba(cr, c.r, c.g, c.b, 0.3);
        cairo_fill(cr);
        k = e + 1;
      }
    }
    for (std::size_t si = 0; si < series.size(); ++si) {
      const auto& s = series[si];
      if (!s.bars) continue;
      double step = std::numeric_limits<double>::infinity();
      for (std::size_t k = 1; k < s.x.size(); ++k)
        if (std::isfinite(s.x[k]) && std::isfinite(s.x[k - 1]) && s.x[k] != s.x[k - 1])
          step = std::min(step, std::abs(X(s.x[k]) - X(s.x[k - 1])));
      const double bw = std::isfinite(step) ? 0.7 * step : pw * 0.1;
      set_rgb(cr, okabe_ito(colour_index(si)));
      for (std::size_t k = 0; k < s.x.size(); ++k) {
        if (!usable(s.x[k], opt.log_x) || !usable(s.y[k], opt.log_y)) continue;
        const double yb = Y(std::max(ay.lo, opt.log_y ? ay.lo : 0.0));
        cairo_rectangle(cr, X(s.x[k]) - bw / 2, Y(s.y[k]), bw, yb - Y(s.y[k]));
      }
      cairo_fill(cr);
    }
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    for (std::size_t si = 0; si < series.size(); ++si) {
      const auto& s = series[si];
      if (!s.y_upper.empty() || s.bars) continue;
      set_rgb(cr, okabe_ito(colour_index(si)));
      cairo_set_line_width(cr, line_w);
      line_style(cr, colour_index(si));
      // Long series (more than 4 points per pixel column, x ascending) are drawn as their envelope: per
      // pixel column the first, lowest, highest and last point in order, so the picture is unchanged and
      // an SVG or PDF stays small.
      std::vector<std::size_t> keep;
      const bool ascending = std::is_sorted(s.x.begin(), s.x.end());
      if (ascending && s.x.size() > static_cast<std::size_t>(4 * pw)) {
        std::size_t k = 0;
        while (k < s.x.size()) {
          if (!usable(s.x[k], opt.log_x) || !usable(s.y[k], opt.log_y)) {
            keep.push_back(k++);
            continue;
          }
          const long col = std::lround(X(s.x[k]));
          std::size_t first = k, lo = k, hi = k, last = k;
          while (k < s.x.size() && usable(s.x[k], opt.log_x) && usable(s.y[k], opt.log_y) &&
                 std::lround(X(s.x[k])) == col) {
            if (s.y[k] < s.y[lo]) lo = k;
            if (s.y[k] > s.y[hi]) hi = k;
            last = k++;
          }
          std::size_t pts[4] = {first, std::min(lo, hi), std::max(lo, hi), last};
          for (std::size_t q : pts)
            if (keep.empty() || keep.back() != q) keep.push_back(q);
        }
      } else {
        keep.resize(s.x.size());
        for (std::size_t k = 0; k < keep.size(); ++k) keep[k] = k;
      }
      bool pen = false;
      for (std::size_t k : keep) {
        if (!usable(s.x[k], opt.log_x) || !usable(s.y[k], opt.log_y)) {
          pen = false;
          continue;
        }
        if (pen)
          cairo_line_to(cr, X(s.x[k]), Y(s.y[k]));
        else
          cairo_move_to(cr, X(s.x[k]), Y(s.y[k]));
        pen = true;
      }
      cairo_stroke(cr);
      line_style(cr, 0);
      if (s.markers)
        for (std::size_t k = 0; k < s.x.size(); ++k) {
          if (!usable(s.x[k], opt.log_x) || !usable(s.y[k], opt.log_y)) continue;
          marker(cr, X(s.x[k]), Y(s.y[k]), colour_index(si), mark_r);
        }
    }
    cairo_restore(cr);
    // Frame, ticks, labels.
    set_rgb(cr, kInk);
    cairo_set_line_width(cr, 1.2);
    cairo_rectangle(cr, x0, y0, pw, ph);
    cairo_stroke(cr);
    record_box(cr, "plot", x0, y0, pw, ph);
    auto xtick = [&](double x, double len) {
      cairo_move_to(cr, x, y0 + ph);
      cairo_line_to(cr, x, y0 + ph + len);
      cairo_stroke(cr);
      record_box(cr, "tick", x, y0 + ph, 0, len);
    };
    auto ytick = [&](double y, double len) {
      cairo_move_to(cr, x0, y);
      cairo_line_to(cr, x0 - len, y);
      cairo_stroke(cr);
      record_box(cr, "tick", x0 - len, y, len, 0);
    };
    const double xl_y = y0 + ph + xl_dy;
    for (double v : ax.major) xtick(X(v), tick), text(cr, X(v), xl_y, fmt_num(v), 0.5);
    for (int d : ax.decades)
      xtick(X(std::pow(10.0, d)), tick), PowLabel{d, sub}.draw(cr, X(std::pow(10.0, d)), xl_y, fs, 0.5);
    for (double v : ax.minor) xtick(X(v), tick * 0.55);
    for (double v : ay.major) ytick(Y(v), tick), text(cr, x0 - tick - gap, Y(v), fmt_num(v), 1.0);
    for (int d : ay.decades)
      ytick(Y(std::pow(10.0, d)), tick),
          PowLabel{d, sub}.draw(cr, x0 - tick - gap, Y(std::pow(10.0, d)), fs, 1.0);
    for (double v : ay.minor) ytick(Y(v), tick * 0.55);
    text(cr, x0 + pw / 2, y0 + ph + xlab_dy, opt.x_label, 0.5);
    text_vertical(cr, compact ? pad + fs * 0.45 : pad + fs * 0.6, y0 + ph / 2, opt.y_label);
    // Legend, right of the plot.
    for (std::size_t si = 0; si < series.size(); ++si) {
      const double lx = !legend_below ? x0 + pw + fs * 1.2 : (compact ? x0 : pad) + legend_at[si].first;
      const double y = !legend_below ? y0 + fs * 0.6 + static_cast<double>(si) * fs * 1.6
                       : compact     ? y0 + ph + xrows + gap + legend_at[si].second * row_h + row_h / 2
                                     : y0 + ph + tick + gap + fs * 1.2 + gap * 2 + fs * 1.3 + fs * 0.8 +
                                       legend_at[si].second * fs * 1.6;
      const auto& s = series[si];
      const std::size_t ci = colour_index(si);
      const Rgb c = okabe_ito(ci);
      if (!s.y_upper.empty() || s.bars) {  // a filled swatch
        cairo_rectangle(cr, lx + fs * 0.3, y - fs * 0.4, fs * 1.6, fs * 0.8);
        if (s.bars)
          set_rgb(cr, c);
        else
          cairo_set_source_rgba(cr, c.r, c.g, c.b, 0.28);
        cairo_fill_preserve(cr);
        cairo_set_source_rgba(cr, c.r, c.g, c.b, 0.7);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
      } else {
        // Points only (no two neighbours drawn joined): the marker alone.
        bool joined = false;
        for (std::size_t k = 1; k < s.x.size() && !joined; ++k)
          joined = usable(s.x[k], opt.log_x) && usable(s.y[k], opt.log_y) && usable(s.x[k - 1], opt.log_x) &&
                   usable(s.y[k - 1], opt.log_y);
        set_rgb(cr, c);
        if (joined || !s.markers) {
          cairo_set_line_width(cr, line_w);
          line_style(cr, ci);
          cairo_move_to(cr, lx, y);
          cairo_line_to(cr, lx + fs * 2.2, y);
          cairo_stroke(cr);
          line_style(cr, 0);
        }
        if (s.markers) marker(cr, lx + fs * 1.1, y, ci, mark_r);
      }
      set_rgb(cr, kInk);
      text(cr, lx + fs * 2.6 + gap, y, series[si].label);
      record_box(cr, "legend", lx, y - fs * 0.45, fs * 2.6 + gap + text_width(cr, series[si].label),
                 fs * 0.9);
    }
  });
  return info;
#endif
}

}  // namespace mixgraph
