// The JSON document of an analysis: header, then body (document.hpp).
#include "mixgraph/analysis/document.hpp"

#include "mixgraph/build_info.hpp"

namespace mixgraph::analysis {

ojson Document::json(const std::string& format) const {
  ojson j;
  j["schema"] = "mixgraph." + schema + "/1";
  j["mixgraph_version"] = mixgraph::version();
  j["command"] = command;
  nlohmann::json params = parameters;
  params["format"] = format;
  j["parameters"] = params;
  for (auto it = body.begin(); it != body.end(); ++it) j[it.key()] = it.value();
  return j;
}

}  // namespace mixgraph::analysis
