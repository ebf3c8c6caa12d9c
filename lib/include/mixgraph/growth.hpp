#pragma once
// Growth-class fits over a sweep of n.
#include <string>
#include <vector>

namespace mixgraph {

struct GrowthFit {
  std::string best;     ///< "O(1)", "O(log n)", "O(sqrt n)", "O(n)", "O(n log n)", "O(n^1.5)", "O(n^2)"
  double scale = 0;     ///< c in y ~ c g(n)
  double residual = 0;  ///< relative residual of the best: sqrt(mean(((y - c g) / y)^2))
  std::string runner_up;
  double runner_up_residual = 0;
  bool ambiguous = false;                           ///< runner-up residual within 10% of the best
  std::vector<std::pair<std::string, double>> all;  ///< every candidate with its residual, best first
};

/// Candidate classes, in order.
const std::vector<std::string>& growth_classes();
/// Value of class `cls` at n (log is natural; only ratios matter).
double growth_value(const std::string& cls, double n);

/// Fit y(n) against each candidate with one scale factor each, by relative least squares (every point
/// weighted by 1/y so small and large n count alike): c = sum(g/y) / sum(g^2/y^2). Points with y <= 0 are
/// skipped; with fewer than two points left the result is O(1) with residual 0 and `ambiguous` set.
/// `candidates` empty: all of growth_classes().
GrowthFit fit_growth(const std::vector<double>& n, const std::vector<double>& y,
                     const std::vector<std::string>& candidates = {});

}  // namespace mixgraph
