// A small evaluator for expr:<f(k)>, written for the brute-force construction (pattern_bruteforce.hpp)
// independently of the muParser evaluation the library uses.
#include <cctype>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pattern/pattern_bruteforce.hpp"

namespace mixgraph {

namespace {
/// Recursive descent: sum := prod (('+'|'-') prod)*; prod := unary (('*'|'/') unary)*;
/// unary := '-' unary | power; power := atom ('^' unary)?; atom := number | k | fn '(' sum ')' | '(' sum ')'.
struct Eval {
  const std::string& s;
  double k;
  std::size_t at = 0;
  bool ok = true;

  void skip() {
    while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
  }
  bool eat(char c) {
    skip();
    if (at < s.size() && s[at] == c) return ++at, true;
    return false;
  }
  double sum() {
    double v = prod();
    for (;;) {
      if (eat('+'))
        v += prod();
      else if (eat('-'))
        v -= prod();
      else
        return v;
    }
  }
  double prod() {
    double v = unary();
    for (;;) {
      if (eat('*'))
        v *= unary();
      else if (eat('/'))
        v /= unary();
      else
        return v;
    }
  }
  double unary() { return eat('-') ? -unary() : power(); }
  double power() {
    const double b = atom();
    return eat('^') ? std::pow(b, unary()) : b;
  }
  double atom() {
    skip();
    if (eat('(')) {
      const double v = sum();
      if (!eat(')')) ok = false;
      return v;
    }
    const std::size_t start = at;
    if (at < s.size() && (std::isdigit(static_cast<unsigned char>(s[at])) || s[at] == '.')) {
      while (at < s.size() && (std::isdigit(static_cast<unsigned char>(s[at])) || s[at] == '.')) ++at;
      return std::stod(s.substr(start, at - start));
    }
    while (at < s.size() && (std::isalnum(static_cast<unsigned char>(s[at])) || s[at] == '_')) ++at;
    const std::string name = s.substr(start, at - start);
    if (name == "k") return k;
    double (*fn)(double) = nullptr;
    if (name == "floor") fn = [](double x) { return std::floor(x); };
    if (name == "ceil") fn = [](double x) { return std::ceil(x); };
    if (name == "round") fn = [](double x) { return std::round(x); };
    if (name == "sqrt") fn = [](double x) { return std::sqrt(x); };
    if (name == "log2") fn = [](double x) { return std::log2(x); };
    if (name == "log10") fn = [](double x) { return std::log10(x); };
    if (name == "ln") fn = [](double x) { return std::log(x); };
    if (name == "exp") fn = [](double x) { return std::exp(x); };
    if (name == "abs") fn = [](double x) { return std::fabs(x); };
    if (!fn || !eat('(')) return ok = false, 0.0;
    const double v = sum();
    if (!eat(')')) ok = false;
    return fn(v);
  }
};
}  // namespace

std::optional<std::vector<std::uint64_t>> bruteforce_expression(const std::string& expr, std::uint64_t n) {
  std::vector<std::uint64_t> f;
  std::uint64_t repeats = 0;
  for (std::uint64_t k = 0; k < (std::uint64_t{1} << 24); ++k) {
    Eval e{expr, static_cast<double>(k)};
    const double v = e.sum();
    e.skip();
    if (!e.ok || e.at != expr.size() || !std::isfinite(v)) return std::nullopt;
    if (v >= static_cast<double>(n) && v >= 1) return f;  // the first f(k) >= n ends the offsets
    const double r = std::nearbyint(v);
    if (std::fabs(v - r) > 1e-9 || r < 1) return std::nullopt;
    const auto u = static_cast<std::uint64_t>(r);
    if (!f.empty() && u < f.back()) return std::nullopt;
    if (!f.empty() && u == f.back()) {
      if (++repeats >= 63) return std::nullopt;
      continue;
    }
    repeats = 0;
    f.push_back(u);
  }
  return std::nullopt;
}

}  // namespace mixgraph
