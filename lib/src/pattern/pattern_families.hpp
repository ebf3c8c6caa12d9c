#pragma once
// Explicit-read pattern families (sink:s, global:g, block:b, bigbird:w,g,r, topk-blocks:b,k,FILE), the
// union operator P1|P2|... and heads:P1;P2;...; see docs/math.md §2.
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/pattern.hpp"
#include "mixgraph/pattern_spec.hpp"

namespace mixgraph::detail {

/// sink:s (alias global:s): 1-indexed token i reads 1..min(s, i - 1) through B, shared A. O(n min(s, n)).
Pattern make_sink(const PatternSpec& spec, std::uint64_t n);

/// block:b: 1-indexed token i reads every j <= i with ceil(j / b) = ceil(i / b) through A (i included), B
/// empty. O(n min(b, n)).
Pattern make_block(const PatternSpec& spec, std::uint64_t n);

/// P1|P2|...: reads = the union of the parts' reads, B and A separately. Translation-invariant when every
/// part is, with one A mode; else explicit CSR rows merged part by part (O(n + sum of the parts' reads)).
/// n = 0 takes n from the mtx: parts (all must agree).
/// A part may end in a read mark @A, @B or @AB: the union's A reads are the A reads of the parts marked @A or
/// @AB (or unmarked), its B reads the B reads of the parts marked @B or @AB (or unmarked). With every part
/// unmarked or @AB this is the plain union above. A marked union is translation-invariant when every part is
/// and its offset sets give a shared, diagonal or B-empty pattern; else explicit rows.
Pattern make_union(const PatternSpec& spec, std::uint64_t n);

/// A union part split from its read mark: `text` without a trailing @A / @B / @AB (trimmed), and which
/// matrices it reads through (both when unmarked).
struct MarkedPart {
  std::string text;
  bool a = true, b = true;
  bool marked = false;  ///< a mark was written (@AB included)
};

/// Splits a trailing read mark off `part` of `spec`. Throws UsageError for an '@' that is not one of the
/// marks (outside mtx: and topk-blocks: parts, whose file names may hold '@').
MarkedPart split_read_mark(const std::string& spec, const std::string& part);

/// bigbird:w,g,r[,seed]: 1-indexed token i reads through B (shared A) i-1..i-w, the globals 1..min(g, i-1),
/// and min(r, m_i) positions drawn without replacement from the m_i = max(0, i-w-1-g) others
/// (bigbird_random_reads). O(n (w + g + r)).
Pattern make_bigbird(const PatternSpec& spec, std::uint64_t n);

/// The random part of row t (0-indexed) of bigbird: min(r, m) distinct candidates c in [0, m), ascending,
/// by Floyd's sampling driven by splitmix64 seeded with seed XOR (t + 1) * 0xD1B54A32D192ED03; uniform
/// integers by rejection (docs/math.md §2 gives the exact recipe). Reproducible across platforms.
std::vector<std::uint64_t> bigbird_random_reads(std::uint64_t seed, std::uint64_t t, std::uint64_t m,
                                                std::uint64_t r);

/// topk-blocks:b,k,FILE.npy: block q (0-indexed, blocks of b positions) reads through A its own block
/// (causally) and, whole, the k - 1 earlier blocks with the highest scores S[q, 0..q-1] (ties: lower index);
/// B empty. S is read from the .npy (shape ceil(n/b) x ceil(n/b); entries above the diagonal unused).
Pattern make_topk_blocks(const PatternSpec& spec, std::uint64_t n);

/// The key blocks block q selects, ascending (q included): the rule of make_topk_blocks on one row of scores.
std::vector<std::uint64_t> topk_block_choice(const double* scores_row, std::uint64_t q, std::uint64_t k);

/// heads:P1;P2;...: the union of the heads' reads (as P1|P2|... but each head parsed whole, so a head may be
/// a union or end in +cache); Pattern::heads lists the head specs.
Pattern make_heads(const PatternSpec& spec, std::uint64_t n);

/// Upper bound on the bytes make_pattern needs for the families above (and heads:), or 0 when spec is none
/// of them. Reads no file: topk-blocks counts at most n min(k b, n) reads.
std::uint64_t estimate_family_bytes(const PatternSpec& spec, std::uint64_t n);

/// parse_pattern_spec without counting (its pieces: union parts, heads, a stack's layers).
PatternSpec parse_spec_piece(const std::string& spec, bool allow_stack);

}  // namespace mixgraph::detail
