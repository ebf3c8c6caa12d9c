// Free-exponent growth fits: synthetic data of known exponent (the reference is the formula the data were
// made from), a class printed only when the data decide it, never above a known bound, and
// `pattern --sweep` backing every label with its statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "mixgraph/growth.hpp"
#include "mixgraph/pattern.hpp"

using namespace mixgraph;

namespace {
std::vector<double> powers(int lo, int hi) {
  std::vector<double> x;
  for (int e = lo; e <= hi; ++e) x.push_back(std::ldexp(1.0, e));
  return x;
}
template <class F>
std::vector<double> eval(const std::vector<double>& x, F f) {
  std::vector<double> y;
  for (double n : x) y.push_back(f(n));
  return y;
}
}  // namespace

TEST(GrowthFit, RecoversKnownExponents) {
  const auto x = powers(8, 16);
  // leading term plus a lower-order one, as exact counts have
  const auto a = fit_power(x, eval(x, [](double n) { return 0.75 * std::pow(n, 4.0 / 3) + 0.5 * n; }));
  ASSERT_TRUE(a.ok);
  EXPECT_LE(a.lo, 4.0 / 3);
  EXPECT_GE(a.hi, 4.0 / 3);
  EXPECT_EQ(a.decided, "O(n^{4/3})");
  const auto b = fit_power(x, eval(x, [](double n) { return n * std::log2(n) - n; }));
  EXPECT_EQ(b.decided, "O(n log n)");
  EXPECT_EQ(b.log_power, 1);
  const auto c = fit_power(x, eval(x, [](double n) { return 3 * std::pow(n, 1.7) + 5 * n; }));
  EXPECT_NEAR(c.exponent, 1.7, 0.01);
  EXPECT_TRUE(c.decided.empty()) << c.decided;  // no simple exponent p/q (q <= 4) near 1.7
  EXPECT_NE(c.label.find("n^1.70"), std::string::npos) << c.label;
  EXPECT_EQ(fit_power(x, eval(x, [](double) { return 7.0; })).decided, "O(1)");
  EXPECT_EQ(fit_power(x, eval(x, [](double n) { return 2 * n + 3; })).decided, "O(n)");
}

TEST(GrowthFit, NeverAboveAKnownBoundAndTooFewPoints) {
  const auto x = powers(8, 16);
  const auto y = eval(x, [](double n) { return n * std::log2(n); });
  EXPECT_EQ(fit_power(x, y).decided, "O(n log n)");
  const auto capped = fit_power(x, y, 1.0);
  EXPECT_TRUE(capped.decided.empty()) << capped.decided;
  EXPECT_LE(capped.hi, 1.0);
  const auto few = fit_power({16, 32, 64}, {1, 2, 3});
  EXPECT_FALSE(few.ok);
  EXPECT_TRUE(few.decided.empty());
}

TEST(GrowthFit, SweepOfExprCubeIsFourThirds) {
  if (!expressions_built_in()) GTEST_SKIP() << "built without muParser";
  const auto r = mixgraph::test::run_cli("pattern -p 'expr:k^3+1' --sweep 256..65536 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& f = j["fits"]["total_decode_cost"]["free"];
  const auto lo = f["exponent_interval"][0].get<double>(), hi = f["exponent_interval"][1].get<double>();
  EXPECT_LE(lo, 4.0 / 3);
  EXPECT_GE(hi, 4.0 / 3);
  EXPECT_NE(f["label"].get<std::string>().find("4/3"), std::string::npos) << f["label"];
  EXPECT_NE(j["fits"]["total_decode_cost"]["class"], "O(n log n)");
}

TEST(GrowthFit, SweepLabelsAreBackedAndCacheStaysWithinN) {
  for (const char* spec : {"pow2+cache", "sq1+cache", "window:4", "pow2"}) {
    const auto r =
        mixgraph::test::run_cli(std::string("pattern -p ") + spec + " --sweep 64..16384 --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_GE(j["fits"].size(), 2u) << spec;
    for (const auto& [q, fit] : j["fits"].items()) {  // every fitted quantity, not a fixed list
      const auto& f = fit["free"];
      EXPECT_TRUE(fit.contains("class") && fit.contains("relative_residual") && fit.contains("runner_up"))
          << spec << " " << q;
      for (const char* k : {"label", "decided_class", "exponent", "exponent_interval", "relative_rms",
                            "points", "log_power", "log_decided"})
        EXPECT_TRUE(f.contains(k)) << spec << " " << q << " " << k;
      EXPECT_GE(f["points"].get<int>(), 4);
    }
    // the table's printed classes are the JSON's
    const auto t = mixgraph::test::run_cli(std::string("pattern -p ") + spec + " --sweep 64..16384");
    ASSERT_EQ(t.code, 0) << t.err;
    for (const auto& [q, what] : {std::pair{"total_decode_cost", "growth of total decode cost: "},
                                  std::pair{"max_cache", "growth of max cache:"}}) {
      const auto at = t.out.find(what);
      ASSERT_NE(at, std::string::npos) << spec << t.out;
      const auto line = t.out.substr(at, t.out.find('\n', at) - at);
      EXPECT_NE(line.find(j["fits"][q]["free"]["label"].get<std::string>()), std::string::npos)
          << spec << ": " << line;
      EXPECT_NE(line.find("menu fit " + j["fits"][q]["class"].get<std::string>()), std::string::npos)
          << spec << ": " << line;
    }
    const auto cls = j["fits"]["max_cache"]["class"].get<std::string>();
    EXPECT_TRUE(cls == "O(1)" || cls == "O(log n)" || cls == "O(sqrt n)" || cls == "O(n)") << spec << cls;
    const auto& c = j["fits"]["max_cache"]["free"];
    EXPECT_NE(c["decided_class"], "O(n log n)") << spec;
    EXPECT_LE(c["exponent_interval"][1].get<double>(), 1.0);
  }
}

TEST(GrowthFit, DistanceSweepClassesCarryTheirResiduals) {
  const auto r = mixgraph::test::run_cli("distances -p pow2 --sweep 64..2048 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["sweep"].empty());
  for (const auto& entry : j["sweep"]) {
    ASSERT_TRUE(entry.contains("growth"));
    for (const auto& [q, g] : entry["growth"].items()) {
      EXPECT_TRUE(g.contains("class")) << q;
      ASSERT_TRUE(g.contains("relative_residual")) << q;
      EXPECT_TRUE(g["relative_residual"].is_number()) << q;
    }
  }
}
