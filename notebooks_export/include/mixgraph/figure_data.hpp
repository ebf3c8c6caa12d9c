#pragma once
// The data behind the report's figures and the notebook code that draws them with matplotlib: a heatmap's
// (pooled) matrix as NPY (float32, NaN = masked; mask pictures uint8, 1 = set), a line plot's series as CSV
// (series, x, y). The notebook loads these files, keeps them in variables and redraws each figure from them.
#include <string>
#include <vector>

#include "mixgraph/plot.hpp"

namespace mixgraph {

/// NPY v1.0 bytes of a rows x cols float32 matrix (row-major, C order). O(rows * cols).
std::string npy_float32(const std::vector<double>& values, std::size_t rows, std::size_t cols);
/// NPY v1.0 bytes of a mask picture: uint8, 1 where the value is set (not NaN), 0 elsewhere. O(rows * cols).
std::string npy_mask(const std::vector<double>& values, std::size_t rows, std::size_t cols);
/// CSV "series,x,y" with one row per point (NaN as empty); "series,x,y,y_upper" when a series is a band
/// (y_upper empty for the others). O(total points).
std::string series_csv(const std::vector<LineSeries>& series);
/// Notebook code: figure_data[name] = heatmap(npy path, ...), drawn with matplotlib.
std::string heatmap_code(const std::string& name, const std::string& npy, const HeatmapOptions& opt,
                         std::size_t factor);
/// Notebook code: figure_data[name] = lines(csv path, ...), drawn with matplotlib.
std::string lines_code(const std::string& name, const std::string& csv, const LinePlotOptions& opt,
                       const std::vector<LineSeries>& series);
/// The notebook's first code cell: imports, mixgraph when importable, report.json, the tables as
/// DataFrames, per-pattern profiles, and the two drawing helpers.
std::string notebook_setup_code();

}  // namespace mixgraph
