#pragma once
// Small helpers shared by the claim files (formatting and the default ranges).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mixgraph/claims.hpp"
#include "mixgraph/csr.hpp"
#include "mixgraph/growth.hpp"
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

/// The parsed tree of `spec`, parsed once per run (ctx.specs, which claim_context sets): what a claim builds
/// from at every n. An unknown pattern throws the parser's UsageError (the claim's ERROR).
inline const PatternSpec& tree_of(const ClaimContext& ctx, const std::string& spec) {
  if (!ctx.specs) throw std::logic_error("a claim's context has no parsed specs (claim_context sets them)");
  return ctx.specs->tree(spec);
}

/// The pattern `spec` at n, built from its parsed tree (tree_of).
inline Pattern pattern_at(const ClaimContext& ctx, const std::string& spec, std::uint64_t n) {
  return make_pattern(tree_of(ctx, spec), n);
}

/// The asked spec without a trailing +cache (its base): what a claim about the rounding of Def. 4.10
/// checks, building the base and cache_of(base) from the tree.
inline const PatternSpec& uncached(const PatternSpec& t) {
  return t.kind == SpecKind::Cache ? t.parts.at(0) : t;
}

/// The asked pattern is the claim's own `own` (written as the claim writes it: no blanks around it, so its
/// tree's text is `own` itself): the built pattern's spec (the tree's text) is `own`.
inline bool same_pattern(const PatternSpec& asked, const std::string& own) {
  return asked.text == own;
}

/// An asked pattern must parse and build (at n = 64, or from its files): an unknown pattern is a usage error
/// (the claim's ERROR), not out of scope. Returns its tree.
inline const PatternSpec& checked_tree(const ClaimContext& ctx, const std::string& spec) {
  const PatternSpec& t = tree_of(ctx, spec);
  make_pattern(t, n_for(spec, 64));
  return t;
}

/// For a claim about no mixer pattern at all: every asked pattern (each must parse) is out of scope.
inline std::vector<ClaimSkip> all_out_of_scope(const ClaimContext& ctx, const std::string& why) {
  std::vector<ClaimSkip> na;
  for (const auto& spec : ctx.patterns) {
    checked_tree(ctx, spec);
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
    const PatternSpec& t = checked_tree(ctx, spec);
    bool found = false;
    for (const auto& o : own)
      if (spec == o || same_pattern(t, o)) {
        keep.push_back(o);
        found = true;
        break;
      }
    if (!found) na.push_back({spec, why});
  }
  return keep;
}

/// For a claim about the Def. 4.10 rounding of offsets with f(0) = 1 (Prop. 4.12): calls
/// fn(asked, base, f) for each of its patterns (the asked ones, else pow2, sq1, sq, fib, pow:3, window:3,
/// offsets:1,5,6,20 and expr:k^3+1 when expressions are built in) whose base (the pattern without a trailing
/// +cache) is translation-invariant, f its offsets f(k) < n; the others go to `na`. An unknown pattern throws
/// (the claim's ERROR). Returns the patterns.
template <class Fn>
std::vector<std::string> for_each_rounded_base(const ClaimContext& ctx, std::uint64_t n,
                                               std::vector<ClaimSkip>& na, Fn&& fn) {
  std::vector<std::string> defaults = {"pow2", "sq1", "sq", "fib", "pow:3", "window:3", "offsets:1,5,6,20"};
  if (expressions_built_in()) defaults.push_back("expr:k^3+1");
  const auto pats = patterns_or(ctx, defaults);
  for (const auto& asked : pats) {
    const PatternSpec& base = uncached(tree_of(ctx, asked));
    if (!make_pattern(base, n_for(base, 64)).translation_invariant()) {
      na.push_back({asked, "not (the cache-efficient variant of) a translation-invariant pattern"});
      continue;
    }
    fn(asked, base, f_values_for(base, n));
  }
  return pats;
}

/// For a claim about one fixed pattern `own`: when patterns are asked for and `own` is not among them, the
/// outcome that marks each NOT APPLICABLE (`why`; `checked` says what the claim is about), to return at
/// once; else nullopt, with the asked patterns other than `own` in `na` (as fixed_patterns).
inline std::optional<ClaimOutcome> own_not_asked(const ClaimContext& ctx, const std::string& own,
                                                 const std::string& why, const std::string& checked,
                                                 std::vector<ClaimSkip>& na) {
  if (!fixed_patterns(ctx, {own}, why, na).empty()) return std::nullopt;
  ClaimOutcome o;
  o.checked = checked;
  o.not_applicable = na;
  return o;
}

/// The value `table` gives `spec` (the first entry named so), else `otherwise`: per-pattern constants, e.g.
/// the cost models of split claims.
inline double value_for(const std::string& spec, std::initializer_list<std::pair<const char*, double>> table,
                        double otherwise) {
  for (const auto& [name, v] : table)
    if (spec == name) return v;
  return otherwise;
}

/// The statement of the guo.loglinear claims about the mask M^H: not about a mixer pattern.
inline const char* const kAboutTheLoglinearMask =
    "the statement is about the log-linear mask M^H, not a mixer pattern";

/// The lengths a check runs at: those of `some` below `top` (in order), then `top`.
inline std::vector<std::uint64_t> lengths_up_to(std::initializer_list<std::uint64_t> some,
                                                std::uint64_t top) {
  std::vector<std::uint64_t> v;
  for (auto n : some)
    if (n < top) v.push_back(n);
  v.push_back(top);
  return v;
}

/// Appends "LABEL fits CLASS[ (ambiguous)]SUFFIX" to `fits` ("; " between entries): the growth class of ys
/// over xs (fit_growth; reported, never deciding). Nothing with fewer than 3 points.
inline void add_growth_fit(std::string& fits, const std::string& label, const std::vector<double>& xs,
                           const std::vector<double>& ys, const std::string& suffix = "") {
  if (xs.size() < 3) return;
  const auto fit = fit_growth(xs, ys);
  fits += (fits.empty() ? "" : "; ") + label + " fits " + fit.best + (fit.ambiguous ? " (ambiguous)" : "") +
          suffix;
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

/// What a whole check found, in words and counts: the fields of its ClaimOutcome other than the verdict's.
struct Findings {
  std::string checked = {};
  std::string worst = {};
  std::string detail = {};
  std::uint64_t instances = 0;
  std::vector<ClaimSkip> not_applicable = {};
};

/// A whole check's outcome: its findings, with the counterexamples' text when there are any (the verdict is
/// run_claims').
inline ClaimOutcome outcome_of(const Counterexamples& cex, Findings f) {
  ClaimOutcome o;
  o.checked = std::move(f.checked);
  o.worst = std::move(f.worst);
  if (cex.any()) o.counterexample = cex.text();
  o.detail = std::move(f.detail);
  o.instances = f.instances;
  o.not_applicable = std::move(f.not_applicable);
  return o;
}

/// A merged part's counterexamples as Counterexamples::text gives them (nullopt when there are none).
inline std::optional<std::string> counterexample_text(const ClaimPart& p) {
  if (p.counterexample_count == 0) return std::nullopt;
  Counterexamples c;
  c.first = p.counterexamples;
  c.count = p.counterexample_count;
  return c.text();
}

}  // namespace mixgraph::claims
