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

bool starts_with(const std::string& s, const std::string& p) {
  return s.rfind(p, 0) == 0;
}
bool ends_with(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

using detail::trim;

std::uint64_t parse_param(const std::string& spec, const std::string& text, std::uint64_t min_value) {
  std::uint64_t v = 0;
  auto t = trim(text);
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
    throw UsageError("pattern '" + spec + "': '" + text + "' is not a positive integer");
  if (v < min_value)
    throw UsageError("pattern '" + spec + "': parameter must be >= " + std::to_string(min_value) + ", got " +
                     std::to_string(v));
  return v;
}

/// "name:x,y" -> {x, y}, each >= 1.
std::pair<std::uint64_t, std::uint64_t> parse_two_params(const std::string& spec, const std::string& form) {
  const std::string text = spec.substr(spec.find(':') + 1);
  const auto comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
    throw UsageError("pattern '" + spec + "': give " + form + " (two positive integers)");
  return {parse_param(spec, text.substr(0, comma), 1), parse_param(spec, text.substr(comma + 1), 1)};
}

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

std::vector<std::uint64_t> f_values_for(const std::string& spec_in, std::uint64_t n) {
  if (spec_in.find('|') == std::string::npos) {  // a union part: @AB is the plain part
    const auto m = detail::split_read_mark(spec_in, spec_in);
    if (!(m.a && m.b))
      throw UsageError("pattern part '" + trim(spec_in) +
                       "' reads through one matrix only: it has no offsets f(k) of its own, and a trailing "
                       "'+cache' is not defined with read marks @A / @B; mark a cached part instead, e.g. "
                       "ssm@B|pow2+cache@AB");
    if (m.marked) return f_values_for(m.text, n);
  }
  const std::string spec = trim(spec_in);
  std::vector<std::uint64_t> f;
  if (const auto bar = spec.find('|'); bar != std::string::npos) {  // a union: the union of the offsets
    const auto x = f_values_for(spec.substr(0, bar), n), y = f_values_for(spec.substr(bar + 1), n);
    std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(f));
    return f;
  }
  auto gen = [&](auto&& next) {  // next(k) -> value, increasing
    for (std::uint64_t k = 0;; ++k) {
      std::uint64_t v = next(k);
      if (v >= n) break;
      f.push_back(v);
    }
  };
  if (spec == "pow2") {
    gen([](std::uint64_t k) { return k < 63 ? std::uint64_t{1} << k : ~std::uint64_t{0}; });
  } else if (starts_with(spec, "pow:")) {
    std::uint64_t b = parse_param(spec, spec.substr(4), 2);
    std::uint64_t v = 1;
    while (v < n) {
      f.push_back(v);
      if (v > n / b + 1) break;
      v *= b;
    }
  } else if (spec == "sq1") {
    gen([](std::uint64_t k) { return k * k + 1; });
  } else if (spec == "sq") {
    gen([](std::uint64_t k) { return (k + 1) * (k + 1); });
  } else if (spec == "fib") {
    std::uint64_t a = 1, b = 2;
    while (a < n) {
      f.push_back(a);
      std::uint64_t c = a + b;
      a = b;
      b = c;
    }
  } else if (starts_with(spec, "window:") || starts_with(spec, "local:")) {
    std::uint64_t w = parse_param(spec, spec.substr(spec.find(':') + 1), 1);
    for (std::uint64_t o = 1; o <= w && o < n; ++o) f.push_back(o);
  } else if (starts_with(spec, "dilated:")) {  // r, 2r, ..., w r
    const auto [w, r] = parse_two_params(spec, "dilated:w,r");
    for (std::uint64_t k = 1; k <= w && r < n && k * r < n; ++k) f.push_back(k * r);
  } else if (starts_with(spec, "strided:")) {  // 1..w and every multiple of s
    const auto [w, s] = parse_two_params(spec, "strided:w,s");
    for (std::uint64_t o = 1; o <= w && o < n; ++o) f.push_back(o);
    if (w < n)  // multiples of s above w, ascending
      for (std::uint64_t o = (w / s + 1) * s; o < n; o += s) f.push_back(o);
  } else if (spec == "dense" || spec == "attention" || spec == "loglinear") {
    for (std::uint64_t o = 1; o < n; ++o) f.push_back(o);
  } else if (spec == "ssm") {
    if (n > 1) f.push_back(1);
  } else if (starts_with(spec, "offsets:")) {
    auto v = parse_uint_list(spec.substr(8), "pattern '" + spec + "'");
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    for (auto o : v)
      if (o < n) f.push_back(o);
  } else if (starts_with(spec, "expr:")) {
    f = evaluate_expression(spec.substr(5), n);
  } else if (starts_with(spec, "mtx:")) {
    throw UsageError("pattern '" + spec + "' is a matrix, not a translation-invariant pattern");
  } else if (starts_with(spec, "sink:") || starts_with(spec, "global:") || starts_with(spec, "block:") ||
             starts_with(spec, "bigbird:") || starts_with(spec, "topk-blocks:")) {
    throw UsageError("pattern '" + spec +
                     "' reads fixed positions, it is not a translation-invariant pattern");
  } else {
    throw UsageError("unknown pattern '" + spec + "'; valid patterns: " + pattern_name_help());
  }
  return f;
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

std::string single_mark_refusal(const std::string& spec) {
  return "pattern '" + spec +
         "': a read mark (@A, @B, @AB) marks a part of a union, e.g. window:128@A|sink:4@B; a pattern "
         "alone reads through its own A and B";
}

Pattern make_translation_invariant(const std::string& spec, std::uint64_t n) {
  Pattern p;
  p.spec = spec;
  p.base = spec;
  p.family = PatternFamily::TranslationInvariant;
  p.n = static_cast<pos_t>(n);
  p.f_values = f_values_for(spec, n);
  if (spec == "ssm") {
    p.a_mode = AMode::Diagonal;
    p.b_offsets = to_pos(p.f_values);
  } else if (starts_with(spec, "local:") || spec == "attention" || spec == "loglinear") {
    p.a_mode = AMode::Explicit;
    p.a_offsets.push_back(0);
    for (auto v : p.f_values) p.a_offsets.push_back(static_cast<pos_t>(v));
  } else {
    p.a_mode = AMode::Shared;
    p.b_offsets = to_pos(p.f_values);
  }
  return p;
}

Pattern make_cache_efficient(const std::string& spec, const std::string& base, std::uint64_t n) {
  if (base.empty()) throw UsageError("pattern '" + spec + "': '+cache' needs a pattern before it");
  if (base == "loglinear")
    throw UsageError("pattern '" + spec +
                     "': loglinear has no cache-efficient variant (rounding its reads would break its "
                     "Fenwick buckets); use attention+cache for the rounded dense mask");
  bool marked = false;  // read marks: +cache rounds one offset set, a marked union has two
  for (std::size_t at = 0; at <= base.size();) {
    const auto bar = std::min(base.find('|', at), base.size());
    const auto m = detail::split_read_mark(spec, base.substr(at, bar - at));
    if (m.marked && base.find('|') == std::string::npos) throw UsageError(single_mark_refusal(spec));
    marked = marked || !(m.a && m.b);  // @AB is the plain union
    at = bar + 1;
  }
  if (marked)
    throw UsageError("pattern '" + spec +
                     "': a trailing '+cache' covers the whole union and is not defined with read marks "
                     "@A / @B; mark a cached part instead, e.g. ssm@B|pow2+cache@AB");
  if (starts_with(base, "mtx:") || ends_with(base, "+cache"))
    throw UsageError("pattern '" + spec +
                     "': '+cache' applies to translation-invariant patterns only, not '" + base + "'");
  Pattern t =
      base.find('|') != std::string::npos ? detail::make_union(base, n) : make_translation_invariant(base, n);
  if (!t.translation_invariant())
    throw UsageError("pattern '" + spec +
                     "': '+cache' applies to translation-invariant patterns only; the union '" + base +
                     "' is not (its parts must all be translation-invariant with one A mode)");
  Pattern p;
  p.spec = spec;
  p.base = base;
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

Pattern make_matrix(const std::string& spec, std::uint64_t n) {
  const std::string files = spec.substr(4);
  if (files.empty()) throw UsageError("pattern '" + spec + "': give mtx:B.mtx or mtx:A.mtx,B.mtx");
  Pattern p;
  p.spec = spec;
  p.base = spec;
  p.family = PatternFamily::Matrix;
  const auto comma = files.find(',');
  if (comma == std::string::npos) {
    p.b = read_mtx_triangular(files, Triangle::StrictlyLower);
    p.a_mode = AMode::Shared;
  } else {
    const std::string fa = files.substr(0, comma), fb = files.substr(comma + 1);
    if (fa.empty() || fb.empty() || fb.find(',') != std::string::npos)
      throw UsageError("pattern '" + spec + "': give mtx:B.mtx or mtx:A.mtx,B.mtx");
    p.a = read_mtx_triangular(fa, Triangle::Lower);
    p.b = read_mtx_triangular(fb, Triangle::StrictlyLower);
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

}  // namespace

Pattern make_pattern(const std::string& spec_in, std::uint64_t n) {
  const std::string spec = trim(spec_in);
  if (spec.empty()) throw UsageError("empty pattern; valid patterns: " + pattern_name_help());
  if (starts_with(spec, "stack:")) throw UsageError(stack_refusal(spec));  // layers: mixgraph/stack.hpp
  if (starts_with(spec, "heads:"))
    return detail::make_heads(spec, n);  // outermost: heads may hold | and +cache
  if (ends_with(spec, "+cache")) {       // a trailing +cache is always the cache-efficient suffix
    if (starts_with(trim(spec.substr(0, spec.size() - 6)), "mtx:"))
      throw UsageError("pattern '" + spec +
                       "': +cache applies to translation-invariant patterns (offsets f(k)); an mtx: pattern "
                       "has no offsets, so it has no cache-efficient variant");
    validate_n(n);
    return make_cache_efficient(spec, trim(spec.substr(0, spec.size() - 6)), n);
  }
  if (spec.find('|') != std::string::npos) return detail::make_union(spec, n);
  if (detail::split_read_mark(spec, spec).marked) throw UsageError(single_mark_refusal(spec));
  if (starts_with(spec, "mtx:")) return make_matrix(spec, n);
  if (starts_with(spec, "sink:") || starts_with(spec, "global:")) return detail::make_sink(spec, n);
  if (starts_with(spec, "block:")) return detail::make_block(spec, n);
  if (starts_with(spec, "bigbird:")) return detail::make_bigbird(spec, n);
  if (starts_with(spec, "topk-blocks:")) return detail::make_topk_blocks(spec, n);
  validate_n(n);
  return make_translation_invariant(spec, n);
}

}  // namespace mixgraph
