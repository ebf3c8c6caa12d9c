// SolveCancelScope (solve_cancel.hpp): a CPU solve whose flag is set stops before writing rows and leaves
// nothing running; with the flag clear (or no scope) it gives the bits of a plain solve. Reference: the
// same solve_mixer call without a scope, and Y's untouched NaN sentinel rows.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "mixgraph/solve.hpp"
#include "mixgraph/solve_cancel.hpp"

using namespace mixgraph;

namespace {

struct CancelCase {
  std::string spec;
  std::size_t d;
  int heads, threads;
};

// every kernel: fixed-width tiles (one thread, and the pipelined pair), one-head tiles, multi-head tiles,
// CSR rows
const CancelCase kCancelCases[] = {{"pow2", 64, 1, 1}, {"pow2", 64, 1, 2},      {"pow2", 40, 1, 1},
                                   {"pow2", 6, 2, 2},  {"sq1+cache", 64, 1, 1}, {"sq1+cache", 6, 6, 1}};

std::vector<double> run(const CancelCase& c, const MixerWeights<double>& w, const std::vector<double>& x,
                        const std::atomic<bool>* flag, std::string* kernel = nullptr) {
  std::vector<double> y(x.size(), std::numeric_limits<double>::quiet_NaN());
  if (flag) {
    const SolveCancelScope scope(flag);
    EXPECT_EQ(solve_cancel_flag(), flag);
    auto info = solve_mixer(w, x.data(), y.data(), c.d, c.threads);
    if (kernel) *kernel = info.kernel;
  } else {
    auto info = solve_mixer(w, x.data(), y.data(), c.d, c.threads);
    if (kernel) *kernel = info.kernel;
  }
  return y;
}

TEST(SolveCancel, SetFlagStopsEveryKernelClearFlagChangesNothing) {
  const pos_t n = 20000;
  std::set<std::string> kernels;
  for (const auto& c : kCancelCases) {
    SCOPED_TRACE(c.spec + " d = " + std::to_string(c.d) + " threads = " + std::to_string(c.threads));
    const Pattern p = make_pattern(c.spec, n);
    const auto w = make_mixer_weights<double>(p, c.heads, 1);
    std::vector<double> x(std::size_t(n) * c.d);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = std::sin(0.001 * double(k));
    std::string kernel;
    const auto plain = run(c, w, x, nullptr, &kernel);
    kernels.insert(kernel);
    for (double v : plain) ASSERT_FALSE(std::isnan(v));
    const std::atomic<bool> clear{false}, set{true};
    const auto with_clear = run(c, w, x, &clear);
    EXPECT_EQ(0, std::memcmp(plain.data(), with_clear.data(), plain.size() * sizeof(double)));
    // set before the call: every tile stops at its first look (row 0), so no row is written
    const auto stopped = run(c, w, x, &set);
    std::size_t written = 0;
    for (double v : stopped) written += !std::isnan(v);
    EXPECT_EQ(written, 0u);
  }
  EXPECT_EQ(solve_cancel_flag(), nullptr);  // scopes restore the previous flag
  EXPECT_GE(kernels.size(), 3u);
}

TEST(SolveCancel, ScopesNest) {
  const std::atomic<bool> a{false}, b{true};
  {
    const SolveCancelScope outer(&a);
    {
      const SolveCancelScope inner(&b);
      EXPECT_EQ(solve_cancel_flag(), &b);
    }
    EXPECT_EQ(solve_cancel_flag(), &a);
  }
  EXPECT_EQ(solve_cancel_flag(), nullptr);
}

}  // namespace
