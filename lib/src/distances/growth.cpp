#include "mixgraph/growth.hpp"

#include <algorithm>
#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "mixgraph/eigen_dense.hpp"
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

namespace mixgraph {

namespace {
struct Trial {
  double rss = INFINITY;
  double e = -1;
};

/// Relative least squares of y ~ c n^a (ln n)^b [+ d n^e] for fixed a, b: the residual sum and e used.
Trial trial(const std::vector<double>& x, const std::vector<double>& y, double a, int b) {
  // lower-order term: for b = 0 the largest e in {1, 0} with e <= a - 1/4; for b = 1 the largest e <= a
  double e = -1;
  for (double cand : {1.0, 0.0})
    if ((b == 0 && cand <= a - 0.25) || (b == 1 && cand <= a)) {
      e = cand;
      break;
    }
  const std::size_t m = x.size();
  Eigen::MatrixXd A(static_cast<Eigen::Index>(m), e >= 0 ? 2 : 1);
  Eigen::VectorXd rhs = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(m));
  for (std::size_t i = 0; i < m; ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    A(r, 0) = std::pow(x[i], a) * (b ? std::log(x[i]) : 1.0) / y[i];
    if (e >= 0) A(r, 1) = std::pow(x[i], e) / y[i];
  }
  const Eigen::VectorXd c = A.colPivHouseholderQr().solve(rhs);
  Trial t;
  t.rss = (rhs - A * c).squaredNorm();
  t.e = e;
  return t;
}

double f_quantile_1(std::size_t dof) {  // F(0.95; 1, dof) = t(0.975; dof)^2
  const boost::math::students_t dist(static_cast<double>(dof));
  const double t = boost::math::quantile(dist, 0.975);
  return t * t;
}

double f_quantile(std::size_t d1, std::size_t d2) {
  const boost::math::fisher_f dist(static_cast<double>(d1), static_cast<double>(d2));
  return boost::math::quantile(dist, 0.95);
}

std::string fraction_label(int p, int q, int b) {
  std::string base;
  if (p == 0)
    base = "1";
  else if (q == 1)
    base = p == 1 ? "n" : "n^" + std::to_string(p);
  else if (p == 1 && q == 2)
    base = "sqrt n";
  else
    base = "n^{" + std::to_string(p) + "/" + std::to_string(q) + "}";
  if (b == 1) base = base == "1" ? "log n" : base + " log n";
  return "O(" + base + ")";
}
}  // namespace

