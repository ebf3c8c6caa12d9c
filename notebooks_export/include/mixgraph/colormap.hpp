#pragma once
// Colour maps for figures: viridis for continuous values, a neutral grey for masked cells, and the
// Okabe-Ito palette for line plots.
//
//   mixgraph::Rgb c = mixgraph::viridis(0.5);   // the middle of the map
#include <array>
#include <cstddef>

namespace mixgraph {

struct Rgb {
  double r = 0, g = 0, b = 0;  ///< sRGB components in [0, 1]
};

/// The published 256-entry viridis table (van der Walt and Smith 2015, CC0; matplotlib's
/// `_viridis_data`), entry 0 = low end. See colormap_viridis.cpp for the source note.
const std::array<std::array<double, 3>, 256>& viridis_table();

/// viridis at t in [0, 1] (clamped; NaN gives the low end), sampled as matplotlib does for a 256-entry
/// listed map: entry min(255, floor(256 t)). O(1).
Rgb viridis(double t);

/// The neutral grey used for masked cells (zero, unreachable): sRGB (0.88, 0.88, 0.88).
Rgb masked_grey();

/// Okabe and Ito (2008), "Color Universal Design", a palette that stays distinct under the common colour
/// vision deficiencies. Ordered for lines on white (yellow left out): blue, vermillion, bluish green,
/// orange, reddish purple, sky blue, black; k wraps around.
Rgb okabe_ito(std::size_t k);

}  // namespace mixgraph
