#pragma once
// Small helpers shared by the claim files (formatting and the default ranges).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "mixgraph/claims.hpp"

namespace mixgraph::claims {

inline std::vector<std::string> patterns_or(const ClaimContext& ctx, std::vector<std::string> defaults) {
  return ctx.patterns.empty() ? defaults : ctx.patterns;
}
inline std::uint64_t n_max_or(const ClaimContext& ctx, std::uint64_t def) {
  return ctx.n_max ? ctx.n_max : def;
}

inline std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

/// A double in %.4g (e.g. "1.414", "3.2e-15").
inline std::string fmt_g(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

/// Collects up to `keep` counterexamples and counts all of them.
struct Counterexamples {
  std::size_t keep = 5;
  std::size_t count = 0;
  std::vector<std::string> first;
  void add(const std::string& s) {
    if (first.size() < keep) first.push_back(s);
    ++count;
  }
  bool any() const { return count > 0; }
  std::string text() const {
    std::string s = join(first, "; ");
    if (count > first.size()) s += "; ... (" + std::to_string(count) + " in all)";
    return s;
  }
};

}  // namespace mixgraph::claims
