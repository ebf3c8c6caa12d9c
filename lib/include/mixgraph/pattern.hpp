#pragma once
// Patterns: which past positions token i reads through B (strictly earlier) and through A.
//
//   auto p = mixgraph::make_pattern("pow2+cache", 4096);
//   mixgraph::for_each_b_read(p, 99, [](pos_t j) { ... });   // positions read by position 100
//
// Spec grammar (docs/math.md §2, docs/cli.md "Pattern specs"):
//   pow2 | pow:b | sq1 | sq | fib | window:w | dilated:w,r | strided:w,s | ssm | dense | local:w | attention
//   sink:s | global:s | block:b | bigbird:w,g,r[,seed] | loglinear | topk-blocks:b,k,FILE.npy
//   expr:<f(k)> | offsets:o1,o2,... | mtx:B.mtx | mtx:A.mtx,B.mtx
//   <translation-invariant spec>+cache | P1|P2|... (union of reads; a trailing +cache covers the whole union)
//   P1@A|P2@B|P3@AB (a union part read through A only, B only, or both: the default)
//   heads:P1;P2;... (outermost only: head h uses Ph; the pattern is the union of the heads' reads)
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mixgraph/csr.hpp"
#include "mixgraph/pattern_spec.hpp"

namespace mixgraph {

enum class PatternFamily {
  TranslationInvariant,  ///< reads i - o for o in a fixed offset set (implicit, no index arrays)
  CacheEfficient,        ///< Def. 4.10 recursive rounding of a translation-invariant pattern (explicit CSR)
  Matrix,                ///< explicit masks (and weights) from Matrix Market files
};

/// How A relates to B.
enum class AMode {
  Shared,    ///< A reads B's positions plus i itself (the paper's shared pattern)
  Diagonal,  ///< A is the diagonal only (ssm: a gated linear recurrence)
  Explicit,  ///< A has its own reads (local:w, attention: B = 0; mtx:A.mtx,B.mtx)
};

const char* to_string(PatternFamily f);
const char* to_string(AMode m);

struct Pattern {
  std::string spec;  ///< the spec as given, e.g. "pow2+cache"
  std::string base;  ///< the translation-invariant base for +cache, else == spec
  PatternFamily family = PatternFamily::TranslationInvariant;
  AMode a_mode = AMode::Shared;
  pos_t n = 0;

  /// The f(k) values below n (sorted, distinct, >= 1). Translation-invariant patterns read through these
  /// offsets (through B, or through A when B is empty); cache-efficient patterns were built from them.
  std::vector<std::uint64_t> f_values;
  /// Translation-invariant only: positive B offsets (sorted ascending) and A offsets for AMode::Explicit
  /// (sorted ascending, 0 = the diagonal).
  std::vector<pos_t> b_offsets;
  std::vector<pos_t> a_offsets;

  /// Explicit families: B reads per reader row (row i lists j < i, sorted), and A reads when
  /// a_mode == Explicit (row i lists j <= i). Values present for Matrix patterns read from files
  /// with real/integer entries.
  Csr b;
  Csr a;

  /// heads:P1;P2;... only: the head specs P1, P2, ... (the pattern itself is their union).
  std::vector<std::string> heads;
  /// The parsed spec the pattern was built from (heads: its heads are tree.parts): what builds a head or a
  /// variant (+cache) of the pattern without parsing its text again.
  PatternSpec tree;

