// The LP relaxation and integer program of copy routing on the stacked graph (congestion --lp on stack:
// specs). References: the exhaustive optimum on a stacked graph built here from the brute-force reads;
// an independent LP, the path formulation (one variable per input and position set of its paths, from the
// explicit graph) solved by scipy's HiGHS through /usr/bin/python3; the single-layer LP for one-layer
// stacks.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "mixgraph/congestion.hpp"
#include "mixgraph/routing.hpp"
#include "mixgraph/stack_congestion.hpp"
#include "stack_explicit.hpp"

using namespace mixgraph;
using namespace mixgraph::test;

namespace {

const char* kScipyLp = R"(import sys
import numpy as np
from scipy.optimize import linprog
out = []
for line in open(sys.argv[1]):
    n, *inputs = line.split(';')
    n = int(n)
    masks = [[int(m) for m in inp.split()] for inp in inputs]
    cols = [(i, m) for i, ms in enumerate(masks) for m in ms]
    nv = len(cols) + 1
    c = np.zeros(nv); c[-1] = 1
    A_eq = np.zeros((len(masks), nv)); b_eq = np.ones(len(masks))
    A_ub = np.zeros((n, nv)); b_ub = np.zeros(n)
    for k, (i, m) in enumerate(cols):
        A_eq[i, k] = 1
        for v in range(n):
            if m >> v & 1:
                A_ub[v, k] = 1
    A_ub[:, -1] = -1
    r = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * nv, method='highs')
    out.append(repr(r.fun) if r.status == 0 else 'nan')
print(' '.join(out))
)";

/// The path-formulation LP of each instance (one line: n; masks of input 1; masks of input 2; ...), solved
/// by scipy. Empty when python3 or scipy is missing.
std::vector<double> scipy_lp_values(const std::vector<std::string>& lines) {
  char tmpl[] = "/tmp/mixgraph_stack_lp_XXXXXX";
  if (!mkdtemp(tmpl)) return {};
  const std::string dir = tmpl;
  std::ofstream(dir + "/lp.py") << kScipyLp;
  {
    std::ofstream f(dir + "/instances.txt");
    for (auto& l : lines) f << l << "\n";
  }
  const std::string cmd = "/usr/bin/python3 " + dir + "/lp.py " + dir + "/instances.txt 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {};
  std::string text;
  char buf[4096];
  while (std::size_t k = fread(buf, 1, sizeof buf, p)) text.append(buf, k);
  const int rc = pclose(p);
  std::filesystem::remove_all(dir);
  if (rc != 0) {
    ADD_FAILURE() << "scipy LP failed: " << text;
    return {};
  }
  std::istringstream is(text);
  std::vector<double> v;
  for (std::string w; is >> w;) v.push_back(w == "nan" ? NAN : std::stod(w));
  return v;
}

bool have_scipy() {
  return std::system("/usr/bin/python3 -c 'import scipy.optimize' >/dev/null 2>&1") == 0;
}

}  // namespace

TEST(StackCongestionLp, BracketsTheOptimumAndMatchesThePathLp) {
  if (!lp_built_in()) GTEST_SKIP() << "mixgraph was built without GLPK";
  const std::vector<std::string> stacks = {"stack:ssm,window:2",      "stack:local:2,local:2,local:2",
                                           "stack:pow2,ssm",          "stack:sink:1|local:2;ssm",
                                           "stack:window:2,window:2", "stack:local:3,ssm,local:2",
                                           "stack:block:3,window:2",  "stack:offsets:2,3;ssm",
                                           "stack:window:3",          "stack:dilated:2,2;local:2"};
  std::vector<std::string> lines;
  std::vector<double> ours;
  std::vector<std::string> what;
  int compared = 0;
  for (const auto& spec : stacks)
    for (pos_t N : {2u, 3u, 4u, 5u}) {
      SCOPED_TRACE(spec + " N=" + std::to_string(N));
      const auto g = build_explicit(stack_layer_specs(spec), 2 * N);
      const std::uint32_t opt = brute_optimum(g, N);
      if (opt == 0) continue;
      ++compared;
      const Stack s = make_stack(spec, 2 * N);
      const auto lp = stack_lp_congestion(s, N, false);
      ASSERT_TRUE(lp.lp.solved) << lp.lp.status;
      EXPECT_LE(lp.lp.value, opt + 1e-6);
      EXPECT_LE(lp.lp.dual_value, lp.lp.value + 1e-6);
      EXPECT_LE(lp.lp.bound, opt);
      const auto ip = stack_lp_congestion(s, N, true);
      ASSERT_TRUE(ip.lp.solved) << ip.lp.status;
      EXPECT_EQ(ip.lp.bound, opt);
      // the whole analysis: lp and ip bounds, and the exact routing walked on the explicit graph
      StackCongestionOptions o;
      o.routings_forced = true;
      o.keep_paths = true;
      o.lp = true;
      const auto r = analyse_stack_congestion(spec, N, o);
      EXPECT_EQ(r.base.lower_bounds[2].value, lp.lp.bound);
      EXPECT_EQ(r.base.lower_bounds[3].value, opt);
      EXPECT_EQ(r.base.lower_bound, opt);
      ASSERT_TRUE(r.base.upper_bound.has_value());
      EXPECT_EQ(*r.base.upper_bound, opt);
      EXPECT_TRUE(r.base.optimal);
      bool has_exact = false;
      for (auto& st : r.base.routings) has_exact = has_exact || st.name == "exact";
      EXPECT_TRUE(has_exact);
      expect_valid(g, N, r);
      // the path formulation of the same LP
      std::ostringstream line;
      line << 2 * N;
      for (pos_t i = 0; i < N; ++i) {
        line << ';';
        for (auto m : path_masks(g, i, N)) line << ' ' << m;
      }
      lines.push_back(line.str());
      ours.push_back(lp.lp.value);
      what.push_back(spec + " N=" + std::to_string(N));
    }
  EXPECT_GT(compared, 25);
  if (!have_scipy()) GTEST_SKIP() << "/usr/bin/python3 with scipy is missing (apt-get install python3-scipy)";
  const auto ref = scipy_lp_values(lines);
  ASSERT_EQ(ref.size(), ours.size());
  for (std::size_t k = 0; k < ref.size(); ++k) EXPECT_NEAR(ours[k], ref[k], 1e-6) << what[k];
}

