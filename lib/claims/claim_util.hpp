#pragma once
// Small helpers shared by the claim files (formatting and the default ranges).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/claims.hpp"
#include "mixgraph/csr.hpp"
#include "mixgraph/pattern.hpp"

namespace mixgraph::claims {

inline std::vector<std::string> patterns_or(const ClaimContext& ctx, std::vector<std::string> defaults) {
  return ctx.patterns.empty() ? defaults : ctx.patterns;
}
/// Instance names "SPEC n=N" of a claim split per (pattern, n), patterns outer, n inner.
inline std::vector<std::string> pattern_n_names(const std::vector<std::string>& pats,
                                                const std::vector<std::uint64_t>& ns) {
  std::vector<std::string> names;
  for (const auto& spec : pats)
    for (auto n : ns) names.push_back(spec + " n=" + std::to_string(n));
  return names;
}

inline std::uint64_t n_max_or(const ClaimContext& ctx, std::uint64_t def) {
  return ctx.n_max ? ctx.n_max : def;
}

/// The n to build `spec` at: 0 for mtx: patterns (their n comes from the files), else n.
inline std::uint64_t n_for(const std::string& spec, std::uint64_t n) {
  return spec.rfind("mtx:", 0) == 0 ? 0 : n;
}

/// The n to build the parsed spec at: 0 when n comes from its files (an mtx: piece), else n.
inline std::uint64_t n_for(const PatternSpec& spec, std::uint64_t n) {
  return spec.has_matrix() ? 0 : n;
}

/// The asked spec without a trailing +cache (its base), parsed once: what a claim about the rounding of
/// Def. 4.10 checks, building the base and cache_of(base) from the tree.
inline PatternSpec uncached(const std::string& spec) {
  PatternSpec t = parse_pattern_spec(spec, false);
  if (t.kind == SpecKind::Cache) return t.parts.at(0);
  return t;
}

/// The same pattern? (spellings compared through the parsed spec; false when either does not parse)
inline bool same_pattern(const std::string& a, const std::string& b) {
  if (a == b) return true;
  try {
    return make_pattern(a, n_for(a, 64)).spec == make_pattern(b, n_for(b, 64)).spec;
  } catch (const std::exception&) {
    return false;
  }
}

/// For a claim about no mixer pattern at all: every asked pattern (each must parse) is out of scope.
inline std::vector<ClaimSkip> all_out_of_scope(const ClaimContext& ctx, const std::string& why) {
  std::vector<ClaimSkip> na;
  for (const auto& spec : ctx.patterns) {
    make_pattern(spec, n_for(spec, 64));
    na.push_back({spec, why});
  }
  return na;
}

/// For a claim about no mixer pattern at all: when patterns were asked for, the outcome that marks every one
/// of them NOT APPLICABLE (`why`), to return at once; nullopt when none was asked for.
inline std::optional<ClaimOutcome> patterns_not_applicable(const ClaimContext& ctx, const std::string& why) {
  if (ctx.patterns.empty()) return std::nullopt;
  ClaimOutcome o;
  o.not_applicable = all_out_of_scope(ctx, why);
  return o;
}

/// For a claim about fixed patterns: `own` when no pattern is asked for, else the asked ones among `own`;
/// every other asked pattern goes to `na` with `why`.
inline std::vector<std::string> fixed_patterns(const ClaimContext& ctx, const std::vector<std::string>& own,
                                               const std::string& why, std::vector<ClaimSkip>& na) {
  if (ctx.patterns.empty()) return own;
  std::vector<std::string> keep;
  for (const auto& spec : ctx.patterns) {
    make_pattern(spec, n_for(spec, 64));  // an unknown pattern is a usage error (ERROR), not out of scope
    bool found = false;
    for (const auto& o : own)
      if (same_pattern(spec, o)) {
        keep.push_back(o);
        found = true;
        break;
      }
    if (!found) na.push_back({spec, why});
  }
  return keep;
}

/// u = 2^-53, the unit roundoff of fp64.
constexpr double kUnitRoundoff = 1.1102230246251565e-16;

/// The infinity norm (largest absolute row sum) of a CSR's values.
inline double inf_norm(const Csr& m) {
  double best = 0;
  for (pos_t i = 0; i < m.n; ++i) {
    double s = 0;
    for (double v : m.row_values(i)) s += std::fabs(v);
    best = std::max(best, s);
  }
  return best;
}

/// An a-priori bound on max_i |y_hat_i - y_i| when y = (I - B)^{-1} A x (B strictly lower) is computed in
/// fp64 by forward substitution, every row a sum of at most m rounded products in any order. Each row has
/// the backward error |dA| <= g |A|, |dT| <= g |I - B| with g = gamma_m = m u / (1 - m u) (Higham, Accuracy
/// and Stability of Numerical Algorithms, Lemma 3.1 and Thm. 8.5), so with infinity norms, k = 1 / (1 -
/// ||B||)
/// >= ||(I - B)^{-1}|| and Y = k ||A|| ||x|| >= ||y||:
///   ||y_hat - y|| <= k g (||A|| ||x|| + (1 + ||B||) Y) / (1 - k g (1 + ||B||)).
/// +inf (no bound) when ||B|| >= 1 or the denominator is not positive.
inline double substitution_error_bound(double norm_a, double norm_b, double norm_x, std::uint64_t m) {
  const double mu = static_cast<double>(m) * kUnitRoundoff;
  if (norm_b >= 1 || mu >= 1) return std::numeric_limits<double>::infinity();
  const double g = mu / (1 - mu), k = 1 / (1 - norm_b), y = k * norm_a * norm_x;
  const double den = 1 - k * g * (1 + norm_b);
  if (den <= 0) return std::numeric_limits<double>::infinity();
  return k * g * (norm_a * norm_x + (1 + norm_b) * y) / den;
}

/// max_k |a_k - b_k|.
inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double e = 0;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) e = std::max(e, std::fabs(a[k] - b[k]));
  return e;
}

inline std::string join(const std::vector<std::string>& v, const std::string& sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

/// Whole numbers joined by ", " (e.g. "64, 128, 256"); "" for none.
template <class Int>
std::string join_numbers(const std::vector<Int>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
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

/// A merged part's counterexamples as Counterexamples::text gives them (nullopt when there are none).
inline std::optional<std::string> counterexample_text(const ClaimPart& p) {
  if (p.counterexample_count == 0) return std::nullopt;
  Counterexamples c;
  c.first = p.counterexamples;
  c.count = p.counterexample_count;
  return c.text();
}

}  // namespace mixgraph::claims
