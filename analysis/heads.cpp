// Per-head results of heads:P1;P2;... patterns (heads.hpp).
#include "mixgraph/analysis/heads.hpp"

#include <algorithm>

#include "mixgraph/cancel.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/induced.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph::analysis {

nlohmann::ordered_json head_pattern_rows(const Pattern& p, int threads) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < p.heads.size(); ++k) {
    const std::string& spec = p.heads[k];
    const Pattern h = make_pattern(p.tree.parts.at(k), p.n);  // the head's tree: no parse
    const auto s = cache_profile(h, ProfileOptions{threads, false});
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
    const Pattern h = make_pattern_within(tree, p.n, mem_limit, "head " + spec);
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

void check_heads_sum_memory(const Pattern& p, std::uint64_t mem_limit) {
  if (p.n <= 1024)  // the dense sum and its transposed copy
    check_memory(8ull * p.n * p.n * 2, mem_limit, "dense sum of the heads at n = " + std::to_string(p.n));
}

HeadsSumRanks heads_sum_ranks(const Pattern& p, const std::vector<pos_t>& cuts, std::uint64_t seed,
                              double tol, std::uint64_t mem_limit) {
  HeadsSumRanks out;
  out.specs = p.heads;
  out.tolerance = tol > 0 ? tol : default_rank_tolerance(p.n);
  const bool dense = p.n <= 1024;
  check_heads_sum_memory(p, mem_limit);
  Eigen::MatrixXd sum;
  for (std::size_t h = 0; h < p.heads.size(); ++h) {
    const Pattern q = make_pattern(p.tree.parts.at(h), p.n);  // the head's tree: no parse
    out.all_b_empty = out.all_b_empty && q.b_empty();
    CutRankParams cp;
    cp.seed = seed + h;
    cp.method = CutRankMethod::Flow;
    cp.cuts = cuts;
    cp.mem_limit = mem_limit;
    out.flow.push_back(cut_rank_profile(q, cp).flow);
    if (dense) {
      const Eigen::MatrixXd mt = dense_operator_transposed(induced_weights(q, seed + h).w);
      if (h == 0)
        sum = mt;
      else
        sum += mt;
    }
  }
  const auto* cancel = cancel_flag();  // a stop between cuts (a cut's QR is a few ms at n <= 1024)
  for (std::size_t c = 0; c < cuts.size(); ++c) {
    throw_if_cancelled(cancel);
    std::uint64_t s = 0;
    for (const auto& f : out.flow) s += f[c];
    out.sum_bound.push_back(
        static_cast<std::uint32_t>(std::min<std::uint64_t>(s, std::min<pos_t>(cuts[c], p.n - cuts[c]))));
    if (dense) {
      const pos_t K = cuts[c];
      // sum(j, i) = M(i, j): the block M[K+1..n, 1..K] is rows 0..K-1, columns K..n-1 of the transpose
      out.sum_numeric.push_back(numeric_rank_colpiv(sum.block(0, K, K, p.n - K).transpose(), out.tolerance));
    }
  }
  return out;
}

std::string heads_sum_note(const HeadsSumRanks& h) {
  return h.all_b_empty
             ? "every head has B = 0: sum_h A_h with independent generic weights is generic on the union's "
               "reads, so the sum's rank equals the union's flow rank"
             : "heads with B: the sum's rank is at most sum_h r_h(K) (and min(K, n-K)); it can exceed the "
               "union's flow rank (each head keeps its own state): two ssm heads give 2 against 1)";
}

nlohmann::ordered_json heads_sum_json(const HeadsSumRanks& h) {
  using ojson = nlohmann::ordered_json;
  ojson j;
  j["per_head"] = ojson::array();
  for (std::size_t k = 0; k < h.specs.size(); ++k) {
    const auto mx = h.flow[k].empty() ? 0u : *std::max_element(h.flow[k].begin(), h.flow[k].end());
    j["per_head"].push_back({{"pattern", h.specs[k]}, {"cut_rank_flow", h.flow[k]}, {"max_cut_rank", mx}});
  }
  j["sum_operator"] = "sum_h (I - B_h)^{-1} A_h, head h with the seeded weights of seed + h";
  j["sum_rank_numeric"] = h.sum_numeric.empty() ? ojson(nullptr) : ojson(h.sum_numeric);
  j["sum_rank_bound"] = h.sum_bound;
  j["tolerance"] = h.tolerance;
  j["all_b_empty"] = h.all_b_empty;
  j["note"] = heads_sum_note(h);
  return j;
}

}  // namespace mixgraph::analysis