PowerFit fit_power(const std::vector<double>& n, const std::vector<double>& y, double max_exponent) {
  PowerFit f;
  std::vector<double> xs, ys;
  for (std::size_t i = 0; i < n.size() && i < y.size(); ++i)
    if (y[i] > 0 && n[i] >= 2) {
      xs.push_back(n[i]);
      ys.push_back(y[i]);
    }
  f.points = xs.size();
  if (xs.size() < 4) {
    f.label = "too few points to fit (" + std::to_string(xs.size()) + ")";
    return f;
  }
  if (*std::max_element(ys.begin(), ys.end()) == *std::min_element(ys.begin(), ys.end())) {
    f.ok = f.log_decided = true;  // constant: exactly O(1)
    f.hi = 0;
    f.decided = f.label = "O(1)";
    return f;
  }
  constexpr double kStep = 0.0005, kMaxA = 3.0, kMinHalfWidth = 0.01;
  // a known bound restricts the model itself: no exponent above it is fitted (so the exponent and its
  // interval never pass the bound, e.g. a cache that can never exceed n)
  const double max_a = max_exponent >= 0 ? std::min(kMaxA, max_exponent) : kMaxA;
  const auto steps = static_cast<int>(std::floor(max_a / kStep + 1e-9));
  std::vector<Trial> best(2);
  std::vector<double> best_a(2, 0.0);
  std::vector<std::vector<double>> rss(2, std::vector<double>(static_cast<std::size_t>(steps) + 1));
  for (int b = 0; b < 2; ++b)
    for (int s = 0; s <= steps; ++s) {
      const double a = s * kStep;
      const Trial t = trial(xs, ys, a, b);
      rss[b][static_cast<std::size_t>(s)] = t.rss;
      if (t.rss < best[b].rss) best[b] = t, best_a[b] = a;
    }
  const std::size_t m = xs.size();
  // b = 1 only when it fits significantly better than the simpler b = 0 (an F-test at 95% on the residual
  // sums); b is decided when the other one is rejected the same way (or b = 0 fits to rounding)
  const double exact = 1e-24 * static_cast<double>(m);
  const std::size_t params = 3;  // a, c, d (one fewer when there is no lower-order term: conservative)
  const std::size_t dof = m > params ? m - params : 1;
  const double inflate = 1.0 + f_quantile(1, dof) / static_cast<double>(dof);
  const int b = best[0].rss > exact && best[0].rss > std::max(best[1].rss, 1e-300) * inflate ? 1 : 0;
  const double floor_rss = std::max(best[b].rss, 1e-300);
  f.log_decided = b == 1 || best[0].rss <= exact || best[1].rss > floor_rss * inflate;
  f.ok = true;
  f.exponent = best_a[b];
  f.log_power = b;
  f.lower_exponent = best[b].e;
  f.relative_rms = std::sqrt(best[b].rss / static_cast<double>(m));
  f.other_log_rms = std::sqrt(best[1 - b].rss / static_cast<double>(m));
  const double thr = floor_rss * (1.0 + f_quantile_1(dof) / static_cast<double>(dof));
  f.lo = f.hi = f.exponent;
  for (int s = 0; s <= steps; ++s)
    if (rss[b][static_cast<std::size_t>(s)] <= thr) {
      f.lo = std::min(f.lo, s * kStep);
      f.hi = std::max(f.hi, s * kStep);
    }
  f.lo = std::min(f.lo, f.exponent - kMinHalfWidth);
  f.hi = std::max(f.hi, f.exponent + kMinHalfWidth);
  f.lo = std::max(f.lo, 0.0);
  if (max_exponent >= 0) f.hi = std::min(f.hi, max_exponent);
  // simple exponents p/q (q <= 4) inside the interval
  std::vector<std::pair<int, int>> inside;
  for (int q = 1; q <= 4; ++q)
    for (int p = 0; p <= 4 * q; ++p) {
      if (std::gcd(p, q) != 1 && !(p == 0 && q == 1)) continue;
      const double v = static_cast<double>(p) / q;
      if (v >= f.lo - 1e-12 && v <= f.hi + 1e-12) inside.emplace_back(p, q);
    }
  // never a class above the known bound: v <= max_exponent, and at v = max_exponent no log factor
  bool within = true;
  if (max_exponent >= 0 && inside.size() == 1) {
    const double v = static_cast<double>(inside[0].first) / inside[0].second;
    within = v < max_exponent - 1e-12 || (v <= max_exponent + 1e-12 && b == 0);
  }
  if (inside.size() == 1 && f.log_decided && within)
    f.decided = fraction_label(inside[0].first, inside[0].second, b);
  char buf[96];
  std::snprintf(buf, sizeof buf, "~ n^%.3f%s [%.3f, %.3f]", f.exponent,
                b == 1 && f.log_decided ? " log n" : "", f.lo, f.hi);
  f.label = f.decided.empty() ? std::string(buf) : f.decided;
  if (f.decided.empty() && inside.size() == 1 && within) {  // the exponent is decided, the log factor is not
    const auto fl = fraction_label(inside[0].first, inside[0].second, 0);
    f.label += " (" + fl.substr(2, fl.size() - 3) + " in the interval" +
               (f.log_decided ? "" : "; a log factor is not excluded") + ")";
  }
  return f;
}

}  // namespace mixgraph
