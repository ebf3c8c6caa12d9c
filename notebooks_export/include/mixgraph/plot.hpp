#pragma once
// Figures drawn with cairo: heatmaps of n x n matrices and line plots, as PNG, SVG or PDF (chosen by the
// file extension). The input is always a plain matrix or plain vectors, never an analysis result.
//
//   std::vector<double> m(n * n, NAN);                   // row-major, NaN = masked (grey)
//   mixgraph::HeatmapOptions o;
//   o.title = "|M| for pow2, n = 1024";
//   o.scale = mixgraph::ColorScale::Log;
//   mixgraph::write_heatmap("M.png", mixgraph::MatrixView::dense(m, n, n), o);
//
// Heatmaps: row i = target token, column j = source, position 1 at the top-left, viridis with a colour
// bar, masked cells in neutral grey. Matrices larger than `max_side` cells a side are pooled in square
// blocks of f x f cells (max or mean of the unmasked cells; a block with none stays masked) and the title
// says so. Without cairo in the build every writer throws RuntimeFailure ("not built in").
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mixgraph {

/// True when figures can be drawn: cairo was found at build time and its library (libcairo.so.2, loaded
/// on the first call rather than at start-up) loads.
bool plots_built_in();

/// Why figures cannot be drawn ("cairo is not built in ...", or the loader's reason); empty when
/// plots_built_in().
std::string plots_unavailable_reason();

/// A rows x cols matrix given by a callback; NaN marks a masked cell.
struct MatrixView {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::function<double(std::size_t, std::size_t)> value;

  /// A view of a dense row-major vector (which must outlive the view).
  static MatrixView dense(const std::vector<double>& v, std::size_t rows, std::size_t cols);
};

enum class Pooling { Max, Mean };
enum class ColorScale { Linear, Log };

/// A matrix after block pooling; `factor` = 1 means unchanged.
struct PooledMatrix {
  std::size_t rows = 0, cols = 0;
  std::size_t factor = 1;
  std::vector<double> values;  ///< row-major, NaN = masked
};

/// Pools m in f x f blocks with the smallest f such that both sides are <= max_side (f = 1 when they
/// already are). Max keeps the largest unmasked value of a block, Mean their mean; a block without
/// unmasked cells is NaN. O(rows * cols) calls of m.value.
PooledMatrix pool_matrix(const MatrixView& m, std::size_t max_side, Pooling pooling);

/// Screen: titles and notes drawn, lines 2.4 px. Paper: no title or note (the paper's caption says it), thin
/// lines, the legend under the plot, text of 8 pt (exponents 7 pt) at the chosen width, and a layout in
/// which the plot area takes at least 60% of the picture at 3.3 and 6.75 inches (a heatmap's colour bar
/// goes under the plot where that leaves the plot more room). Line plots
/// and heatmaps take the same two options (width_in, style).
enum class FigureStyle { Screen, Paper };

/// Pixels per inch of figures drawn at a given width (width_in > 0).
inline constexpr double kFigureDpi = 200;
/// Pixels per inch of figures in the screen layout (width_in = 0).
inline constexpr double kScreenDpi = 100;

/// A figure's physical size: a PNG is width_px x height_px pixels and carries `dpi` in its pHYs chunk; an
/// SVG or PDF is width_px / dpi x height_px / dpi inches (SVG width and height in pt, PDF MediaBox in pt).
/// So a figure drawn at width_in is width_in inches wide in every format.

/// A box the drawing code drew, in picture pixels (origin top-left): for layout tests and tools.
struct FigureBox {
  /// "plot" (the data area), "colorbar", "legend" (one entry: swatch and label), "tick" (a tick mark),
  /// "text" (the ink box of one piece of text: labels, tick labels, titles, legend labels, exponents).
  std::string kind;
  std::string text;  ///< the text drawn ("text" boxes)
  double x = 0, y = 0, w = 0, h = 0;
};

/// The size in points of text `font_px` pixels high in a picture `width_px` pixels wide that is printed
/// `width_in` inches wide (1 pt = 1/72 inch).
inline double text_points(double font_px, int width_px, double width_in) {
  return width_px > 0 ? font_px * 72.0 * width_in / width_px : 0;
}

struct HeatmapOptions {
  std::string title;
  std::string x_label = "source position j";
  std::string y_label = "target position i";
  std::string colorbar_label = "value";
  ColorScale scale = ColorScale::Linear;  ///< Log: values <= 0 are masked
  Pooling pooling = Pooling::Max;
  std::size_t max_side = 2048;       ///< pool larger matrices down to at most this many cells a side
  std::optional<double> vmin, vmax;  ///< colour range; default: the range of the unmasked values
  /// Integer data (distances, ranks): one colour per integer level and a stepped colour bar with a tick
  /// per level, when there are at most 32 levels (else a continuous bar). Values are rounded.
  bool integer_levels = false;
  /// Non-empty: a mask picture. Unmasked cells are drawn in one colour with a two-entry legend
  /// (`mask_label`, `masked_label`) instead of a colour bar.
  std::string mask_label;
  std::string masked_label = "zero";
  std::string note;  ///< an optional second title line (e.g. which weights were drawn)
  /// Printed width in inches, as for line plots (LinePlotOptions::width_in): 0 is the screen layout (about
  /// 700 px, text 13 px); otherwise the picture is width_in * kFigureDpi pixels wide, its text 12 pt
  /// (screen) or 8 pt (paper) at that width, and matrices wider than the room left for the plot are
  /// pooled down to it.
  double width_in = 0;
  FigureStyle style = FigureStyle::Screen;  ///< Paper: no title or note
};

/// What a heatmap writer actually drew.
struct HeatmapInfo {
  std::size_t rows = 0, cols = 0;   ///< after pooling
  std::size_t factor = 1;           ///< pooling factor (1 = none)
  double vmin = 0, vmax = 0;        ///< the colour range used
  std::size_t masked = 0;           ///< masked cells after pooling
  int width_px = 0, height_px = 0;  ///< size of the picture (PNG pixels, SVG/PDF points)
  double plot_x = 0, plot_y = 0;    ///< top-left corner of cell (1, 1) in the picture
  double cell_px = 1;               ///< side of one (pooled) cell (fractional at a printed width)
  std::size_t max_side = 0;         ///< the pooling limit used (pool_matrix(m, max_side) gives the cells)
  double font_px = 0;               ///< axis and tick labels
  double min_font_px = 0;           ///< the smallest text drawn (measured while drawing)
  double dpi = kScreenDpi;          ///< pixels per inch (kFigureDpi at a printed width)
  std::vector<FigureBox> boxes;     ///< what was drawn where (recorded while drawing)
};

/// Draws m as a heatmap into `path` (.png, .svg or .pdf), atomically. Throws UsageError for another
/// extension or an empty matrix, RuntimeFailure when cairo is not built in or writing fails.
/// O(rows * cols) for pooling plus the cells drawn (SVG/PDF draw one rectangle per run of equal colour).
HeatmapInfo write_heatmap(const std::string& path, const MatrixView& m, const HeatmapOptions& opt);

struct LineSeries {
  LineSeries() = default;
  LineSeries(std::string label_, std::vector<double> x_, std::vector<double> y_, bool markers_ = false)
      : label(std::move(label_)), x(std::move(x_)), y(std::move(y_)), markers(markers_) {}
  std::string label;
  std::vector<double> x, y;  ///< same length; NaN (or <= 0 on a log axis) breaks the line
  bool markers = false;      ///< draw a dot at every point (for short sweeps)
  /// Non-empty (same length as y): a band, filled from y up to y_upper (translucent), no line or markers.
  std::vector<double> y_upper;
  bool bars = false;  ///< a bar from 0 to y at every x (histograms), no line
  int color = -1;     ///< colour and marker shape: the series' index when < 0
};

struct LinePlotOptions {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;
  bool log_y = false;
  std::string note;             ///< an optional second title line
  std::vector<double> x_ticks;  ///< labelled x ticks (default: nice values, or decades on a log axis)
  /// Printed width in inches (3.3: one column, 6.75: two columns). 0: the screen layout, about 1100 px
  /// wide. Otherwise the picture is width_in * kFigureDpi pixels wide, its text 12 pt (screen) or 8 pt
  /// (paper) at that width, exponents 0.7 of that (at least 7 pt), and the legend under the plot.
  double width_in = 0;
  FigureStyle style = FigureStyle::Screen;
};

/// What a line plot writer drew: its size and the largest and smallest text, in pixels.
struct LinePlotInfo {
  int width_px = 0, height_px = 0;
  double font_px = 0;       ///< axis labels, tick labels and legend
  double min_font_px = 0;   ///< the smallest text drawn (measured while drawing: notes, exponents of 10^k)
  double dpi = kScreenDpi;  ///< pixels per inch (kFigureDpi at a printed width)
  std::vector<FigureBox> boxes;  ///< what was drawn where (recorded while drawing)
};

/// A line plot with axes, ticks, light grid and a legend (Okabe-Ito colours), into `path`
/// (.png, .svg, .pdf), atomically. Throws like write_heatmap. O(total points).
LinePlotInfo write_line_plot(const std::string& path, const std::vector<LineSeries>& series,
                             const LinePlotOptions& opt);

/// "Nice" tick values covering [lo, hi] (steps 1, 2, 2.5 or 5 times a power of ten), about `target`
/// of them (O(number of ticks)). Used for the axes; exposed for tests.
std::vector<double> nice_ticks(double lo, double hi, int target);

}  // namespace mixgraph
