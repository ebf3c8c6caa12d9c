#include "mixgraph/pattern.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include "core/text_util.hpp"
#include "mixgraph/cancel.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/mtx.hpp"
#include "mixgraph/stack.hpp"
#include "mixgraph/sweep.hpp"
#include "pattern/pattern_families.hpp"

namespace mixgraph {

namespace {

constexpr std::uint64_t kMaxN = std::numeric_limits<pos_t>::max() - 1;  // positions fit in 32 bits

}  // namespace

void validate_n(std::uint64_t n) {
  if (n < 1) throw UsageError("n must be >= 1 (got " + std::to_string(n) + ")");
  if (n > kMaxN)
    throw UsageError("n = " + std::to_string(n) +
                     " is too large: positions must fit in 32 bits (n <= " + std::to_string(kMaxN) + ")");
}

namespace {

std::vector<pos_t> to_pos(const std::vector<std::uint64_t>& v) {
  std::vector<pos_t> out(v.size());
  std::transform(v.begin(), v.end(), out.begin(), [](std::uint64_t x) { return static_cast<pos_t>(x); });
  return out;
}

/// Append row `r` (0-indexed columns, ascending) to a CSR under construction.
void push_row(Csr& m, const std::vector<pos_t>& r) {
  m.idx.insert(m.idx.end(), r.begin(), r.end());
  m.ptr.push_back(m.idx.size());
}

Csr empty_csr(pos_t n) {
  Csr m;
  m.n = n;
  m.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  return m;
}

}  // namespace

const char* to_string(PatternFamily f) {
  switch (f) {
    case PatternFamily::TranslationInvariant:
      return "translation-invariant";
    case PatternFamily::CacheEfficient:
      return "cache-efficient";
    case PatternFamily::Matrix:
      return "matrix";
  }
  return "?";
}

const char* to_string(AMode m) {
  switch (m) {
    case AMode::Shared:
      return "shared";
    case AMode::Diagonal:
      return "diagonal";
    case AMode::Explicit:
      return "explicit";
  }
  return "?";
}

bool Pattern::b_empty() const {
  return translation_invariant() ? b_offsets.empty() : b.nnz() == 0;
}

std::string pattern_name_help() {
  return "pow2, pow:b, sq1, sq, fib, window:w, dilated:w,r, strided:w,s, ssm, dense, local:w, attention, "
         "loglinear, sink:s, global:g, block:b, bigbird:w,g,r[,seed], topk-blocks:b,k,SCORES.npy, "
         "expr:<f(k)>, "
         "offsets:o1,o2,..., mtx:B.mtx, mtx:A.mtx,B.mtx, <translation-invariant pattern>+cache, unions "
         "P1|P2|... (a part may end in @A / @B / @AB: read through A / B / both) and heads:P1;P2;...";
}

Csr cache_efficient_reads(const std::vector<std::uint64_t>& f, pos_t n) {
  Csr m;
  m.n = n;
  m.ptr.reserve(static_cast<std::size_t>(n) + 1);
  m.ptr.push_back(0);
  nnz_t est = 0;
  for (auto v : f)
    if (v < n) est += n - v;
  m.idx.reserve(est);
  const std::atomic<bool>* stop = cancel_flag();
  std::vector<pos_t> prev, cur;  // prev = S_{i-1} (0-indexed, ascending, includes i-1)
  for (pos_t i = 0; i < n; ++i) {
    if ((i & 1023) == 0) throw_if_cancelled(stop);
    cur.clear();
    std::size_t p = prev.size();
    for (std::size_t k = 0; k < f.size() && f[k] <= i; ++k) {
      const pos_t t = static_cast<pos_t>(i - f[k]);  // targets descend as k grows
      while (p > 0 && prev[p - 1] >= t) --p;
      const pos_t v = p < prev.size() ? prev[p] : i;  // min of [t, inf) ∩ (S_{i-1} ∪ {i})
      if (v != i && (cur.empty() || cur.back() != v)) cur.push_back(v);
    }
    std::reverse(cur.begin(), cur.end());
    push_row(m, cur);
    prev.swap(cur);
    prev.push_back(i);
  }
  return m;
}

std::vector<std::uint64_t> closed_form_factors(const std::vector<std::uint64_t>& f) {
  std::vector<std::uint64_t> a;
  if (f.empty()) return a;
  a.push_back(1);
  for (std::size_t k = 0; k + 1 < f.size(); ++k) {
    const std::uint64_t gap = f[k + 1] - f[k];
    a.push_back(a[k] * ((gap + a[k] - 1) / a[k]));
  }
  return a;
}

std::optional<Csr> cache_efficient_closed_form(const std::vector<std::uint64_t>& f, pos_t n) {
  if (f.empty() || f[0] != 1) return std::nullopt;
  const auto a = closed_form_factors(f);
  Csr m;
  m.n = n;
  m.ptr.push_back(0);
  std::vector<pos_t> row;
  const std::atomic<bool>* stop = cancel_flag();
  for (std::uint64_t i = 1; i <= n; ++i) {  // 1-indexed position
    if ((i & 1023) == 0) throw_if_cancelled(stop);
    row.clear();
    for (std::size_t k = 0; k < f.size() && f[k] < i; ++k) {
      const std::uint64_t v = a[k] * ((i - f[k] + a[k] - 1) / a[k]);
      row.push_back(static_cast<pos_t>(v - 1));
    }
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    push_row(m, row);
  }
  return m;
}

namespace {

Pattern make_translation_invariant(const PatternSpec& s, std::uint64_t n) {
  Pattern p;
  p.spec = s.text;
  p.base = s.text;
  p.family = PatternFamily::TranslationInvariant;
  p.n = static_cast<pos_t>(n);
  p.f_values = f_values_for(s, n);
  if (s.kind == SpecKind::Family && s.family == "ssm") {
    p.a_mode = AMode::Diagonal;
    p.b_offsets = to_pos(p.f_values);
  } else if (s.kind == SpecKind::Family &&
             (s.family == "local" || s.family == "attention" || s.family == "loglinear")) {
    p.a_mode = AMode::Explicit;
    p.a_offsets.push_back(0);
    for (auto v : p.f_values) p.a_offsets.push_back(static_cast<pos_t>(v));
  } else {
    p.a_mode = AMode::Shared;
    p.b_offsets = to_pos(p.f_values);
  }
  return p;
}

Pattern make_cache_efficient(const PatternSpec& s, std::uint64_t n) {
  const PatternSpec& base = s.parts.at(0);
  Pattern t =
      base.kind == SpecKind::Union ? detail::make_union(base, n) : make_translation_invariant(base, n);
  if (!t.translation_invariant())
    throw UsageError("pattern '" + s.text +
                     "': '+cache' applies to translation-invariant patterns only; the union '" + base.text +
                     "' is not (its parts must all be translation-invariant with one A mode)");
  Pattern p;
  p.spec = s.text;
  p.base = base.text;
  p.family = PatternFamily::CacheEfficient;
  p.a_mode = t.a_mode;
  p.n = t.n;
  p.f_values = t.f_values;
  Csr reads = cache_efficient_reads(p.f_values, p.n);
  if (t.a_mode == AMode::Explicit) {  // A-only (local:w, attention): the rounding applies to A's reads
    p.b = empty_csr(p.n);
    Csr a;
    a.n = p.n;
    a.ptr.reserve(p.n + 1);
    a.ptr.push_back(0);
    a.idx.reserve(reads.nnz() + p.n);
    const std::atomic<bool>* stop = cancel_flag();
    for (pos_t i = 0; i < p.n; ++i) {
      if ((i & 4095) == 0) throw_if_cancelled(stop);
      auto r = reads.row(i);
      a.idx.insert(a.idx.end(), r.begin(), r.end());
      a.idx.push_back(i);
      a.ptr.push_back(a.idx.size());
    }
    p.a = std::move(a);
  } else {
    p.b = std::move(reads);
  }
  return p;
}

Pattern make_matrix(const PatternSpec& s, std::uint64_t n) {
  const std::string& spec = s.text;
  Pattern p;
  p.spec = spec;
  p.base = spec;
  p.family = PatternFamily::Matrix;
  if (s.a_file.empty()) {
    p.b = read_mtx_triangular(s.b_file, Triangle::StrictlyLower);
    p.a_mode = AMode::Shared;
  } else {
    p.a = read_mtx_triangular(s.a_file, Triangle::Lower);
    p.b = read_mtx_triangular(s.b_file, Triangle::StrictlyLower);
    if (p.a.n != p.b.n)
      throw InputError("pattern '" + spec + "': A is " + std::to_string(p.a.n) + " x " +
                       std::to_string(p.a.n) + " but B is " + std::to_string(p.b.n) + " x " +
                       std::to_string(p.b.n) + "; they must have equal sizes");
    p.a_mode = AMode::Explicit;
  }
  p.n = p.b.n;
  if (n != 0 && n != p.n)
    throw UsageError("pattern '" + spec + "' has n = " + std::to_string(p.n) + " from its file(s), but --n " +
                     std::to_string(n) + " was given; leave --n out or make it match");
  return p;
}

Pattern build_pattern(const PatternSpec& s, std::uint64_t n) {
  switch (s.kind) {
    case SpecKind::Stack:
      throw UsageError(stack_refusal(s.text));  // layers: mixgraph/stack.hpp
    case SpecKind::Heads:
      return detail::make_heads(s, n);
    case SpecKind::Cache:
      validate_n(n);
      return make_cache_efficient(s, n);
    case SpecKind::Union:
      return detail::make_union(s, n);
    case SpecKind::Matrix:
      return make_matrix(s, n);
    case SpecKind::Family:
      break;
  }
  if (s.family == "sink" || s.family == "global") return detail::make_sink(s, n);
  if (s.family == "block") return detail::make_block(s, n);
  if (s.family == "bigbird") return detail::make_bigbird(s, n);
  if (s.family == "topk-blocks") return detail::make_topk_blocks(s, n);
  validate_n(n);
  return make_translation_invariant(s, n);
}

}  // namespace

Pattern make_pattern(const PatternSpec& s, std::uint64_t n) {
  Pattern p = build_pattern(s, n);
  p.tree = s;
  return p;
}

Pattern make_pattern_within(const PatternSpec& spec, std::uint64_t n, std::uint64_t mem_limit,
                            const std::string& label, const PatternBudget& budget) {
  check_pattern_memory(spec, n, mem_limit, label, budget);
  return make_pattern(spec, n);
}

Pattern make_pattern(const std::string& spec, std::uint64_t n) {
  return make_pattern(parse_pattern_spec(spec, false), n);
}

}  // namespace mixgraph
