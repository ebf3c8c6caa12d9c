#pragma once
// `mixgraph rank -p heads:P1;P2;...`: each head's cut ranks and the numeric cut ranks of the sum of the
// heads' operators, sum_h (I - B_h)^{-1} A_h with independent seeded weights per head (docs/math.md §5).
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/rank.hpp"
#include "output.hpp"

namespace mixgraph::cli {

struct HeadsSumRanks {
  std::vector<std::string> specs;
  std::vector<std::vector<std::uint32_t>> flow;  ///< per head, parallel to the cuts
  std::vector<std::uint32_t> sum_numeric;        ///< rank of the sum's cut blocks (empty above n = 1024)
  std::vector<std::uint32_t> sum_bound;          ///< min(sum_h flow_h(K), K, n - K)
  bool all_b_empty = true;                       ///< every head has B = 0: the sum is generic on the union
  double tolerance = 0.0;
};

/// Per-head flow ranks on `cuts` and, for n <= 1024, the dense numeric ranks of the sum (head h: seed + h).
HeadsSumRanks heads_sum_ranks(const Pattern& p, const std::vector<pos_t>& cuts, std::uint64_t seed,
                              double tol, std::uint64_t mem_limit);

ojson heads_sum_json(const HeadsSumRanks& h);
void print_heads_sum(std::ostream& os, const HeadsSumRanks& h, const std::vector<pos_t>& cuts,
                     const std::vector<std::uint32_t>& union_flow);

}  // namespace mixgraph::cli
