// Free-exponent growth fits: synthetic data of known exponent (the reference is the formula the data were
// made from), a class printed only when the data decide it, never above a known bound, and
// `pattern --sweep` backing every label with its statistics.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

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
  // data growing a little faster than the bound allows (as a lower-order term can make them look): the
  // exponent is fitted within the bound, the interval ordered
  const auto over = fit_power(x, eval(x, [](double n) { return std::pow(n, 1.05); }), 1.0);
  EXPECT_LE(over.exponent, 1.0);
  EXPECT_LE(over.lo, over.exponent);
  EXPECT_LE(over.exponent, over.hi);
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
  // its max cache is <= n: neither the exponent nor its interval passes 1, and the interval is ordered
  const auto& c = j["fits"]["max_cache"]["free"];
  EXPECT_LE(c["exponent"].get<double>(), 1.0) << c.dump();
  EXPECT_LE(c["exponent_interval"][0].get<double>(), c["exponent"].get<double>()) << c.dump();
  EXPECT_LE(c["exponent"].get<double>(), c["exponent_interval"][1].get<double>()) << c.dump();
  EXPECT_LE(c["exponent_interval"][1].get<double>(), 1.0) << c.dump();
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

namespace {
/// Relative least squares of y ~ c n^a (ln n)^b + d n^e written out from the definition in growth.hpp
/// (2 x 2 normal equations by hand, no Eigen): the residual sum of squares of (y - fit) / y.
double relative_rss(const std::vector<double>& n, const std::vector<double>& y, double a, int b, double e) {
  double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;
  std::vector<double> g(n.size()), h(n.size());
  for (std::size_t i = 0; i < n.size(); ++i) {
    g[i] = std::pow(n[i], a) * (b ? std::log(n[i]) : 1.0) / y[i];
    h[i] = e >= 0 ? std::pow(n[i], e) / y[i] : 0.0;
    s11 += g[i] * g[i], s12 += g[i] * h[i], s22 += h[i] * h[i], r1 += g[i], r2 += h[i];
  }
  double c = 0, d = 0;
  const double det = s11 * s22 - s12 * s12;
  if (e >= 0 && std::fabs(det) > 1e-12 * s11 * s22) {
    c = (r1 * s22 - r2 * s12) / det;
    d = (s11 * r2 - s12 * r1) / det;
  } else {
    c = r1 / s11;
  }
  double rss = 0;
  for (std::size_t i = 0; i < n.size(); ++i) rss += std::pow(1.0 - c * g[i] - d * h[i], 2);
  return rss;
}
/// The lower-order exponent growth.hpp prescribes for (a, b): b = 0: the largest of {1, 0} <= a - 1/4;
/// b = 1: the largest of {1, 0} <= a; -1 for none.
double lower_order(double a, int b) {
  for (double e : {1.0, 0.0})
    if (e <= (b ? a : a - 0.25)) return e;
  return -1;
}
/// Simple exponents p/q (q <= 4) in [lo, hi].
int simple_exponents_in(double lo, double hi) {
  int k = 0;
  for (int q = 1; q <= 4; ++q)
    for (int p = 0; p <= 4 * q; ++p)
      if (std::gcd(p, q) == 1 || (p == 0 && q == 1)) {
        const double v = static_cast<double>(p) / q;
        k += v >= lo - 1e-12 && v <= hi + 1e-12;
      }
  return k;
}
}  // namespace

