#pragma once
// Parsed pattern specs: the one grammar of docs/cli.md "Pattern specs" read once into a tree, which the
// memory estimate and the builders (make_pattern, make_stack) take. The string entry points parse, then call
// the tree's.
//
//   auto s = mixgraph::parse_pattern_spec("pow2|sink:4@B");  // Union of two parts, the second marked @B
//   auto p = mixgraph::make_pattern_within(s, 4096, 0, "pattern");  // mixgraph/pattern.hpp
//   std::string t = mixgraph::spec_text(s);                   // "pow2|sink:4@B": parses to the same tree
//
// Grammar (outermost first; each level as the builders read it):
//   stack:LIST               Stack: layers (mixgraph/stack.hpp has LIST; repetitions expanded)
//   heads:P1;P2;...          Heads: each head a spec below (a union or +cache allowed)
//   P+cache                  Cache: P a translation-invariant family or a union of them, no read marks
//   P1|P2|...                Union: each part a spec below, optionally ending in @A, @B or @AB
//   mtx:B.mtx | mtx:A.mtx,B.mtx   Matrix
//   NAME or NAME:PARAMS      Family: pow2 pow:b sq1 sq fib window:w local:w dilated:w,r strided:w,s ssm dense
//                            attention loglinear offsets:o1,... expr:<f(k)> sink:s global:s block:b
//                            bigbird:w,g,r[,seed] topk-blocks:b,k,FILE
// Parsing reads no file and depends on no n: what needs n (n >= 1, expr: values, the files) is checked when
// the tree is built or estimated.
#include <cstdint>
#include <string>
#include <vector>

namespace mixgraph {

enum class SpecKind {
  Family,  ///< one named family with its parameters
  Matrix,  ///< mtx: files
  Cache,   ///< the cache-efficient variant (Def. 4.10) of parts[0]
  Union,   ///< the union of parts' reads (each part with its read mark)
  Heads,   ///< heads:, parts = the heads
  Stack,   ///< stack:, parts = the layers, repetitions expanded
};
const char* to_string(SpecKind k);

struct PatternSpec {
  SpecKind kind = SpecKind::Family;
  /// The node's spec as written, blanks trimmed (a union part without its read mark): the text error
  /// messages quote and Pattern::spec keeps. Not part of the tree's identity (operator== ignores it).
  std::string text;
  /// Family: the name as written ("pow2", "window", "global", "topk-blocks", ...).
  std::string family;
  /// Family: the integer parameters in order (window:w {w}; dilated:w,r {w, r}; bigbird:w,g,r[,seed] 3 or 4
  /// values; topk-blocks:b,k,FILE {b, k}; offsets: the list as written; none for pow2, ssm, ...).
  std::vector<std::uint64_t> params;
  /// Family: expr: the expression (text after "expr:"), topk-blocks: the score file; else empty.
  std::string arg;
  /// Matrix: the B file, and the A file of mtx:A.mtx,B.mtx (empty for mtx:B.mtx).
  std::string b_file, a_file;
  /// Cache: {base}; Union: the parts; Heads: the heads; Stack: the layers (L entries).
  std::vector<PatternSpec> parts;
  /// As a union part: the matrices it is read through (both unless marked @A or @B), and whether a mark
  /// was written (@AB included).
  bool read_a = true, read_b = true, marked = false;
  /// Stack: the layers were separated by ',' (error messages then hint at ';').
  bool stack_commas = false;

  bool is_matrix() const { return kind == SpecKind::Matrix; }
  bool is_stack() const { return kind == SpecKind::Stack; }
  /// Some piece (this node, a part, head or layer, at any depth) is an mtx: matrix: n may come from its
  /// files, so a command need not be given n. O(size of the tree).
  bool has_matrix() const;
  /// Family: the name is one of the translation-invariant families (offsets f(k)).
  bool translation_invariant_family() const;
  /// Family: one of the explicit-row families (sink, global, block, bigbird, topk-blocks).
  bool explicit_family() const;
};

/// Same tree: kinds, names, parameters, files, parts and marks (text and stack_commas aside).
bool operator==(const PatternSpec& x, const PatternSpec& y);

/// Parse a spec (blanks around it and its pieces ignored). allow_stack = false refuses stack: with
/// stack_refusal's message (a command or position that takes single-layer patterns). Throws UsageError,
/// with the message the builder gave before parsing was separated from building. O(length of the spec +
/// the stack's expanded layers); reads no file.
PatternSpec parse_pattern_spec(const std::string& spec, bool allow_stack = true);

/// The canonical text of a tree: parse_pattern_spec(spec_text(s)) == s. Parameters in decimal, no blanks,
/// a stack's layers expanded and separated by ';'.
std::string spec_text(const PatternSpec& s);

/// The tree of base+cache (a Cache node over base, its text base's with "+cache"), built without parsing:
/// what parse_pattern_spec(base's text + "+cache") gives. Throws UsageError unless base is a
/// translation-invariant family or an unmarked union of them. O(size of base).
PatternSpec cache_of(const PatternSpec& base);

/// The f(k) < n values of a translation-invariant family or a union of them (sorted, distinct): the
/// offsets a +cache rounds. Throws UsageError for other nodes (with f_values_for's messages) and for
/// expr: values docs/math.md §2 refuses.
std::vector<std::uint64_t> f_values_for(const PatternSpec& s, std::uint64_t n);

/// Upper-bound estimate of the bytes make_pattern (or make_stack) and cache_profile need for the tree at n,
/// without building anything: the profile's per-position arrays (7 words each with per_position, else 5),
/// the offsets of implicit families, the rows of bigbird: and topk-blocks:, of a union or heads: with an
/// explicit part (the parts kept until merged, and the merged rows), the cached rows of +cache from its
/// offsets, each distinct layer of a stack. Not counted, as their builders check their rows against the
/// limit before allocating (a message naming the explicit reads): the rows of sink:, global: and block:
/// alone, and mtx: files (their reader checks its size); with n = 0 and an mtx: piece (n from the files)
/// the profile alone. Throws UsageError when n is out of range (validate_n) or an expr: value is refused.
/// O(number of offsets + size of the tree).
std::uint64_t estimate_pattern_bytes(const PatternSpec& s, std::uint64_t n, bool per_position);

/// What a pattern build must fit in memory: `copies` times estimate_pattern_bytes at n (copies the caller
/// keeps, e.g. 3 for a pattern with its weights) plus `extra_bytes` of the caller's own (X and Y of a solve).
/// `n_name` is how the message names n ("n", "2N", "the sweep's largest n", ...).
struct PatternBudget {
  bool per_position = false;
  std::uint64_t copies = 1;
  std::uint64_t extra_bytes = 0;
  std::string n_name = "n";
};

/// The guarded build's check (make_pattern_within in mixgraph/pattern.hpp builds after it): throws
/// MemoryRefused, before anything is allocated, when the budget at n exceeds mem_limit (0 = the physical
/// memory; check_memory in mixgraph/memory.hpp), naming "<label> at <n_name> = <n>". Saturating arithmetic.
/// O(number of offsets + size of the tree).
void check_pattern_memory(const PatternSpec& s, std::uint64_t n, std::uint64_t mem_limit,
                          const std::string& label, const PatternBudget& budget = {});

/// For tests: how many times parse_pattern_spec has run in this process (nested pieces not counted), so a
/// test can check that a walk of a spec parses it once. O(1), thread-safe.
std::uint64_t spec_parse_count();

}  // namespace mixgraph
