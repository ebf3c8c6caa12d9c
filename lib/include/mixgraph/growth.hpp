#pragma once
// Growth-class fits over a sweep of n.
#include <cstddef>
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

/// A free-exponent fit y(n) ~ c n^a (ln n)^b + d n^e: the exponent a is fitted (not picked from a menu),
/// the log factor b in {0, 1} is chosen by the data, and d n^e is one lower-order term (e = 1 or 0, the
/// largest at least 1/4 below n^a; for b = 1 also e = a's integer part when <= a) so that exact counts
/// such as (3/4) n^{4/3} + O(n) fit their leading exponent. Least squares relative to y (every point
/// weighted by 1/y); a on a 0.0005 grid in [0, 3]; c, d by linear least squares for each a.
struct PowerFit {
  bool ok = false;             ///< false with fewer than 4 points with y > 0 (then nothing is decided)
  std::size_t points = 0;      ///< points used
  double exponent = 0;         ///< a
  double lo = 0, hi = 0;       ///< 95% interval for a: the profile F-test interval, widened to >= +-0.01
  int log_power = 0;           ///< b (0 or 1)
  bool log_decided = false;    ///< the other b is rejected at 95% (F-test on the residual sums)
  double lower_exponent = -1;  ///< e of the lower-order term (-1: none)
  double relative_rms = 0;     ///< sqrt(mean(((y - fit) / y)^2)) at the best a
  double other_log_rms = 0;    ///< the same for the best fit with the other b
  /// the class the data decide: exactly one simple exponent p/q (q <= 4) in [lo, hi], b decided, and not
  /// above `max_exponent` when given: "O(n^{4/3})", "O(n log n)", "O(sqrt n)", ... Empty when undecided.
  std::string decided;
  std::string label;  ///< `decided`, or else "~ n^a [lo, hi]" (with "log n" when b = 1 is decided)
};

/// Free-exponent fit (see PowerFit). `max_exponent` >= 0: a known upper bound (e.g. 1 for a cache, which
/// can never exceed n): the exponent is fitted in [0, max_exponent] only, no class above it is decided,
/// and the interval is clipped to it.
PowerFit fit_power(const std::vector<double>& n, const std::vector<double>& y, double max_exponent = -1);

}  // namespace mixgraph
