#include "rank_heads_sum.hpp"

#include <ostream>

namespace mixgraph::cli {

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
  os << "sum of heads: " << analysis::heads_sum_note(h) << "\n";
}

}  // namespace mixgraph::cli
