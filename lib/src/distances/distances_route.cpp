// The route of a distances query (distances.hpp): profile, all-pairs, or the single-row lists only.
#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"

namespace mixgraph {

bool profile_describes(const Pattern& p) {
  return p.translation_invariant() && !(p.a_mode == AMode::Explicit && !p.b_empty());
}

DistanceRouteChoice choose_distance_route(const Pattern& p, const DistanceRouteRequest& q) {
  DistanceRouteChoice c;
  c.translation_invariant = profile_describes(p);
  if (c.translation_invariant && !q.all_pairs && !q.matrix) {
    c.route = DistanceRoute::Profile;
    return c;
  }
  c.route = DistanceRoute::AllPairs;
  if (!c.translation_invariant && !q.all_pairs && !q.matrix && p.n > kAutoAllPairsMax) {
    if (!q.lists)
      throw UsageError("pattern " + (q.pattern_text.empty() ? p.spec : q.pattern_text) +
                       " is not translation-invariant: its diameter, mean and histogram need all-pairs "
                       "distances, run automatically only up to n = 2^14 = " +
                       std::to_string(kAutoAllPairsMax) + " (n is " + std::to_string(p.n) + "); " +
                       q.all_pairs_words + " to run them anyway (O(n^2/64 * levels) work), or ask " +
                       q.one_row_words + " for one row");
    c.route = DistanceRoute::ListsOnly;
  }
  return c;
}

std::uint64_t profile_summary_bytes(pos_t n, bool eccentricities) {
  return std::uint64_t{n} * (eccentricities ? 7 : 3) + (std::uint64_t{1} << 20);
}

}  // namespace mixgraph
