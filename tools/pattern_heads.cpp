#include "pattern_heads.hpp"

#include <ostream>

#include "mixgraph/distances.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/profile.hpp"
#include "output.hpp"

namespace mixgraph::cli {

nlohmann::ordered_json head_pattern_rows(const Pattern& p, int threads) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& spec : p.heads) {
    const Pattern h = make_pattern(spec, p.n);
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

nlohmann::ordered_json head_distance_rows(const Pattern& p, int threads, std::uint64_t mem_limit) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& spec : p.heads) {
    check_memory(estimate_pattern_bytes(spec, p.n, false), mem_limit,
                 "head " + spec + " at n = " + std::to_string(p.n));
    const Pattern h = make_pattern(spec, p.n);
    const bool ti = h.translation_invariant() && !(h.a_mode == AMode::Explicit && !h.b_empty());
    DistanceSummary sum;
    if (ti) {
      sum = summary_from_profile(
          h.a_mode == AMode::Explicit ? distance_profile(h) : offset_distance_profile(h.b_offsets, h.n), h.n,
          false);
    } else {
      AllPairsOptions ap;
      ap.threads = threads;
      ap.eccentricities = false;
      ap.mem_limit = mem_limit;
      sum = all_pairs_summary(h, ap);
    }
    rows.push_back({{"pattern", spec},
                    {"figures_from", ti ? "profile" : "all-pairs"},
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
