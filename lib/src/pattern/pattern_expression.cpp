// expr:<f(k)> patterns, evaluated with muParser (Debian's libmuparser-dev) when it is built in.
#include <cmath>
#include <string>
#include <vector>

#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"

#ifdef MIXGRAPH_HAVE_MUPARSER
#include <muParser.h>
#endif

namespace mixgraph {

bool expressions_built_in() {
#ifdef MIXGRAPH_HAVE_MUPARSER
  return true;
#else
  return false;
#endif
}

#ifdef MIXGRAPH_HAVE_MUPARSER
namespace {
double fn_floor(double x) {
  return std::floor(x);
}
double fn_ceil(double x) {
  return std::ceil(x);
}
double fn_round(double x) {
  return std::round(x);
}

std::string fmt_value(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
}  // namespace

std::vector<std::uint64_t> evaluate_expression(const std::string& expr, std::uint64_t n) {
  const std::string where = "expr:" + expr;
  if (expr.find_first_not_of(" \t") == std::string::npos)
    throw UsageError("pattern '" + where + "': the expression is empty (write e.g. expr:3^k)");
  mu::Parser parser;
  double k = 0;
  try {
    parser.DefineVar("k", &k);
    parser.DefineFun("floor", fn_floor);
    parser.DefineFun("ceil", fn_ceil);
    parser.DefineFun("round", fn_round);
    parser.SetExpr(expr);
    (void)parser.Eval();  // parse now, so syntax errors are reported before any value
  } catch (const mu::Parser::exception_type& e) {
    const auto pos = static_cast<std::size_t>(e.GetPos());
    std::string msg = "pattern '" + where + "': malformed expression: " + e.GetMsg();
    if (pos < expr.size())
      msg += " (at character " + std::to_string(pos + 1) + " of '" + expr + "': '" + expr.substr(pos) + "')";
    else
      msg += " (at character " + std::to_string(expr.size() + 1) + ", the end of '" + expr + "')";
    throw UsageError(msg);
  }
  std::vector<std::uint64_t> f;
  std::uint64_t repeats = 0;
  const double dn = static_cast<double>(n);
  for (std::uint64_t kk = 0;; ++kk) {
    k = static_cast<double>(kk);
    double v = 0;
    try {
      v = parser.Eval();
    } catch (const mu::Parser::exception_type& e) {
      throw UsageError("pattern '" + where + "': evaluation failed at k = " + std::to_string(kk) + ": " +
                       e.GetMsg());
    }
    auto bad = [&](const std::string& why) {
      return UsageError("pattern '" + where + "': f(" + std::to_string(kk) + ") = " + fmt_value(v) + " " +
                        why);
    };
    if (!std::isfinite(v)) throw bad("is not finite; f(k) must be an integer >= 1");
    if (v >= dn && v >= 1) {
      if (!f.empty() && v < static_cast<double>(f.back())) throw bad("decreases; f must be non-decreasing");
      break;  // evaluation stops at the first f(k) >= n
    }
    const double r = std::nearbyint(v);
    if (std::fabs(v - r) > 1e-9) throw bad("is not an integer (within 1e-9); f(k) must be an integer >= 1");
    if (r < 1) throw bad("is below 1; offsets must be >= 1");
    const auto u = static_cast<std::uint64_t>(r);
    if (!f.empty() && u < f.back())
      throw bad("decreases (f(" + std::to_string(kk - 1) + ") was larger); f must be non-decreasing");
    if (!f.empty() && u == f.back()) {
      if (++repeats >= 63)
        throw bad("repeats the same value 64 times in a row; f must grow (e.g. expr:1 never reaches n)");
      continue;  // equal values merge
    }
    repeats = 0;
    f.push_back(u);
  }
  return f;
}
#else
std::vector<std::uint64_t> evaluate_expression(const std::string& expr, std::uint64_t) {
  throw RuntimeFailure("pattern 'expr:" + expr +
                       "': expressions are not built in (this mixgraph was built without muParser; install "
                       "libmuparser-dev and reconfigure)");
}
#endif

}  // namespace mixgraph
