// Patterns from their definitions (pattern_bruteforce.hpp).
#include "pattern/pattern_bruteforce.hpp"

#include <algorithm>
#include <cstdint>
#include <set>
#include <sstream>

namespace mixgraph {

namespace {
using u64 = std::uint64_t;
using Rows = std::vector<std::set<u64>>;  // 1-indexed reads of positions 1..n (index 0 unused)

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}
bool starts(const std::string& s, const char* p) {
  return s.rfind(p, 0) == 0;
}
/// "a,b,..." (after `prefix`) as numbers >= 1; false when anything else is there.
bool numbers(const std::string& s, std::size_t prefix, std::vector<u64>& out) {
  std::stringstream in(s.substr(prefix));
  std::string item;
  while (std::getline(in, item, ',')) {
    item = trim(item);
    if (item.empty() || item.size() > 12 || item.find_first_not_of("0123456789") != std::string::npos)
      return false;
    out.push_back(std::stoull(item));
    if (out.back() == 0) return false;
  }
  return !out.empty();
}

enum class A { Shared, Diagonal, Explicit };  // A = B's reads and i; A = i only; A = {i} ∪ {i - f(k)}, B = 0

/// A translation-invariant spec: its offsets f(k) < n (ascending) and A mode; nullopt when not one.
std::optional<std::pair<std::vector<u64>, A>> offsets(const std::string& spec, u64 n) {
  std::vector<u64> f, p;
  auto upto = [&](auto next) {  // next(k) increasing
    for (u64 k = 0;; ++k) {
      const u64 v = next(k);
      if (v >= n) break;
      f.push_back(v);
    }
  };
  A mode = A::Shared;
  if (spec == "pow2") {
    upto([](u64 k) { return k < 63 ? u64{1} << k : ~u64{0}; });
  } else if (starts(spec, "pow:") && numbers(spec, 4, p) && p.size() == 1 && p[0] >= 2) {
    for (u64 v = 1; v<n; v = v> n / p[0] ? n : v * p[0]) f.push_back(v);
  } else if (spec == "sq1") {
    upto([](u64 k) { return k * k + 1; });
  } else if (spec == "sq") {
    upto([](u64 k) { return (k + 1) * (k + 1); });
  } else if (spec == "fib") {  // 1, 2, 3, 5, 8, ...: each the sum of the two before
    for (u64 a = 1, b = 2; a < n; b += a, a = b - a) f.push_back(a);
  } else if ((starts(spec, "window:") || starts(spec, "local:")) && numbers(spec, spec.find(':') + 1, p) &&
             p.size() == 1) {
    upto([&](u64 k) { return k < p[0] ? k + 1 : n; });
    if (starts(spec, "local:")) mode = A::Explicit;
  } else if (starts(spec, "dilated:") && numbers(spec, 8, p) && p.size() == 2) {  // r, 2r, ..., w r
    upto([&](u64 k) { return k < p[0] ? (k + 1) * p[1] : n; });
  } else if (starts(spec, "strided:") && numbers(spec, 8, p) && p.size() == 2) {  // 1..w, and s, 2s, ...
    std::set<u64> s;
    for (u64 v = 1; v <= p[0] && v < n; ++v) s.insert(v);
    for (u64 v = p[1]; v < n; v += p[1]) s.insert(v);
    f.assign(s.begin(), s.end());
  } else if (spec == "dense" || spec == "attention" || spec == "loglinear") {
    // loglinear: the attention mask (its Fenwick levels weight the reads, they do not remove any)
    upto([](u64 k) { return k + 1; });
    if (spec != "dense") mode = A::Explicit;
  } else if (spec == "ssm") {
    upto([&](u64 k) { return k == 0 ? 1 : n; });
    mode = A::Diagonal;
  } else if (starts(spec, "offsets:") && numbers(spec, 8, p)) {
    std::set<u64> s;
    for (u64 v : p)
      if (v < n) s.insert(v);
    f.assign(s.begin(), s.end());
  } else if (starts(spec, "expr:")) {
    auto e = bruteforce_expression(spec.substr(5), n);
    if (!e) return std::nullopt;
    f = *e;
  } else {
    return std::nullopt;
  }
  return std::make_pair(f, mode);
}

std::vector<std::string> parts_of(const std::string& spec) {
  std::vector<std::string> parts;
  std::stringstream in(spec);
  std::string item;
  while (std::getline(in, item, '|')) parts.push_back(trim(item));
  return parts;
}

/// Def. 4.10 on explicit sets: the reads S_i \ {i} of every 1-indexed i.
Rows cache_reads(const std::vector<u64>& f, u64 n) {
  Rows rows(n + 1);
  std::set<u64> kept;  // S_{i-1}
  for (u64 i = 1; i <= n; ++i) {
    std::set<u64> avail = kept;
    avail.insert(i);
    for (u64 v : f)
      if (v < i) rows[i].insert(*avail.lower_bound(i - v));  // pi: round up to the next kept position
    rows[i].erase(i);
    kept = rows[i];
    kept.insert(i);
  }
  return rows;
}

bool build_cache(const std::string& base, u64 n, Rows& a, Rows& b);

/// A and B (1-indexed) of a spec without a trailing `+cache`; false when not covered.
bool build(const std::string& spec, u64 n, Rows& a, Rows& b) {
  a.assign(n + 1, {});
  b.assign(n + 1, {});
  if (starts(spec, "heads:")) {  // the combined mixer of the heads: the union of their patterns
    std::string u = spec.substr(6);
    std::replace(u.begin(), u.end(), ';', '|');
    if (u.find('|') == std::string::npos) u += "|" + u;  // one head: the union path reads a +cache part
    return build(u, n, a, b);
  }
  if (spec.find('|') != std::string::npos) {  // a union: A and B each the union of the parts'
    for (auto part : parts_of(spec)) {
      // a read mark: the part's A reads go into the union's A only under @A / @AB (or no mark), its B reads
      // into B only under @B / @AB (or no mark)
      bool to_a = true, to_b = true;
      const std::string::size_type at = part.rfind('@');
      if (at != std::string::npos &&
          (part.substr(at) == "@A" || part.substr(at) == "@B" || part.substr(at) == "@AB")) {
        to_a = part.substr(at).find('A') != std::string::npos;
        to_b = part.substr(at).find('B') != std::string::npos;
        part = trim(part.substr(0, at));
      }
      Rows pa, pb;
      const bool cache = part.size() > 6 && part.compare(part.size() - 6, 6, "+cache") == 0;
      if (part.empty() ||
          !(cache ? build_cache(trim(part.substr(0, part.size() - 6)), n, pa, pb) : build(part, n, pa, pb)))
        return false;
      for (u64 i = 1; i <= n; ++i) {
        if (to_a) a[i].insert(pa[i].begin(), pa[i].end());
        if (to_b) b[i].insert(pb[i].begin(), pb[i].end());
      }
    }
    return true;
  }
  std::vector<u64> p;
  if ((starts(spec, "sink:") || starts(spec, "global:")) && numbers(spec, spec.find(':') + 1, p) &&
      p.size() == 1) {  // i reads 1..min(s, i - 1) through B, shared A
    for (u64 i = 1; i <= n; ++i) {
      for (u64 j = 1; j <= p[0] && j < i; ++j) b[i].insert(j);
      a[i] = b[i];
      a[i].insert(i);
    }
    return true;
  }
  if (starts(spec, "block:") && numbers(spec, 6, p) &&
      p.size() == 1) {  // A: j <= i with ceil(j/b) = ceil(i/b)
    for (u64 i = 1; i <= n; ++i)
      for (u64 j = 1; j <= i; ++j)
        if ((j + p[0] - 1) / p[0] == (i + p[0] - 1) / p[0]) a[i].insert(j);
    return true;
  }
  const auto t = offsets(spec, n);
  if (!t) return false;
  for (u64 i = 1; i <= n; ++i) {
    for (u64 v : t->first)
      if (v < i) (t->second == A::Explicit ? a[i] : b[i]).insert(i - v);
    if (t->second == A::Shared) a[i] = b[i];
    a[i].insert(i);
  }
  return true;
}

/// `base+cache`: the offsets and A mode of a translation-invariant base (a union: every part with one A
/// mode).
bool build_cache(const std::string& base, u64 n, Rows& a, Rows& b) {
  std::set<u64> f;
  std::optional<A> mode;
  for (auto part : parts_of(base)) {
    if (part.size() > 3 && part.compare(part.size() - 3, 3, "@AB") == 0)  // both: the plain part
      part = trim(part.substr(0, part.size() - 3));
    const auto t = offsets(part, n);  // @A / @B parts are no offsets: not covered
    if (!t || (mode && *mode != t->second)) return false;
    mode = t->second;
    f.insert(t->first.begin(), t->first.end());
  }
  if (!mode) return false;
  const Rows r = cache_reads({f.begin(), f.end()}, n);
  a.assign(n + 1, {});
  b.assign(n + 1, {});
  for (u64 i = 1; i <= n; ++i) {
    (*mode == A::Explicit ? a[i] : b[i]) = r[i];
    if (*mode == A::Shared) a[i] = r[i];
    a[i].insert(i);
  }
  return true;
}

std::vector<std::vector<pos_t>> zero_indexed(const Rows& r, u64 n) {
  std::vector<std::vector<pos_t>> out(n);
  for (u64 i = 1; i <= n; ++i)
    for (u64 j : r[i]) out[i - 1].push_back(static_cast<pos_t>(j - 1));
  return out;
}
}  // namespace

std::optional<BruteforceRows> bruteforce_rows(const std::string& spec_in, pos_t n) {
  const std::string spec = trim(spec_in);
  Rows a, b;
  const bool cache = spec.size() > 6 && spec.compare(spec.size() - 6, 6, "+cache") == 0;
  if (!(cache ? build_cache(trim(spec.substr(0, spec.size() - 6)), n, a, b) : build(spec, n, a, b)))
    return std::nullopt;
  return BruteforceRows{zero_indexed(a, n), zero_indexed(b, n)};
}

std::optional<std::vector<std::vector<pos_t>>> bruteforce_b_rows(const std::string& spec, pos_t n) {
  auto r = bruteforce_rows(spec, n);
  if (!r) return std::nullopt;
  return std::move(r->b);
}

}  // namespace mixgraph
