#pragma once
// `mixgraph rank -p heads:P1;P2;...`: each head's cut ranks and the numeric cut ranks of the sum of the
// heads' operators, sum_h (I - B_h)^{-1} A_h with independent seeded weights per head (docs/math.md §5).
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/analysis/heads.hpp"
#include "mixgraph/rank.hpp"
#include "output.hpp"

namespace mixgraph::cli {

using analysis::heads_sum_json;  // mixgraph/analysis/heads.hpp
using analysis::heads_sum_ranks;
using analysis::HeadsSumRanks;

void print_heads_sum(std::ostream& os, const HeadsSumRanks& h, const std::vector<pos_t>& cuts,
                     const std::vector<std::uint32_t>& union_flow);

}  // namespace mixgraph::cli
