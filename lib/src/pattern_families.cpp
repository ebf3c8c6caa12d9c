#include "pattern_families.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <vector>

#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"

namespace mixgraph::detail {

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\n\r");
  auto e = s.find_last_not_of(" \t\n\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

template <class T>
std::vector<T> sorted_union(const std::vector<T>& x, const std::vector<T>& y) {
  std::vector<T> out;
  out.reserve(x.size() + y.size());
  std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  return out;
}

/// Rows of a CSR built from a per-row read function (each call appends ascending reads of row i).
template <class F>
Csr merged_rows(const std::vector<Pattern>& parts, pos_t n, F&& reads) {
  Csr m;
  m.n = n;
  m.ptr.reserve(static_cast<std::size_t>(n) + 1);
  m.ptr.push_back(0);
  std::vector<pos_t> acc, one, tmp;
  for (pos_t i = 0; i < n; ++i) {
    acc.clear();
    for (const auto& p : parts) {
      one.clear();
      reads(p, i, one);
      tmp.clear();
      std::set_union(acc.begin(), acc.end(), one.begin(), one.end(), std::back_inserter(tmp));
      acc.swap(tmp);
    }
    m.idx.insert(m.idx.end(), acc.begin(), acc.end());
    m.ptr.push_back(m.idx.size());
  }
  return m;
}

}  // namespace

namespace {

std::uint64_t parse_positive(const std::string& spec) {
  const std::string text = spec.substr(spec.find(':') + 1);
  std::uint64_t s = 0;
  const std::string t = trim(text);
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), s);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
    throw UsageError("pattern '" + spec + "': '" + text + "' is not a positive integer");
  if (s < 1) throw UsageError("pattern '" + spec + "': parameter must be >= 1, got " + std::to_string(s));
  return s;
}

/// Refuses (against --mem-limit) explicit rows of `reads` entries and `mats` row-pointer arrays at n, before
/// they are allocated.
void check_reads_memory(const std::string& spec, std::uint64_t n, std::uint64_t reads, std::uint64_t mats) {
  const std::uint64_t bytes =
      sat_add(sat_mul(reads, sizeof(pos_t)), sat_mul(sat_mul(n + 1, sizeof(nnz_t)), mats));
  check_memory(bytes, 0,
               "pattern '" + spec + "' at n = " + std::to_string(n) + " (" + std::to_string(reads) +
                   " explicit reads)");
}

/// Reads of one translation-invariant matrix: sum of n - o over its offsets o < n.
std::uint64_t offset_reads(const std::vector<pos_t>& offs, std::uint64_t n) {
  std::uint64_t r = 0;
  for (pos_t o : offs)
    if (o < n) r = sat_add(r, n - o);
  return r;
}

/// B reads and A reads (explicit, shared or diagonal) of a built pattern.
std::pair<std::uint64_t, std::uint64_t> part_reads(const Pattern& q) {
  const std::uint64_t n = q.n;
  const std::uint64_t b = q.translation_invariant() ? offset_reads(q.b_offsets, n) : q.b.nnz();
  if (q.a_mode == AMode::Explicit)
    return {b, q.translation_invariant() ? offset_reads(q.a_offsets, n) : q.a.nnz()};
  return {b, q.a_mode == AMode::Shared ? sat_add(b, n) : n};
}

/// An explicit-read pattern on n positions with no reads yet (family Matrix); the caller fills its rows.
Pattern explicit_pattern(const std::string& spec, std::uint64_t n, AMode a_mode) {
  validate_n(n);
  Pattern p;
  p.spec = spec;
  p.base = spec;
  p.family = PatternFamily::Matrix;
  p.a_mode = a_mode;
  p.n = static_cast<pos_t>(n);
  p.b.n = p.n;
  return p;
}

}  // namespace

Pattern make_block(const std::string& spec, std::uint64_t n) {
  const std::uint64_t b = parse_positive(spec);
  Pattern p = explicit_pattern(spec, n, AMode::Explicit);
  // Row i (0-indexed) reads i % b + 1 positions: n / b whole blocks of b (b + 1) / 2, then the rest.
  const std::uint64_t whole = n / b, rest = n % b;
  check_reads_memory(
      spec, n, sat_add(sat_mul(whole, whole ? sat_mul(b, b + 1) / 2 : 0), sat_mul(rest, rest + 1) / 2), 2);
  p.b.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  p.a.n = p.n;
  p.a.ptr.reserve(static_cast<std::size_t>(n) + 1);
  p.a.ptr.push_back(0);
  for (pos_t i = 0; i < p.n; ++i) {
    const pos_t start = static_cast<pos_t>(i - i % b);  // 0-indexed first position of i's block
    for (pos_t j = start; j <= i; ++j) p.a.idx.push_back(j);
    p.a.ptr.push_back(p.a.idx.size());
  }
  return p;
}

