// JSON printed as every mixgraph document is (result_json.hpp): arrays of scalars stay on one line.
#include <algorithm>
#include <ostream>

#include "mixgraph/analysis/result_json.hpp"

namespace mixgraph::json {
namespace {

bool scalar_array(const ojson& j) {
  return j.is_array() && std::all_of(j.begin(), j.end(), [](const ojson& e) { return e.is_primitive(); });
}
void print_rec(std::ostream& os, const ojson& j, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (j.is_object()) {
    if (j.empty()) {
      os << "{}";
      return;
    }
    os << "{\n";
    std::size_t k = 0;
    for (auto it = j.begin(); it != j.end(); ++it, ++k) {
      os << pad << "  " << ojson(it.key()).dump() << ": ";
      print_rec(os, it.value(), indent + 2);
      if (k + 1 < j.size()) os << ",";
      os << "\n";
    }
    os << pad << "}";
  } else if (j.is_array() && !scalar_array(j)) {
    os << "[\n";
    for (std::size_t k = 0; k < j.size(); ++k) {
      os << pad << "  ";
      print_rec(os, j[k], indent + 2);
      if (k + 1 < j.size()) os << ",";
      os << "\n";
    }
    os << pad << "]";
  } else {
    os << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

}  // namespace

void print(std::ostream& os, const ojson& j) {
  print_rec(os, j, 0);
  os << "\n";
}

}  // namespace mixgraph::json
