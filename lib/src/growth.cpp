#include "mixgraph/growth.hpp"

#include <algorithm>
#include <cmath>

#include "mixgraph/error.hpp"

namespace mixgraph {

const std::vector<std::string>& growth_classes() {
  static const std::vector<std::string> c = {"O(1)",       "O(log n)", "O(sqrt n)", "O(n)",
                                             "O(n log n)", "O(n^1.5)", "O(n^2)"};
  return c;
}

double growth_value(const std::string& cls, double n) {
  const double lg = std::log(std::max(n, 2.0));
  if (cls == "O(1)") return 1.0;
  if (cls == "O(log n)") return lg;
  if (cls == "O(sqrt n)") return std::sqrt(n);
  if (cls == "O(n)") return n;
  if (cls == "O(n log n)") return n * lg;
  if (cls == "O(n^1.5)") return n * std::sqrt(n);
  if (cls == "O(n^2)") return n * n;
  throw UsageError("unknown growth class '" + cls + "'");
}

GrowthFit fit_growth(const std::vector<double>& n, const std::vector<double>& y,
                     const std::vector<std::string>& candidates_in) {
  const auto& candidates = candidates_in.empty() ? growth_classes() : candidates_in;
  std::vector<double> xs, ys;
  for (std::size_t i = 0; i < n.size() && i < y.size(); ++i)
    if (y[i] > 0) {
      xs.push_back(n[i]);
      ys.push_back(y[i]);
    }
  GrowthFit fit;
  if (xs.size() < 2) {
    fit.best = "O(1)";
    fit.scale = ys.empty() ? 0 : ys[0];
    fit.ambiguous = true;
    return fit;
  }
  for (const auto& cls : candidates) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double g = growth_value(cls, xs[i]) / ys[i];
      num += g;
      den += g * g;
    }
    const double c = num / den;
    double ss = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double r = (ys[i] - c * growth_value(cls, xs[i])) / ys[i];
      ss += r * r;
    }
    fit.all.emplace_back(cls, std::sqrt(ss / static_cast<double>(xs.size())));
    if (fit.all.size() == 1 || fit.all.back().second < fit.residual) {
      fit.residual = fit.all.back().second;
      fit.best = cls;
      fit.scale = c;
    }
  }
  std::stable_sort(fit.all.begin(), fit.all.end(), [](auto& a, auto& b) { return a.second < b.second; });
  if (fit.all.size() > 1) {
    fit.runner_up = fit.all[1].first;
    fit.runner_up_residual = fit.all[1].second;
    fit.ambiguous = fit.runner_up_residual <= 1.10 * fit.residual + 1e-12;
  }
  return fit;
}

}  // namespace mixgraph
