#include "mixgraph/colormap.hpp"

#include <algorithm>
#include <cmath>

namespace mixgraph {

Rgb viridis(double t) {
  if (std::isnan(t)) t = 0;
  t = std::clamp(t, 0.0, 1.0);
  const auto k = std::min<std::size_t>(255, static_cast<std::size_t>(std::floor(t * 256.0)));
  const auto& e = viridis_table()[k];
  return {e[0], e[1], e[2]};
}

Rgb masked_grey() {
  return {0.88, 0.88, 0.88};
}

Rgb okabe_ito(std::size_t k) {
  // Okabe & Ito (2008): blue #0072B2, vermillion #D55E00, bluish green #009E73, orange #E69F00,
  // reddish purple #CC79A7, sky blue #56B4E9, black #000000.
  static const unsigned hex[] = {0x0072B2, 0xD55E00, 0x009E73, 0xE69F00, 0xCC79A7, 0x56B4E9, 0x000000};
  const unsigned c = hex[k % 7];
  return {((c >> 16) & 0xFF) / 255.0, ((c >> 8) & 0xFF) / 255.0, (c & 0xFF) / 255.0};
}

}  // namespace mixgraph
