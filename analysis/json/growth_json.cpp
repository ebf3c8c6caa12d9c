// JSON of the growth fits behind every `--sweep` label (result_json.hpp), shared by `mixgraph pattern` and
// `mixgraph distances`.
#include "mixgraph/analysis/result_json.hpp"

namespace mixgraph::json {

ojson menu_fit(const GrowthFit& f) {
  ojson all = ojson::object();
  for (auto& [c, r] : f.all) all[c] = r;
  return {{"class", f.best},
          {"scale", f.scale},
          {"relative_residual", f.residual},
          {"runner_up", f.runner_up},
          {"runner_up_residual", f.runner_up_residual},
          {"ambiguous", f.ambiguous},
          {"residuals", all}};
}

ojson power_fit(const PowerFit& f, double bound) {
  auto num = [&](double v) { return f.ok ? ojson(v) : ojson(nullptr); };
  return {{"label", f.label},
          {"decided_class", f.decided.empty() ? ojson(nullptr) : ojson(f.decided)},
          {"exponent", num(f.exponent)},
          {"exponent_interval", f.ok ? ojson::array({f.lo, f.hi}) : ojson(nullptr)},
          {"confidence", 0.95},
          {"log_power", f.log_power},
          {"log_decided", f.log_decided},
          {"lower_order_exponent", f.lower_exponent >= 0 ? ojson(f.lower_exponent) : ojson(nullptr)},
          {"relative_rms", num(f.relative_rms)},
          {"other_log_relative_rms", num(f.other_log_rms)},
          {"points", f.points},
          {"bound_exponent", bound >= 0 ? ojson(bound) : ojson(nullptr)}};
}

}  // namespace mixgraph::json
