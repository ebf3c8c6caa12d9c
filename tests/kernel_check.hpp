#pragma once
// Shared by the GPU kernel tests (gated scan, shift dots, entry dots): seeded inputs and the relative error
// of a result against its reference.
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace mixgraph::test {

/// N values uniform in [-1, 1) from mt19937(seed).
inline std::vector<double> random_values(std::size_t N, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(N);
  for (double& e : v) e = u(rng);
  return v;
}

/// ||got - ref|| / ||ref|| (2-norms); infinite when got holds a non-finite value.
inline double relerr(const std::vector<double>& ref, const std::vector<double>& got) {
  double e = 0, s = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) {
    if (!std::isfinite(got[k])) return INFINITY;
    e += (ref[k] - got[k]) * (ref[k] - got[k]);
    s += ref[k] * ref[k];
  }
  return std::sqrt(e / s);
}

}  // namespace mixgraph::test
