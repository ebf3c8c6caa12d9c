// JSON of `mixgraph rank --pattern P` (result_json.hpp).
#include <algorithm>

#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/error.hpp"

namespace mixgraph::json {

std::optional<RankContrast> rank_contrast(const Pattern& p, const CutRankProfile& r, std::uint64_t seed,
                                          std::uint64_t mem_limit) {
  if (p.n > (1u << 16) ||
      (p.family != PatternFamily::CacheEfficient && p.family != PatternFamily::TranslationInvariant))
    return std::nullopt;
  std::string other = p.family == PatternFamily::CacheEfficient ? p.base : p.spec + "+cache";
  if (!p.heads.empty()) {  // +cache on every head: a trailing one would apply to the last head alone
    other = "heads:";
    for (std::size_t h = 0; h < p.heads.size(); ++h) other += (h ? ";" : "") + p.heads[h] + "+cache";
  }
  try {
    // the variant's tree from the pattern's own (no parse): +cache over it, its base, or over every head
    PatternSpec t = p.tree.kind == SpecKind::Cache ? p.tree.parts.at(0) : p.tree;
    if (t.kind == SpecKind::Heads) {
      t.text = other;
      for (auto& h : t.parts) h = cache_of(h);
    } else if (p.tree.kind != SpecKind::Cache) {
      t = cache_of(t);
    }
    const Pattern q = make_pattern(t, p.n);
    CutRankParams cp;
    cp.seed = seed;
    cp.method = CutRankMethod::Flow;
    cp.cuts = r.cuts;
    cp.mem_limit = mem_limit;
    const auto rq = cut_rank_profile(q, cp);
    return RankContrast{other, rq.max_cut_rank, rq.argmax_cut, rq.max_cache};
  } catch (const UsageError&) {
    return std::nullopt;  // no cache-efficient variant of this spec (e.g. dense at this n)
  }
}

std::size_t full_rank_cuts(const CutRankProfile& r, pos_t n) {
  std::size_t full = 0;
  const auto& ranks = r.flow_done ? r.flow : r.numeric;
  for (std::size_t c = 0; c < r.cuts.size(); ++c)
    if (ranks[c] == std::min<pos_t>(r.cuts[c], n - r.cuts[c])) ++full;
  return full;
}

std::string rank_finding(const CutRankProfile& r, pos_t n) {
  const std::size_t full = full_rank_cuts(r, n);
  if (full == r.cuts.size())
    return "full rank on every cut computed: r(K) = min(K, n-K) (information crosses every cut unimpeded)";
  return "max r(K) = " + std::to_string(r.max_cut_rank) + " (at K = " + std::to_string(r.argmax_cut) +
         ") with max cache " + std::to_string(r.max_cache) + "; bounded by " +
         std::to_string(r.a_diagonal ? 1 : 2) + " |C_K|; full rank on " + std::to_string(full) + " of " +
         std::to_string(r.cuts.size()) + " cuts";
}

std::string rank_weights_note(const CutRankProfile& r) {
  if (!r.generic_weights)
    return "weights from the .mtx files (not generic): numeric ranks may legitimately be below the flow "
           "ranks";
  if (r.numeric_method == "exact")
    return "seeded random weights over GF(2^61-1): generic, so numeric rank = Menger flow except with the "
           "probability bound below, and never above it";
  return "seeded random weights (weights.hpp random_weights): generic, so numeric rank = Menger flow";
}

ojson dyadic(const DyadicRanks& d) {
  ojson a = ojson::array();
  for (std::size_t l = 0; l < d.block_size.size(); ++l)
    a.push_back({{"block_size", d.block_size[l]}, {"blocks", d.blocks[l]}, {"max_rank", d.max_rank[l]}});
  return a;
}

ojson cut_ranks(const Pattern& p, const CutRankProfile& r, const std::optional<RankContrast>& contrast,
                const DyadicRanks* dyadic_blocks) {
  ojson j;
  j["pattern"] = p.spec;
  j["n"] = p.n;
  j["cut_indexing"] = "cut K separates positions 1..K from K+1..n; lists are parallel to 'cuts'";
  j["cuts"] = r.cuts;
  j["numeric_method"] = r.numeric_done ? ojson(r.numeric_method) : ojson(nullptr);
  j["cut_rank_numeric"] = r.numeric_done ? ojson(r.numeric) : ojson(nullptr);
  j["cut_rank_flow"] = r.flow_done ? ojson(r.flow) : ojson(nullptr);
  j["cache_at_cut"] = r.cache_at_cut;
  j["max_cut_rank"] = r.max_cut_rank;
  j["max_cut_rank_at"] = r.argmax_cut;
  j["max_cache"] = r.max_cache;
  j["full_rank_cuts"] = full_rank_cuts(r, p.n);
  j["agree"] = r.agree;
  ojson dis = ojson::array();
  for (std::size_t c = 0; c < r.cuts.size(); ++c)
    if (r.numeric_done && r.flow_done && r.numeric[c] != r.flow[c])
      dis.push_back({{"cut", r.cuts[c]}, {"numeric", r.numeric[c]}, {"flow", r.flow[c]}});
  j["disagreements"] = std::move(dis);
  // a floating-point tolerance exists only where a floating-point rank ran; the rule names how the numeric
  // ranks were decided (null where none ran)
  const bool float_rank = r.numeric_done && r.numeric_method != "exact";
  j["tolerance"] = float_rank ? ojson(r.tolerance) : ojson(nullptr);
  j["tolerance_rule"] = r.numeric_done ? ojson(r.tolerance_rule) : ojson(nullptr);
  if (r.numeric_done && r.numeric_method == "exact") {
    j["numeric_field"] = "GF(2^61-1)";
    j["failure_probability_bound"] = r.failure_bound;
  }
  if (r.numeric_done && r.numeric_method != "exact") {
    auto val = [](double v) { return v >= 0 ? ojson(v) : ojson(nullptr); };
    j["pivot_gap"] = {
        {"smallest_kept", val(r.smallest_kept)},
        {"largest_dropped", val(r.largest_dropped)},
        {"ratio", r.smallest_kept > 0 && r.largest_dropped > 0 ? ojson(r.smallest_kept / r.largest_dropped)
                                                               : ojson(nullptr)}};
  }
  j["numeric_above_flow"] = r.numeric_above_flow;
  j["weights"] = r.generic_weights ? "random" : "file";
  j["weights_note"] = rank_weights_note(r);
  j["cache_bound"] = {{"factor", r.a_diagonal ? 1 : 2},
                      {"holds", r.bound_violations.empty()},
                      {"violations", r.bound_violations}};
  if (!r.sketch_columns.empty()) j["sketch_columns"] = r.sketch_columns;
  if (r.flow_done)
    j["flow_stats"] = {{"augmentations", r.flow_stats.augmentations},
                       {"phases", r.flow_stats.phases},
                       {"cancelled", r.flow_stats.cancelled}};
  j["finding"] = rank_finding(r, p.n);
  if (contrast)
    j["contrast"] = {{"pattern", contrast->pattern},
                     {"max_cut_rank", contrast->max_cut_rank},
                     {"max_cut_rank_at", contrast->max_cut_rank_at},
                     {"max_cache", contrast->max_cache},
                     {"method", "flow"}};
  else
    j["contrast"] = nullptr;
  if (dyadic_blocks) j["dyadic_blocks"] = dyadic(*dyadic_blocks);
  return j;
}

}  // namespace mixgraph::json
