#include "pattern/pattern_families.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <optional>
#include <vector>

#include "core/text_util.hpp"
#include "mixgraph/cancel.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/npy.hpp"

namespace mixgraph::detail {

namespace {

using detail::trim;

template <class T>
std::vector<T> sorted_union(const std::vector<T>& x, const std::vector<T>& y) {
  std::vector<T> out;
  out.reserve(x.size() + y.size());
  std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  return out;
}

/// Rows of a CSR built from a per-row read function (each call appends ascending reads of row i), over the
/// parts k with use[k] (every part when `use` is empty).
template <class F>
Csr merged_rows(const std::vector<Pattern>& parts, const std::vector<char>& use, pos_t n, F&& reads) {
  Csr m;
  m.n = n;
  m.ptr.reserve(static_cast<std::size_t>(n) + 1);
  m.ptr.push_back(0);
  std::vector<pos_t> acc, one, tmp;
  const std::atomic<bool>* stop = cancel_flag();
  for (pos_t i = 0; i < n; ++i) {
    if ((i & 1023) == 0) throw_if_cancelled(stop);
    acc.clear();
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (!use.empty() && !use[k]) continue;
      const Pattern& p = parts[k];
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

Pattern make_block(const PatternSpec& node, std::uint64_t n) {
  const std::string& spec = node.text;
  const std::uint64_t b = node.params.at(0);
  Pattern p = explicit_pattern(spec, n, AMode::Explicit);
  // Row i (0-indexed) reads i % b + 1 positions: n / b whole blocks of b (b + 1) / 2, then the rest.
  const std::uint64_t whole = n / b, rest = n % b;
  check_reads_memory(
      spec, n, sat_add(sat_mul(whole, whole ? sat_mul(b, b + 1) / 2 : 0), sat_mul(rest, rest + 1) / 2), 2);
  p.b.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  p.a.n = p.n;
  p.a.ptr.reserve(static_cast<std::size_t>(n) + 1);
  p.a.ptr.push_back(0);
  const std::atomic<bool>* stop = cancel_flag();
  for (pos_t i = 0; i < p.n; ++i) {
    if ((i & 4095) == 0) throw_if_cancelled(stop);
    const pos_t start = static_cast<pos_t>(i - i % b);  // 0-indexed first position of i's block
    for (pos_t j = start; j <= i; ++j) p.a.idx.push_back(j);
    p.a.ptr.push_back(p.a.idx.size());
  }
  return p;
}

Pattern make_sink(const PatternSpec& node, std::uint64_t n) {
  const std::string& spec = node.text;
  const std::uint64_t s = node.params.at(0);
  Pattern p = explicit_pattern(spec, n, AMode::Shared);
  // Row i (0-indexed) reads min(i, s) positions.
  check_reads_memory(spec, n, s >= n ? n * (n - 1) / 2 : s * (s - 1) / 2 + (n - s) * s, 1);
  p.b.ptr.reserve(static_cast<std::size_t>(n) + 1);
  p.b.ptr.push_back(0);
  const std::atomic<bool>* stop = cancel_flag();
  for (pos_t i = 0; i < p.n; ++i) {
    if ((i & 4095) == 0) throw_if_cancelled(stop);
    for (pos_t j = 0; j < i && j < s; ++j) p.b.idx.push_back(j);
    p.b.ptr.push_back(p.b.idx.size());
  }
  return p;
}

namespace {

/// Build every part on one n: parts with an mtx: piece first, as they fix n (all must agree, and match n when
/// given).
std::vector<Pattern> build_parts(const std::string& spec, const std::vector<PatternSpec>& nodes,
                                 std::uint64_t n, const std::string& kind) {
  std::vector<Pattern> parts(nodes.size());
  std::uint64_t n_eff = n;
  std::string n_from;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    if (!nodes[k].has_matrix()) continue;
    parts[k] = make_pattern(nodes[k], n);  // checks a given n itself
    if (n_eff == 0) {
      n_eff = parts[k].n;
      n_from = nodes[k].text;
    }
    if (parts[k].n != n_eff)
      throw InputError("pattern '" + spec + "': '" + nodes[k].text +
                       "' has n = " + std::to_string(parts[k].n) + " but '" + n_from +
                       "' has n = " + std::to_string(n_eff) + "; " + kind + " must have equal n");
  }
  for (std::size_t k = 0; k < nodes.size(); ++k)
    if (!nodes[k].has_matrix()) parts[k] = make_pattern(nodes[k], n_eff);
  return parts;
}

Pattern union_of(const std::string& spec, const std::vector<Pattern>& parts) {
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
  p.b = merged_rows(parts, {}, p.n, [](const Pattern& q, pos_t i, std::vector<pos_t>& out) {
    for_each_b_read(q, i, [&](pos_t j) { out.push_back(j); });
  });
  if (!shared)
    p.a = merged_rows(parts, {}, p.n, [](const Pattern& q, pos_t i, std::vector<pos_t>& out) {
      for_each_a_read(q, i, [&](pos_t j) { out.push_back(j); });
    });
  return p;
}

/// A translation-invariant part's A offsets (0 = the diagonal), whatever its A mode.
std::vector<pos_t> a_offsets_of(const Pattern& q) {
  if (q.a_mode == AMode::Explicit) return q.a_offsets;
  std::vector<pos_t> out{0};
  if (q.a_mode == AMode::Shared) out.insert(out.end(), q.b_offsets.begin(), q.b_offsets.end());
  return out;
}

/// The A mode that A's and B's reads give: shared when A reads B's positions and i (B not empty), diagonal
/// when A reads i alone, else explicit. Rows of a CSR A and B.
AMode a_mode_of_rows(const Csr& a, const Csr& b) {
  bool shared = b.nnz() > 0, diagonal = true;
  for (pos_t i = 0; i < a.n && (shared || diagonal); ++i) {
    const auto ra = a.row(i), rb = b.row(i);
    diagonal = diagonal && ra.size() == 1 && ra[0] == i;
    shared = shared && ra.size() == rb.size() + 1 && ra[rb.size()] == i &&
             std::equal(rb.begin(), rb.end(), ra.begin());
  }
  return shared ? AMode::Shared : diagonal ? AMode::Diagonal : AMode::Explicit;
}

/// The union with read marks (make_union): A from the parts with m.a, B from those with m.b.
Pattern marked_union_of(const std::string& spec, const std::vector<Pattern>& parts,
                        const std::vector<PatternSpec>& marks) {
  std::vector<char> use_a(parts.size()), use_b(parts.size());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    use_a[k] = marks[k].read_a;
    use_b[k] = marks[k].read_b;
    // an A-only family (explicit A, no B reads at any n): @B would leave it nothing
    if (marks[k].read_b && !marks[k].read_a && parts[k].a_mode == AMode::Explicit && parts[k].b_empty())
      throw UsageError("pattern '" + spec + "': part '" + marks[k].text +
                       "' is marked @B but reads nothing through B (all its reads are through A); mark it "
                       "@A or @AB");
  }
  if (std::none_of(use_a.begin(), use_a.end(), [](char c) { return c != 0; }))
    throw UsageError("pattern '" + spec +
                     "': no part reads through A, so the mixer would never read its input; mark at least "
                     "one part @A or @AB");
  Pattern p;
  p.spec = spec;
  p.base = spec;
  p.n = parts[0].n;
  if (std::all_of(parts.begin(), parts.end(), [](const Pattern& q) { return q.translation_invariant(); })) {
    std::vector<pos_t> a, b;
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (use_a[k]) a = sorted_union(a, a_offsets_of(parts[k]));
      if (use_b[k]) b = sorted_union(b, parts[k].b_offsets);
    }
    std::vector<pos_t> shared{0};
    shared.insert(shared.end(), b.begin(), b.end());
    const bool diagonal = a == std::vector<pos_t>{0};
    if ((!b.empty() && a == shared) || diagonal || b.empty()) {  // one offset set: translation-invariant
      p.family = PatternFamily::TranslationInvariant;
      p.a_mode = diagonal ? AMode::Diagonal : b.empty() ? AMode::Explicit : AMode::Shared;
      if (p.a_mode == AMode::Explicit) {
        p.a_offsets = a;
        for (pos_t o : a)
          if (o > 0) p.f_values.push_back(o);
      } else {
        p.b_offsets = b;
        p.f_values.assign(b.begin(), b.end());
      }
      return p;
    }
  }
  p.family = PatternFamily::Matrix;
  const std::uint64_t n64 = p.n;
  std::uint64_t b_reads = 0, a_reads = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const auto [b, a] = part_reads(parts[k]);
    if (use_b[k]) b_reads = sat_add(b_reads, b);
    if (use_a[k]) a_reads = sat_add(a_reads, a);
  }
  b_reads = std::min(b_reads, n64 ? sat_mul(n64, n64 - 1) / 2 : 0);
  a_reads = std::min(a_reads, sat_mul(n64, n64 + 1) / 2);
  check_reads_memory(spec, n64, sat_add(b_reads, a_reads), 2);
  p.b = merged_rows(parts, use_b, p.n, [](const Pattern& q, pos_t i, std::vector<pos_t>& out) {
    for_each_b_read(q, i, [&](pos_t j) { out.push_back(j); });
  });
  p.a = merged_rows(parts, use_a, p.n, [](const Pattern& q, pos_t i, std::vector<pos_t>& out) {
    for_each_a_read(q, i, [&](pos_t j) { out.push_back(j); });
  });
  p.a_mode = a_mode_of_rows(p.a, p.b);
  if (p.a_mode != AMode::Explicit) p.a = Csr{};  // A follows from B (shared) or is the diagonal
  return p;
}

}  // namespace

