#include "pattern_heads.hpp"

#include <ostream>

#include "mixgraph/distances.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/profile.hpp"
#include "output.hpp"

namespace mixgraph::cli {

nlohmann::ordered_json head_pattern_rows(const Pattern& p, int threads) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < p.heads.size(); ++k) {
    const std::string& spec = p.heads[k];
    const Pattern h = make_pattern(p.tree.parts.at(k), p.n);  // the head's tree: no parse
    ProfileOptions po;
    po.threads = threads;
    po.per_position = false;
    const auto s = cache_profile(h, po);
    rows.push_back({{"pattern", spec},
                    {"family", to_string(h.family)},
                    {"a_mode", to_string(h.a_mode)},
                    {"nnz_A", s.nnz_a},
                    {"nnz_B", s.nnz_b},
                    {"total_decode_cost", s.total_decode_cost},
                    {"max_decode_cost", s.max_decode_cost},
                    {"max_cache", s.max_cache}});
  }
  return rows;
}

nlohmann::ordered_json head_distance_rows(const Pattern& p, int threads, std::uint64_t mem_limit,
                                          const DistanceRouteRequest& request) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < p.heads.size(); ++k) {
    const std::string& spec = p.heads[k];
    const PatternSpec& tree = p.tree.parts.at(k);  // the head's tree: estimated and built without a parse
    check_memory(estimate_pattern_bytes(tree, p.n, false), mem_limit,
                 "head " + spec + " at n = " + std::to_string(p.n));
    const Pattern h = make_pattern(tree, p.n);
    DistanceRouteRequest q = request;
    q.pattern_text = "head " + spec;
    const DistanceRouteChoice route = choose_distance_route(h, q);  // the command's route, for the head
    AllPairsOptions ap;
    ap.threads = threads;
    ap.eccentricities = false;
    ap.mem_limit = mem_limit;
    const bool profile = route.route == DistanceRoute::Profile;
    const DistanceSummary sum =
        profile ? summary_from_profile(distance_profile(h), h.n, false) : all_pairs_summary(h, ap);
    rows.push_back({{"pattern", spec},
                    {"figures_from", profile ? "profile" : "all-pairs"},
                    {"diameter", sum.diameter},
                    {"mean_distance", sum.mean_distance},
                    {"reachable_pairs", sum.reachable_pairs},
                    {"unreachable_pairs", sum.unreachable_pairs}});
  }
  return rows;
}

void print_head_rows(std::ostream& os, const nlohmann::ordered_json& rows) {
  if (rows.empty()) return;
  std::vector<std::string> h = {"head"};
  for (auto it = rows[0].begin(); it != rows[0].end(); ++it) h.push_back(it.key());
  Table t(h);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    std::vector<std::string> row = {std::to_string(k + 1)};
    for (auto it = rows[k].begin(); it != rows[k].end(); ++it)
      row.push_back(it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
    t.add(row);
  }
  os << "\nper head (the lines above are the combined mixer: the union of the heads' reads):\n";
  t.print_text(os);
}

}  // namespace mixgraph::cli
