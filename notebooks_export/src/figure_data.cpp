// The data behind the report's figures, and the notebook code that draws them (figure_data.hpp).
#include "mixgraph/figure_data.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

namespace mixgraph {
namespace {

std::string py(const std::string& s) {
  return nlohmann::json(s).dump();
}
std::string py(double v) {
  std::ostringstream ss;
  ss.precision(17);
  ss << v;
  return ss.str();
}
std::string py_bool(bool b) {
  return b ? "True" : "False";
}

}  // namespace

namespace {
std::string npy_header(const char* descr, std::size_t rows, std::size_t cols) {
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  const std::size_t pre = 10;  // magic (6) + version (2) + header length (2)
  while ((pre + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  const auto len = static_cast<std::uint16_t>(header.size());
  out += static_cast<char>(len & 0xFF);
  out += static_cast<char>(len >> 8);
  return out + header;
}
}  // namespace

std::string npy_float32(const std::vector<double>& values, std::size_t rows, std::size_t cols) {
  std::string out = npy_header("<f4", rows, cols);
  const std::size_t at = out.size();
  out.resize(at + values.size() * 4);
  for (std::size_t k = 0; k < values.size(); ++k) {
    const float f = static_cast<float>(values[k]);  // little-endian hosts (x86-64, arm64)
    std::memcpy(&out[at + 4 * k], &f, 4);
  }
  return out;
}

std::string npy_mask(const std::vector<double>& values, std::size_t rows, std::size_t cols) {
  std::string out = npy_header("|u1", rows, cols);
  out.reserve(out.size() + values.size());
  for (double v : values) out += static_cast<char>(std::isnan(v) ? 0 : 1);
  return out;
}

std::string series_csv(const std::vector<LineSeries>& series) {
  std::ostringstream ss;
  ss.precision(17);
  bool band = false;
  for (const auto& s : series) band = band || !s.y_upper.empty();
  ss << (band ? "series,x,y,y_upper\n" : "series,x,y\n");
  for (const auto& s : series) {
    std::string label = s.label;
    if (label.find_first_of(",\"\n") != std::string::npos) {
      std::string q = "\"";
      for (char c : label) q += c == '"' ? std::string("\"\"") : std::string(1, c);
      label = q + "\"";
    }
    for (std::size_t k = 0; k < s.x.size() && k < s.y.size(); ++k) {
      ss << label << ',';
      if (!std::isnan(s.x[k])) ss << s.x[k];
      ss << ',';
      if (!std::isnan(s.y[k])) ss << s.y[k];
      if (band) {
        ss << ',';
        if (k < s.y_upper.size() && !std::isnan(s.y_upper[k])) ss << s.y_upper[k];
      }
      ss << '\n';
    }
  }
  return ss.str();
}

std::string heatmap_code(const std::string& name, const std::string& npy, const HeatmapOptions& o,
                         std::size_t factor) {
  std::string c = "figure_data[" + py(name) + "] = np.load(" + py(npy) + ")\nheatmap(figure_data[" +
                  py(name) + "], title=" + py(o.title);
  if (!o.note.empty()) c += ", note=" + py(o.note);
  c += ", xlabel=" + py(o.x_label) + ", ylabel=" + py(o.y_label) + ", cbar=" + py(o.colorbar_label);
  if (o.scale == ColorScale::Log) c += ", log=True";
  if (o.vmin) c += ", vmin=" + py(*o.vmin);
  if (o.vmax) c += ", vmax=" + py(*o.vmax);
  if (o.integer_levels) c += ", integer=True";
  if (!o.mask_label.empty()) c += ", mask=(" + py(o.mask_label) + ", " + py(o.masked_label) + ")";
  if (factor > 1) c += ", factor=" + std::to_string(factor);
  return c + ");";
}

std::string lines_code(const std::string& name, const std::string& csv, const LinePlotOptions& o,
                       const std::vector<LineSeries>& series) {
  std::string c = "figure_data[" + py(name) + "] = pd.read_csv(" + py(csv) + ")\nlines(figure_data[" +
                  py(name) + "], title=" + py(o.title);
  if (!o.note.empty()) c += ", note=" + py(o.note);
  c += ", xlabel=" + py(o.x_label) + ", ylabel=" + py(o.y_label) + ", logx=" + py_bool(o.log_x) +
       ", logy=" + py_bool(o.log_y);
  std::string bars;
  for (const auto& s : series)
    if (s.bars) bars += py(s.label) + ", ";
  if (!bars.empty()) c += ", bars=(" + bars + ")";
  return c + ");";
}

std::string notebook_setup_code() {
  return R"PY(# Run this notebook in the report's directory. With the mixgraph Python package importable, the
# per-position profiles are recomputed with it; otherwise everything comes from the files beside it.
import json
import pathlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Image, display
from matplotlib.colors import BoundaryNorm, ListedColormap, LogNorm, Normalize

try:
    import mixgraph
except ImportError:
    mixgraph = None

report = json.loads(pathlib.Path("report.json").read_text())
n = report["parameters"]["n"]
patterns = report["parameters"]["patterns"]
tables = {pathlib.Path(f).stem: pd.read_csv(f) for f in report["files"]
          if f.startswith("tables/") and f.endswith(".csv")}          # every table as a DataFrame
figure_data = {}                                                     # the data behind every figure


def stem(spec):
    return "".join(c if c.isalnum() or c in "._-" else "-" if c == "+" else "_" for c in spec) or "_"


profiles = {}  # per pattern: DataFrame (position, decode_cost, cache_size)
for spec in patterns:
    if mixgraph is not None and not spec.startswith("mtx:"):
        p = mixgraph.Pattern(spec, n)
        profiles[spec] = pd.DataFrame({"position": np.arange(1, p.n + 1), "decode_cost": p.decode_cost(),
                                       "cache_size": p.cache_sizes()})
    elif "profile_" + stem(spec) in tables:
        profiles[spec] = tables["profile_" + stem(spec)]
source = "the mixgraph package " + mixgraph.__version__ if mixgraph is not None else "the report's files"
print(f"{len(tables)} tables, {len(profiles)} profiles from {source}")


def heatmap(data, title="", note="", xlabel="", ylabel="", cbar="value", log=False, vmin=None, vmax=None,
            integer=False, mask=None, factor=1, ax=None):
    """Draws a heatmap as the report did: data is figures/<name>.npy or its array (float32, NaN = masked,
    grey; masks: uint8, 1 = set). On `ax` if given, else on a new figure of rcParams' size; returns the
    Figure, to restyle or save (fig.savefig)."""
    m = np.load(data) if isinstance(data, (str, pathlib.Path)) else np.asarray(data)
    if ax is None:
        fig, ax = plt.subplots()
    else:
        fig = ax.figure
    extent = (0.5, m.shape[1] * factor + 0.5, m.shape[0] * factor + 0.5, 0.5)
    cmap = plt.get_cmap("viridis").copy()
    cmap.set_bad("#bdbdbd")
    if mask is not None:  # a mask picture: uint8, 1 = set, 0 = not
        im = ax.imshow(np.where(m > 0, 1.0, np.nan), cmap=ListedColormap(["#3b528b"]), extent=extent,
                       interpolation="nearest")
        im.cmap.set_bad("#f0f0f0")
        from matplotlib.patches import Patch
        ax.legend(handles=[Patch(color="#3b528b", label=mask[0]), Patch(color="#f0f0f0", label=mask[1])],
                  loc="upper right", fontsize="small")
    else:
        data = np.ma.masked_invalid(m if not log else np.where(m > 0, m, np.nan))
        if integer and data.count():
            lo, hi = int(np.nanmin(data)), int(np.nanmax(data))
            norm = BoundaryNorm(np.arange(lo - 0.5, hi + 1.5), cmap.N) if hi - lo < 32 else Normalize(lo, hi)
        elif log:
            norm = LogNorm(vmin=vmin, vmax=vmax)
        else:
            norm = Normalize(vmin=vmin, vmax=vmax)
        im = ax.imshow(data, cmap=cmap, norm=norm, extent=extent, interpolation="nearest")
        fig.colorbar(im, ax=ax, label=cbar)
    ax.set(title=title + ("\n" + note if note else ""), xlabel=xlabel, ylabel=ylabel)
    return fig


def lines(data, title="", note="", xlabel="", ylabel="", logx=False, logy=False, bars=(), ax=None):
    """Draws a line plot as the report did: data is figures/<name>.csv or its DataFrame (series, x, y;
    y_upper for bands filled from y to y_upper); `bars` names the series drawn as bars. On `ax` if given,
    else on a new figure of rcParams' size; returns the Figure."""
    df = pd.read_csv(data) if isinstance(data, (str, pathlib.Path)) else data
    if ax is None:
        fig, ax = plt.subplots()
    else:
        fig = ax.figure
    for label, g in df.groupby("series", sort=False):
        if "y_upper" in g and g["y_upper"].notna().any():
            ax.fill_between(g["x"], g["y"], g["y_upper"], alpha=0.3, label=label)
        elif label in bars:
            ax.bar(g["x"], g["y"], width=0.7, label=label)
        else:
            ax.plot(g["x"], g["y"], marker="o" if len(g) <= 24 else None, label=label)
    ax.set(title=title + ("\n" + note if note else ""), xlabel=xlabel, ylabel=ylabel)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return fig)PY";
}

}  // namespace mixgraph
