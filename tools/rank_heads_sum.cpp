#include "rank_heads_sum.hpp"

#include <algorithm>
#include <ostream>

#include "mixgraph/memory.hpp"

namespace mixgraph::cli {

HeadsSumRanks heads_sum_ranks(const Pattern& p, const std::vector<pos_t>& cuts, std::uint64_t seed,
                              double tol, std::uint64_t mem_limit) {
  HeadsSumRanks out;
  out.specs = p.heads;
  out.tolerance = tol > 0 ? tol : default_rank_tolerance(p.n);
  const bool dense = p.n <= 1024;
  if (dense)
    check_memory(8ull * p.n * p.n * 2, mem_limit, "dense sum of the heads at n = " + std::to_string(p.n));
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
  for (std::size_t c = 0; c < cuts.size(); ++c) {
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

namespace {
std::string note(const HeadsSumRanks& h) {
  return h.all_b_empty
             ? "every head has B = 0: sum_h A_h with independent generic weights is generic on the union's "
               "reads, so the sum's rank equals the union's flow rank"
             : "heads with B: the sum's rank is at most sum_h r_h(K) (and min(K, n-K)); it can exceed the "
               "union's flow rank (each head keeps its own state): two ssm heads give 2 against 1)";
}
}  // namespace

ojson heads_sum_json(const HeadsSumRanks& h) {
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
  j["note"] = note(h);
  return j;
}

void print_heads_sum(std::ostream& os, const HeadsSumRanks& h, const std::vector<pos_t>& cuts,
                     const std::vector<std::uint32_t>& union_flow) {
  std::vector<std::string> cols = {"K"};
  for (std::size_t k = 0; k < h.specs.size(); ++k) cols.push_back("head " + std::to_string(k + 1) + " flow");
  cols.insert(cols.end(), {"union flow", "sum numeric", "sum bound"});
  Table t(cols);
  for (std::size_t c = 0; c < cuts.size() && c < 40; ++c) {
    std::vector<std::string> row = {std::to_string(cuts[c])};
    for (const auto& f : h.flow) row.push_back(std::to_string(f[c]));
    row.push_back(c < union_flow.size() ? std::to_string(union_flow[c]) : "-");
    row.push_back(c < h.sum_numeric.size() ? std::to_string(h.sum_numeric[c]) : "-");
    row.push_back(std::to_string(h.sum_bound[c]));
    t.add(row);
  }
  os << "\nheads (";
  for (std::size_t k = 0; k < h.specs.size(); ++k) os << (k ? "; " : "") << k + 1 << ": " << h.specs[k];
  os << "): the rows above are the union; the sum of the heads' operators:\n";
  t.print_text(os);
  if (cuts.size() > 40) os << "(first 40 of " << cuts.size() << " cuts; --format json lists all)\n";
  os << "sum of heads: " << note(h) << "\n";
}

}  // namespace mixgraph::cli
