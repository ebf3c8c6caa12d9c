// The header every JSON document starts with (result_json.hpp).
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/build_info.hpp"

namespace mixgraph::json {

ojson header(const std::string& command, int schema_version, const ojson& params) {
  ojson j;
  j["schema"] = "mixgraph." + command + "/" + std::to_string(schema_version);
  j["mixgraph_version"] = mixgraph::version();
  j["command"] = command;
  j["parameters"] = params;
  return j;
}

}  // namespace mixgraph::json