Pattern make_sink(const std::string& spec, std::uint64_t n) {
  const std::uint64_t s = parse_positive(spec);
  Pattern p = explicit_pattern(spec, n, AMode::Shared);
  // Row i (0-indexed) reads min(i, s) positions.
  check_reads_memory(spec, n, s >= n ? n * (n - 1) / 2 : s * (s - 1) / 2 + (n - s) * s, 1);
  p.b.ptr.reserve(static_cast<std::size_t>(n) + 1);
  p.b.ptr.push_back(0);
  for (pos_t i = 0; i < p.n; ++i) {
    for (pos_t j = 0; j < i && j < s; ++j) p.b.idx.push_back(j);
    p.b.ptr.push_back(p.b.idx.size());
  }
  return p;
}

Pattern make_union(const std::string& spec, std::uint64_t n) {
  std::vector<std::string> texts;
  for (std::size_t start = 0;;) {
    const auto bar = spec.find('|', start);
    texts.push_back(trim(spec.substr(start, bar == std::string::npos ? std::string::npos : bar - start)));
    if (texts.back().empty())
      throw UsageError("pattern '" + spec + "': empty part in a union; write P1|P2|...");
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  // mtx: parts first: they fix n (all must agree, and match n when it is given).
  std::vector<Pattern> parts(texts.size());
  std::uint64_t n_eff = n;
  std::string n_from;
  for (std::size_t k = 0; k < texts.size(); ++k) {
    if (texts[k].rfind("mtx:", 0) != 0) continue;
    parts[k] = make_pattern(texts[k], n);  // checks a given n itself
    if (n_eff == 0) {
      n_eff = parts[k].n;
      n_from = texts[k];
    }
    if (parts[k].n != n_eff)
      throw InputError("pattern '" + spec + "': '" + texts[k] + "' has n = " + std::to_string(parts[k].n) +
                       " but '" + n_from + "' has n = " + std::to_string(n_eff) +
                       "; union parts must have equal n");
  }
  for (std::size_t k = 0; k < texts.size(); ++k)
    if (texts[k].rfind("mtx:", 0) != 0) parts[k] = make_pattern(texts[k], n_eff);

  Pattern p;
  p.spec = spec;
  p.base = spec;
  p.n = parts[0].n;
  const bool ti = std::all_of(parts.begin(), parts.end(), [&](const Pattern& q) {
    return q.translation_invariant() && q.a_mode == parts[0].a_mode;
  });
  if (ti) {
    p.family = PatternFamily::TranslationInvariant;
    p.a_mode = parts[0].a_mode;
    for (const auto& q : parts) {
      p.f_values = sorted_union(p.f_values, q.f_values);
      p.b_offsets = sorted_union(p.b_offsets, q.b_offsets);
      p.a_offsets = sorted_union(p.a_offsets, q.a_offsets);
    }
    return p;
  }
  p.family = PatternFamily::Matrix;
  const bool shared =
      std::all_of(parts.begin(), parts.end(), [](const Pattern& q) { return q.a_mode == AMode::Shared; });
  p.a_mode = shared ? AMode::Shared : AMode::Explicit;
  // The merged rows hold at most the parts' reads (and at most every earlier position).
  const std::uint64_t n64 = p.n;
  std::uint64_t b_reads = 0, a_reads = 0;
  for (const auto& q : parts) {
    const auto [b, a] = part_reads(q);
    b_reads = sat_add(b_reads, b);
    a_reads = sat_add(a_reads, a);
  }
  b_reads = std::min(b_reads, n64 ? sat_mul(n64, n64 - 1) / 2 : 0);
  a_reads = shared ? 0 : std::min(a_reads, sat_mul(n64, n64 + 1) / 2);
  check_reads_memory(spec, n64, sat_add(b_reads, a_reads), shared ? 1 : 2);
  p.b = merged_rows(parts, p.n, [](const Pattern& q, pos_t i, std::vector<pos_t>& out) {
    for_each_b_read(q, i, [&](pos_t j) { out.push_back(j); });
  });
  if (!shared)
    p.a = merged_rows(parts, p.n, [](const Pattern& q, pos_t i, std::vector<pos_t>& out) {
      for_each_a_read(q, i, [&](pos_t j) { out.push_back(j); });
    });
  return p;
}

}  // namespace mixgraph::detail
