// JSON of the decode state of log-linear attention (result_json.hpp, decode_state).
#include "mixgraph/analysis/result_json.hpp"
#include "mixgraph/hierarchical.hpp"

namespace mixgraph::json {

bool is_loglinear(const Pattern& p) {
  return p.spec == "loglinear";
}

ojson decode_state(std::uint64_t n) {
  const auto s = loglinear_decode_state(n);
  ojson j;
  j["model"] =
      "log-linear attention (Guo et al., Log-Linear Attention, Sec. 3): one state per Fenwick bucket";
  j["levels"] = s.levels;
  j["max_states"] = s.max_states;
  j["max_states_position"] = s.max_states_position;
  j["max_kept_states"] = s.max_kept_states;
  j["total_states"] = s.total_states;
  j["state_shape"] = "d_k x d_v per head";
  j["note"] =
      "decode cost and cache are the mask's, i.e. attention's (positions read and kept); a "
      "log-linear decoder reads and keeps these states instead";
  return j;
}

}  // namespace mixgraph::json