// distances --sweep: rows against their closed forms, every free fit against a least-squares fit done here
// from the raw rows, the withholding rule checked on every label, and the printed labels are the JSON's.
TEST(GrowthFit, DistanceSweepFitsAgainstClosedFormsAndIndependentLeastSquares) {
  const std::string args = "distances -p window:4 -p pow2 -p ssm -p sq1 --sweep 64..65536";
  const auto r = mixgraph::test::run_cli(args + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["sweep"].size(), 4u);
  std::map<std::string, nlohmann::json> by;
  for (const auto& e : j["sweep"]) by[e["pattern"].get<std::string>()] = e;
  // closed forms: window:w has delta(m) = ceil(m / w), pow2 delta(m) = popcount(m) (so diameter =
  // bit_length(n - 1)), ssm delta(m) = m
  for (const auto& row : by["window:4"]["rows"]) {
    const auto n = row["n"].get<std::uint64_t>();
    EXPECT_EQ(row["diameter"].get<std::uint64_t>(), (n - 1 + 3) / 4) << n;
    EXPECT_EQ(row["copy_distance"].get<std::uint64_t>(), (n + 3) / 4) << n;
  }
  for (const auto& row : by["pow2"]["rows"]) {
    const auto n = row["n"].get<std::uint64_t>();
    EXPECT_EQ(row["diameter"].get<std::uint64_t>(), static_cast<std::uint64_t>(std::bit_width(n - 1))) << n;
  }
  // known growth: window and ssm diameters are exactly linear, pow2's is log2 n
  for (const char* spec : {"window:4", "ssm"}) {
    const auto& f = by[spec]["growth"]["diameter"]["free"];
    EXPECT_EQ(f["decided_class"], "O(n)") << spec << f.dump();
    EXPECT_LE(f["exponent_interval"][0].get<double>(), 1.0) << spec;
    EXPECT_EQ(f["exponent_interval"][1].get<double>(), 1.0) << spec;  // clipped at the bound n^1
    EXPECT_EQ(f["bound_exponent"], 1.0);
  }
  const auto& lg = by["pow2"]["growth"]["diameter"]["free"];
  EXPECT_EQ(lg["decided_class"], "O(log n)") << lg.dump();
  EXPECT_EQ(lg["log_power"], 1);
  EXPECT_LE(lg["exponent_interval"][0].get<double>(), 0.0);
  EXPECT_NEAR(lg["exponent"].get<double>(), 0.0, 1e-9);
  // every fit: the reported exponent minimises the relative residual here too, and its rms is the JSON's
  for (const auto& [spec, e] : by) {
    for (const auto& [q, g] : e["growth"].items()) {
      const auto& f = g["free"];
      for (const char* k : {"class", "relative_residual", "runner_up", "ambiguous"})
        EXPECT_TRUE(g.contains(k)) << spec << " " << q << " " << k;
      std::vector<double> n, y;
      for (const auto& row : e["rows"]) {
        const auto v = row[q];
        if (v.is_number() && v.get<double>() > 0) {
          n.push_back(row["n"].get<double>());
          y.push_back(v.get<double>());
        }
      }
      ASSERT_EQ(f["points"].get<std::size_t>(), n.size()) << spec << " " << q;
      if (f["exponent"].is_null()) {
        EXPECT_TRUE(f["decided_class"].is_null());
        continue;
      }
      const double a = f["exponent"].get<double>(), lo = f["exponent_interval"][0].get<double>(),
                   hi = f["exponent_interval"][1].get<double>();
      const int b = f["log_power"].get<int>();
      EXPECT_LE(lo, a);
      EXPECT_GE(hi, std::min(a, 1.0));
      EXPECT_LE(hi, 1.0) << spec << " " << q << ": a distance never exceeds n";
      bool constant = true;
      for (double v : y) constant &= v == y[0];
      if (!constant) {
        EXPECT_EQ(f["lower_order_exponent"].is_null() ? -1.0 : f["lower_order_exponent"].get<double>(),
                  lower_order(a, b));
        const double best = relative_rss(n, y, a, b, lower_order(a, b));
        EXPECT_NEAR(std::sqrt(best / static_cast<double>(n.size())), f["relative_rms"].get<double>(),
                    1e-6 * std::max(1.0, f["relative_rms"].get<double>()))
            << spec << " " << q;
        // a 0.01 grid over the model's range [0, bound]: no exponent fits better with the same b
        for (int s = 0; s <= static_cast<int>(std::lround(f["bound_exponent"].get<double>() * 100)); ++s) {
          const double a2 = s * 0.01;
          EXPECT_GE(relative_rss(n, y, a2, b, lower_order(a2, b)), best * (1 - 1e-9) - 1e-24)
              << spec << " " << q << " a = " << a2 << " fits better than " << a;
        }
      }
      // the withholding rule: a class only when exactly one simple exponent is in the interval and the log
      // factor is decided
      const bool decidable = simple_exponents_in(lo, hi) == 1 && f["log_decided"].get<bool>();
      if (!decidable) {
        EXPECT_TRUE(f["decided_class"].is_null()) << spec << " " << q << " " << f.dump();
      }
      if (f["decided_class"].is_null()) {
        EXPECT_NE(f["label"].get<std::string>().rfind("O(", 0), 0u) << spec << " " << q;
      } else {
        EXPECT_EQ(f["label"], f["decided_class"]);
      }
    }
  }
  // the table prints the JSON's labels
  const auto t = mixgraph::test::run_cli(args);
  ASSERT_EQ(t.code, 0) << t.err;
  for (const auto& [spec, e] : by) {
    const auto at = t.out.find(spec + ": growth of diameter ");
    ASSERT_NE(at, std::string::npos) << spec << t.out;
    const auto line = t.out.substr(at, t.out.find('\n', at) - at);
    for (const char* q : {"diameter", "copy_distance", "mean_distance"})
      EXPECT_NE(line.find(e["growth"][q]["free"]["label"].get<std::string>()), std::string::npos)
          << spec << ": " << line;
  }
}

TEST(GrowthFit, DistanceSweepWithholdsAClassTheDataDoNotDecide) {
  // four points over a short range: the interval of pow2's mean distance holds several simple exponents,
  // so no class is printed, only the exponent and its interval
  const auto r = mixgraph::test::run_cli("distances -p pow2 --sweep 16,20,24,28 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto f = nlohmann::json::parse(r.out)["sweep"][0]["growth"]["mean_distance"]["free"];
  ASSERT_FALSE(f["exponent"].is_null()) << f.dump();
  EXPECT_GT(
      simple_exponents_in(f["exponent_interval"][0].get<double>(), f["exponent_interval"][1].get<double>()),
      1)
      << f.dump();
  EXPECT_TRUE(f["decided_class"].is_null()) << f.dump();
  EXPECT_EQ(f["label"].get<std::string>().rfind("~ n^", 0), 0u) << f.dump();
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

TEST(GrowthFit, StacksDoNotSweepSoNoUnbackedLabel) {
  // a stack has no growth fit: --sweep is refused (exit 2, naming the option) rather than printing a class
  for (const char* cmd : {"pattern", "distances", "congestion"}) {
    const auto r = mixgraph::test::run_cli(std::string(cmd) + " -p 'stack:ssm,window:4' --sweep 64..1024");
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.out;
    EXPECT_NE(r.err.find("--sweep"), std::string::npos) << cmd << ": " << r.err;
    EXPECT_EQ(r.out.find("growth"), std::string::npos) << cmd << ": " << r.out;
  }
}
