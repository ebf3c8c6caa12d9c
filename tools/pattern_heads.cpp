#include "pattern_heads.hpp"

#include <ostream>

#include "output.hpp"

namespace mixgraph::cli {

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