namespace {

/// The read mark `text` ends in ("@AB", "@A" or "@B"), or nullptr.
const char* trailing_read_mark(const std::string& text) {
  for (const char* mark : {"@AB", "@A", "@B"}) {
    const std::string s(mark);
    if (text.size() >= s.size() && text.compare(text.size() - s.size(), s.size(), s) == 0) return mark;
  }
  return nullptr;
}

}  // namespace

MarkedPart split_read_mark(const std::string& spec, const std::string& part_in) {
  MarkedPart m;
  m.text = trim(part_in);
  if (const char* mark = trailing_read_mark(m.text)) {
    m.marked = true;
    m.a = mark[1] == 'A';
    m.b = mark[1] == 'B' || mark[2] == 'B';
    m.text = trim(m.text.substr(0, m.text.size() - std::string(mark).size()));
  }
  const bool file_part = m.text.rfind("mtx:", 0) == 0 || m.text.rfind("topk-blocks:", 0) == 0;
  if (const auto at = m.text.find('@'); at != std::string::npos && !file_part)
    throw UsageError("pattern '" + spec + "': part '" + trim(part_in) + "' has an unknown read mark '" +
                     m.text.substr(at) + "'; end a union part with @A, @B or @AB");
  return m;
}

Pattern make_union(const PatternSpec& node, std::uint64_t n) {
  const bool restricted = std::any_of(node.parts.begin(), node.parts.end(), [](const PatternSpec& q) {
    return !(q.read_a && q.read_b);  // some part reads through one matrix only
  });
  auto parts = build_parts(node.text, node.parts, n, "union parts");
  return restricted ? marked_union_of(node.text, parts, node.parts) : union_of(node.text, parts);
}