TEST(StackCongestionLp, OneLayerStackEqualsThePatternLp) {
  if (!lp_built_in()) GTEST_SKIP() << "mixgraph was built without GLPK";
  for (const std::string p : {"pow2", "sq1", "window:3", "ssm", "local:3", "sink:2|window:2", "pow2+cache",
                              "dilated:3,2", "block:4", "fib"})
    for (pos_t N : {4u, 9u, 16u}) {
      SCOPED_TRACE(p + " N=" + std::to_string(N));
      const auto g = make_copy_graph(make_pattern(p, 2 * N), N);
      const auto plain = lp_congestion(g, false);
      const auto st = stack_lp_congestion(make_stack("stack:" + p, 2 * N), N, false);
      ASSERT_EQ(st.lp.solved, plain.solved);
      if (!plain.solved) continue;
      EXPECT_NEAR(st.lp.value, plain.value, 1e-6);
      EXPECT_EQ(st.lp.bound, plain.bound);
      CongestionOptions co;
      co.lp = true;
      StackCongestionOptions so;
      so.lp = true;
      const auto a = analyse_congestion(p, N, co);
      const auto b = analyse_stack_congestion("stack:" + p, N, so);
      ASSERT_EQ(a.lower_bounds.size(), b.base.lower_bounds.size());
      EXPECT_EQ(b.base.lower_bounds[2].value, a.lower_bounds[2].value);  // lp
      EXPECT_EQ(b.base.lower_bounds[3].value, a.lower_bounds[3].value);  // ip
      EXPECT_EQ(b.base.lower_bounds[3].note.substr(0, 12), a.lower_bounds[3].note.substr(0, 12));
    }
}

TEST(StackCongestionLp, CliReportsTheLpBounds) {
  using mixgraph::test::run_cli;
  if (!lp_built_in()) GTEST_SKIP() << "mixgraph was built without GLPK";
  auto r = run_cli("congestion -p 'stack:ssm,window:2' -N 5 --lp --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  StackCongestionOptions o;
  o.lp = true;
  const auto lib = analyse_stack_congestion("stack:ssm,window:2", 5, o);
  EXPECT_EQ(j["parameters"]["lp"], true);
  EXPECT_EQ(j["lower_bounds"]["lp"], *lib.base.lower_bounds[2].value);
  EXPECT_EQ(j["lower_bounds"]["ip"], *lib.base.lower_bounds[3].value);
  EXPECT_NEAR(j["lp_value"].get<double>(), *lib.base.lp_value, 1e-9);
  r = run_cli("congestion -p 'stack:ssm,window:2' -N 5 --lp --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto head = r.out.substr(0, r.out.find('\n'));
  EXPECT_NE(head.find(",lp,ip,"), std::string::npos) << head;
  EXPECT_NE(head.find(",exact,"), std::string::npos) << head;
  // without --lp the bounds say so
  r = run_cli("congestion -p 'stack:ssm,window:2' -N 5 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["lower_bounds"]["lp"].is_null());
}
