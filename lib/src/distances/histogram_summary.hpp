#pragma once
// The figures of a distance histogram, shared by the all-pairs summaries (distances_allpairs.cpp: by BFS
// and from a translation-invariant profile) and the stack's (stack_distances.cpp).
#include <cstddef>
#include <cstdint>

#include "mixgraph/distances.hpp"

namespace mixgraph::detail {

/// From s.histogram (pairs j < i per distance; entry 0 is set to 0, an empty histogram becomes {0}):
/// s.diameter (the largest distance with pairs, kept when none has), s.reachable_pairs (the pairs are added
/// to it) and s.mean_distance over the reachable pairs (0 when none). O(histogram size).
inline void settle_histogram(DistanceSummary& s) {
  if (s.histogram.empty()) s.histogram.assign(1, 0);
  s.histogram[0] = 0;
  long double sum = 0;
  for (std::size_t d = 1; d < s.histogram.size(); ++d) {
    if (!s.histogram[d]) continue;
    s.diameter = static_cast<std::uint32_t>(d);
    s.reachable_pairs += s.histogram[d];
    sum += static_cast<long double>(d) * static_cast<long double>(s.histogram[d]);
  }
  s.mean_distance = s.reachable_pairs ? static_cast<double>(sum / s.reachable_pairs) : 0.0;
}

}  // namespace mixgraph::detail