Pattern make_heads(const PatternSpec& node, std::uint64_t n) {
  // one head is still a union of one part: its own reads
  Pattern p = union_of(node.text, build_parts(node.text, node.parts, n, "heads"));
  for (const auto& h : node.parts) p.heads.push_back(h.text);
  return p;
}

namespace {

struct BigBirdParams {
  std::uint64_t w, g, r, seed;
};

struct TopkParams {
  std::uint64_t b, k;
  std::string path;
};

struct SplitMix64 {
  std::uint64_t x;
  std::uint64_t next() {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound), bound >= 1: reject draws below 2^64 mod bound, then reduce.
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t threshold = (0 - bound) % bound;
    for (;;) {
      const std::uint64_t v = next();
      if (v >= threshold) return v % bound;
    }
  }
};

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return a / b + (a % b != 0);
}

}  // namespace

std::vector<std::uint64_t> bigbird_random_reads(std::uint64_t seed, std::uint64_t t, std::uint64_t m,
                                                std::uint64_t r) {
  std::vector<std::uint64_t> chosen;
  if (m == 0 || r == 0) return chosen;
  if (r >= m) {
    for (std::uint64_t c = 0; c < m; ++c) chosen.push_back(c);
    return chosen;
  }
  SplitMix64 rng{seed ^ ((t + 1) * 0xD1B54A32D192ED03ull)};
  chosen.reserve(r);
  for (std::uint64_t u = m - r; u < m; ++u) {  // Floyd: after step u, a uniform r-subset of [0, u]
    const std::uint64_t v = rng.below(u + 1);
    chosen.push_back(std::find(chosen.begin(), chosen.end(), v) == chosen.end() ? v : u);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

Pattern make_bigbird(const PatternSpec& node, std::uint64_t n) {
  const std::string& spec = node.text;
  const BigBirdParams bb{node.params.at(0), node.params.at(1), node.params.at(2),
                         node.params.size() > 3 ? node.params[3] : 0};
  validate_n(n);
  check_memory(estimate_family_bytes(node, n), 0, "pattern " + spec + " at n = " + std::to_string(n));
  Pattern p = explicit_pattern(spec, n, AMode::Shared);
  p.b.ptr.reserve(static_cast<std::size_t>(n) + 1);
  p.b.ptr.push_back(0);
  const std::atomic<bool>* stop = cancel_flag();
  for (pos_t t = 0; t < p.n; ++t) {  // 0-indexed: globals [0, g), random [g, t - w), window [t - w, t)
    if ((t & 1023) == 0) throw_if_cancelled(stop);
    const std::uint64_t glob_end = std::min<std::uint64_t>(bb.g, t);
    const std::uint64_t win_start = t > bb.w ? t - bb.w : 0;
    for (std::uint64_t j = 0; j < glob_end && j < win_start; ++j) p.b.idx.push_back(static_cast<pos_t>(j));
    const std::uint64_t m = win_start > bb.g ? win_start - bb.g : 0;
    for (auto c : bigbird_random_reads(bb.seed, t, m, bb.r)) p.b.idx.push_back(static_cast<pos_t>(bb.g + c));
    for (std::uint64_t j = win_start; j < t; ++j)
      p.b.idx.push_back(static_cast<pos_t>(j));  // globals in it too
    p.b.ptr.push_back(p.b.idx.size());
  }
  return p;
}

std::vector<std::uint64_t> topk_block_choice(const double* scores_row, std::uint64_t q, std::uint64_t k) {
  std::vector<std::uint64_t> order(q);
  for (std::uint64_t j = 0; j < q; ++j) order[j] = j;
  const std::uint64_t take = std::min<std::uint64_t>(k - 1, q);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
                    [&](std::uint64_t x, std::uint64_t y) {
                      return scores_row[x] != scores_row[y] ? scores_row[x] > scores_row[y] : x < y;
                    });
  order.resize(take);
  order.push_back(q);
  std::sort(order.begin(), order.end());
  return order;
}

Pattern make_topk_blocks(const PatternSpec& node, std::uint64_t n) {
  const std::string& spec = node.text;
  const TopkParams tp{node.params.at(0), node.params.at(1), node.arg};
  validate_n(n);
  const std::uint64_t nb = ceil_div(n, tp.b);
  NpyArray s = read_npy_shape(tp.path);  // the shape first: a large file of another shape is not read
  if (s.rows == nb && s.cols == nb) s = read_npy(tp.path);  // checks its own size against --mem-limit
  if (s.rows != nb || s.cols != nb)
    throw InputError("pattern '" + spec + "': '" + tp.path + "' has shape (" + std::to_string(s.rows) + ", " +
                     std::to_string(s.cols) + "), but n = " + std::to_string(n) + " in blocks of " +
                     std::to_string(tp.b) + " needs (" + std::to_string(nb) + ", " + std::to_string(nb) +
                     ")");
  std::vector<double> row(nb);
  auto load_row = [&](std::uint64_t q) {
    for (std::uint64_t j = 0; j < q; ++j) {
      row[j] = s.fp64 ? s.f64[q * nb + j] : s.f32[q * nb + j];
      if (!std::isfinite(row[j]))
        throw InputError("pattern '" + spec + "': '" + tp.path + "' has a non-finite score at (" +
                         std::to_string(q + 1) + ", " + std::to_string(j + 1) + ") (1-indexed block)");
    }
  };
  for (std::uint64_t q = 0; q < nb; ++q) load_row(q);  // refuse bad data before the large allocation
  check_memory(estimate_family_bytes(node, n), 0, "pattern " + spec + " at n = " + std::to_string(n));
  Pattern p = explicit_pattern(spec, n, AMode::Explicit);
  p.b.ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  p.a.n = p.n;
  p.a.ptr.reserve(static_cast<std::size_t>(n) + 1);
  p.a.ptr.push_back(0);
  const std::atomic<bool>* stop = cancel_flag();
  for (std::uint64_t q = 0; q < nb; ++q) {
    throw_if_cancelled(stop);
    load_row(q);
    const auto chosen = topk_block_choice(row.data(), q, tp.k);
    const std::uint64_t lo = q * tp.b, hi = std::min(n, lo + tp.b);
    for (std::uint64_t i = lo; i < hi; ++i) {
      for (auto c : chosen) {
        const std::uint64_t end = c == q ? i + 1 : (c + 1) * tp.b;
        for (std::uint64_t j = c * tp.b; j < end; ++j) p.a.idx.push_back(static_cast<pos_t>(j));
      }
      p.a.ptr.push_back(p.a.idx.size());
    }
  }
  return p;
}

namespace {

/// Upper bound on the reads (B plus A entries) of a spec at n, from its parameters alone; nullopt when the
/// spec is not one whose reads are stored row by row or cannot be bounded without building it.
std::optional<std::uint64_t> reads_bound(const PatternSpec& s, std::uint64_t n) {
  const auto& f = s.family;
  if (s.kind == SpecKind::Family && f == "bigbird")
    return sat_mul(n, std::min(n, sat_add(sat_add(s.params[0], s.params[1]), s.params[2])));
  if (s.kind == SpecKind::Family && f == "topk-blocks")
    return sat_mul(n, std::min(n, sat_mul(s.params[1], s.params[0])));
  if (s.kind == SpecKind::Family && (f == "sink" || f == "global" || f == "block"))
    return sat_mul(n, std::min(n, s.params[0]));
  if (s.is_matrix()) return std::nullopt;
  try {
    std::uint64_t total = n;  // + i itself for A-only bases
    for (auto v : f_values_for(s.kind == SpecKind::Cache ? s.parts[0] : s, n)) total = sat_add(total, n - v);
    return total;
  } catch (const UsageError&) {
    return std::nullopt;
  }
}

/// The bytes of a union (or of heads:, is_heads) with an explicit part: the parts kept until their rows
/// are merged, and the merged rows; 0 when every part is translation-invariant (offsets only).
std::uint64_t union_bytes(const PatternSpec& s, std::uint64_t n, bool is_heads) {
  const std::uint64_t ptrs = sat_mul(sat_add(n, 1), 2 * sizeof(nnz_t));
  // Every part is built and kept until the rows are merged (a head that is a union merges its parts, then
  // the heads are merged): the explicit parts' reads, each head's merged rows and the final merged rows.
  // Translation-invariant parts cost only their offsets, but their reads count in the merged rows.
  std::uint64_t kept = 0, all = 0, parts_explicit = 0;
  const std::vector<PatternSpec> one{s};
  const auto& heads = is_heads ? s.parts : one;
  for (const auto& head : heads) {
    const std::vector<PatternSpec> alone{head};
    for (const auto& part : head.kind == SpecKind::Union ? head.parts : alone) {  // a head may be a union
      const bool explicit_part = part.explicit_family() || part.kind == SpecKind::Cache;
      if (auto r = reads_bound(part, n)) {
        all = sat_add(all, *r);
        if (explicit_part) {
          kept = sat_add(kept, *r);
          ++parts_explicit;
        }
      }
    }
  }
  // only translation-invariant parts (or files, which check their own size): offsets only
  if (parts_explicit == 0) return 0;
  const std::uint64_t merged =
      std::min(all, sat_mul(n, sat_add(n, 1)));                       // A and B hold at most n(n+1)/2 each
  const std::uint64_t copies = is_heads && heads.size() > 1 ? 2 : 1;  // the heads' rows, then their merge
  return sat_add(sat_mul(sat_add(parts_explicit, copies + 1), ptrs),
                 sat_mul(sat_add(kept, sat_mul(merged, copies)), sizeof(pos_t)));
}

}  // namespace

std::uint64_t estimate_family_bytes(const PatternSpec& s, std::uint64_t n) {
  const std::uint64_t ptrs = sat_mul(sat_add(n, 1), 2 * sizeof(nnz_t));
  if (s.kind == SpecKind::Family && s.family == "loglinear") return sat_mul(n, 12);  // implicit: n offsets
  if (s.kind == SpecKind::Family && (s.family == "bigbird" || s.family == "topk-blocks"))
    return sat_add(ptrs, sat_mul(*reads_bound(s, n), sizeof(pos_t)));
  if (s.kind != SpecKind::Union && s.kind != SpecKind::Heads) return 0;
  // (a trailing +cache covers the whole union: a Cache node, whose rows the caller counts from the offsets)
  return union_bytes(s, n, s.kind == SpecKind::Heads);
}

}  // namespace mixgraph::detail

namespace mixgraph {

std::string strip_read_mark(const std::string& part) {
  std::string t = detail::trim(part);
  if (const char* mark = detail::trailing_read_mark(t))
    t = detail::trim(t.substr(0, t.size() - std::string(mark).size()));
  return t;
}

}  // namespace mixgraph