  bool translation_invariant() const { return family == PatternFamily::TranslationInvariant; }
  bool b_empty() const;
};

/// Parse a spec and build the pattern on n positions (n >= 1). For mtx: specs n comes from the files:
/// pass n = 0, or an n that must match. Throws UsageError for bad specs (names the valid ones), InputError
/// for bad files, RuntimeFailure when a needed library is not built in.
Pattern make_pattern(const std::string& spec, std::uint64_t n);
/// The same from a parsed spec (mixgraph/pattern_spec.hpp): parse once, estimate and build from the tree.
/// A Stack tree is refused (UsageError: make_stack builds it).
Pattern make_pattern(const PatternSpec& spec, std::uint64_t n);

/// The guarded build every front end uses: check_pattern_memory (mixgraph/pattern_spec.hpp: MemoryRefused
/// naming "<label> at n = <n>" before anything is allocated), then make_pattern(spec, n).
Pattern make_pattern_within(const PatternSpec& spec, std::uint64_t n, std::uint64_t mem_limit,
                            const std::string& label, const PatternBudget& budget = {});

/// Throws UsageError unless 1 <= n and positions 1..n fit in 32 bits.
void validate_n(std::uint64_t n);

/// The f(k) < n values of a translation-invariant spec (no +cache, no mtx:), validated as docs/math.md §2
/// asks: parse_pattern_spec, then the tree's f_values_for (mixgraph/pattern_spec.hpp).
std::vector<std::uint64_t> f_values_for(const std::string& spec, std::uint64_t n);

/// Evaluate expr:<f(k)> (muParser). Stops at the first f(k) >= n. Throws UsageError naming the first bad
/// k and value (non-integer, < 1, decreasing, the same value 64 times in a row), RuntimeFailure if
/// muParser was not built in.
std::vector<std::uint64_t> evaluate_expression(const std::string& expr, std::uint64_t n);
bool expressions_built_in();

/// Def. 4.10: S_i = { pi_{S_{i-1} ∪ {i}}(i - f(k)) : f(k) < i } ∪ {i}; row i of the result lists S_i \ {i}
/// (0-indexed). O(sum_i (|S_{i-1}| + #{k : f(k) < i})) time, sequential by definition.
Csr cache_efficient_reads(const std::vector<std::uint64_t>& f, pos_t n);

/// Prop. 4.12 closed form (f(0) = 1 only; returns nullopt otherwise): S_i \ {i} =
/// { a_k ceil((i - f(k)) / a_k) : f(k) < i }, a_0 = 1, a_{k+1} = a_k ceil((f(k+1) - f(k)) / a_k).
std::optional<Csr> cache_efficient_closed_form(const std::vector<std::uint64_t>& f, pos_t n);
/// The a_k factors of Prop. 4.12 (f(0) = 1).
std::vector<std::uint64_t> closed_form_factors(const std::vector<std::uint64_t>& f);

/// The valid pattern names, for error messages and --help.
std::string pattern_name_help();

/// A union part without its trailing read mark (@A, @B or @AB) and surrounding blanks, as the parser reads
/// it: "mtx:B.mtx@A " -> "mtx:B.mtx". A part without a mark comes back trimmed; nothing else is checked.
std::string strip_read_mark(const std::string& part);

/// Reads of 0-indexed position i, ascending, excluding i itself for B (B is strictly lower).
template <class F>
void for_each_b_read(const Pattern& p, pos_t i, F&& fn) {
  if (p.family == PatternFamily::TranslationInvariant) {
    for (auto it = p.b_offsets.rbegin(); it != p.b_offsets.rend(); ++it)
      if (*it <= i) fn(static_cast<pos_t>(i - *it));
  } else {
    for (pos_t j : p.b.row(i)) fn(j);
  }
}

/// A reads of 0-indexed position i, ascending (the diagonal i included when A has it).
template <class F>
void for_each_a_read(const Pattern& p, pos_t i, F&& fn) {
  switch (p.a_mode) {
    case AMode::Shared:
      for_each_b_read(p, i, fn);
      fn(i);
      break;
    case AMode::Diagonal:
      fn(i);
      break;
    case AMode::Explicit:
      if (p.family == PatternFamily::TranslationInvariant) {
        for (auto it = p.a_offsets.rbegin(); it != p.a_offsets.rend(); ++it)
          if (*it <= i) fn(static_cast<pos_t>(i - *it));
      } else {
        for (pos_t j : p.a.row(i)) fn(j);
      }
      break;
  }
}

}  // namespace mixgraph
