// The pattern spec parser (mixgraph/pattern_spec.hpp): text -> tree, tree -> canonical text, and the f(k)
// values of a translation-invariant tree.
#include "mixgraph/pattern_spec.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <iterator>

#include "core/text_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/stack.hpp"
#include "mixgraph/sweep.hpp"
#include "pattern/pattern_families.hpp"

namespace mixgraph {

namespace {

using detail::trim;

std::atomic<std::uint64_t> g_parses{0};

bool starts_with(const std::string& s, const char* p) {
  return s.rfind(p, 0) == 0;
}
bool ends_with(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// ---- parameters (the messages are the builders' own) ----

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
std::vector<std::uint64_t> parse_two_params(const std::string& spec, const std::string& form) {
  const std::string text = spec.substr(spec.find(':') + 1);
  const auto comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
    throw UsageError("pattern '" + spec + "': give " + form + " (two positive integers)");
  return {parse_param(spec, text.substr(0, comma), 1), parse_param(spec, text.substr(comma + 1), 1)};
}

/// "name:x,y,..." -> the comma-separated fields after the colon, trimmed (exactly `count` of them unless
/// `rest`, which keeps everything after field count - 1 as the last one, commas included).
std::vector<std::string> fields(const std::string& spec, std::size_t count, bool rest,
                                const std::string& form) {
  const std::string text = spec.substr(spec.find(':') + 1);
  std::vector<std::string> out;
  std::size_t start = 0;
  while (out.size() + 1 < count) {
    const auto comma = text.find(',', start);
    if (comma == std::string::npos) break;
    out.push_back(trim(text.substr(start, comma - start)));
    start = comma + 1;
  }
  out.push_back(trim(text.substr(start)));
  if (out.size() != count || (!rest && out.back().find(',') != std::string::npos))
    throw UsageError("pattern '" + spec + "': give " + form);
  return out;
}

std::uint64_t field_value(const std::string& spec, const std::string& t, std::uint64_t min_value) {
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
    throw UsageError("pattern '" + spec + "': '" + t + "' is not a " +
                     (min_value ? "positive" : "non-negative") + " integer");
  if (v < min_value)
    throw UsageError("pattern '" + spec + "': parameter must be >= " + std::to_string(min_value) + ", got " +
                     std::to_string(v));
  return v;
}

PatternSpec family_node(const std::string& spec, const std::string& name) {
  PatternSpec s;
  s.kind = SpecKind::Family;
  s.text = spec;
  s.family = name;
  return s;
}

/// sink:s, global:s, block:b: one integer >= 1.
PatternSpec parse_one_positive(const std::string& spec, const std::string& name) {
  PatternSpec s = family_node(spec, name);
  const std::string text = spec.substr(spec.find(':') + 1);
  std::uint64_t v = 0;
  const std::string t = trim(text);
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
    throw UsageError("pattern '" + spec + "': '" + text + "' is not a positive integer");
  if (v < 1) throw UsageError("pattern '" + spec + "': parameter must be >= 1, got " + std::to_string(v));
  s.params = {v};
  return s;
}

PatternSpec parse_bigbird(const std::string& spec) {
  PatternSpec s = family_node(spec, "bigbird");
  const std::string text = spec.substr(spec.find(':') + 1);
  const auto commas = static_cast<std::size_t>(std::count(text.begin(), text.end(), ','));
  const std::string form = "bigbird:w,g,r or bigbird:w,g,r,seed (w, g, r >= 0 integers, not all 0)";
  if (commas != 2 && commas != 3) throw UsageError("pattern '" + spec + "': give " + form);
  const auto f = fields(spec, commas + 1, false, form);
  for (const auto& t : f) s.params.push_back(field_value(spec, t, 0));
  if (s.params[0] == 0 && s.params[1] == 0 && s.params[2] == 0)
    throw UsageError("pattern '" + spec + "': w, g and r are all 0");
  return s;
}

PatternSpec parse_topk(const std::string& spec) {
  PatternSpec s = family_node(spec, "topk-blocks");
  const auto f = fields(spec, 3, true, "topk-blocks:b,k,SCORES.npy (b, k >= 1)");
  if (f[2].empty())
    throw UsageError("pattern '" + spec + "': give topk-blocks:b,k,SCORES.npy (no file given)");
  s.params = {field_value(spec, f[0], 1), field_value(spec, f[1], 1)};
  s.arg = f[2];
  return s;
}

/// A translation-invariant family (f_values_for's names and messages).
PatternSpec parse_translation_invariant(const std::string& spec) {
  for (const char* name : {"pow2", "sq1", "sq", "fib", "dense", "attention", "loglinear", "ssm"})
    if (spec == name) return family_node(spec, name);
  if (starts_with(spec, "pow:")) {
    PatternSpec s = family_node(spec, "pow");
    s.params = {parse_param(spec, spec.substr(4), 2)};
    return s;
  }
  if (starts_with(spec, "window:") || starts_with(spec, "local:")) {
    PatternSpec s = family_node(spec, spec.substr(0, spec.find(':')));
    s.params = {parse_param(spec, spec.substr(spec.find(':') + 1), 1)};
    return s;
  }
  if (starts_with(spec, "dilated:")) {
    PatternSpec s = family_node(spec, "dilated");
    s.params = parse_two_params(spec, "dilated:w,r");
    return s;
  }
  if (starts_with(spec, "strided:")) {
    PatternSpec s = family_node(spec, "strided");
    s.params = parse_two_params(spec, "strided:w,s");
    return s;
  }
  if (starts_with(spec, "offsets:")) {
    PatternSpec s = family_node(spec, "offsets");
    s.params = parse_uint_list(spec.substr(8), "pattern '" + spec + "'");
    return s;
  }
  if (starts_with(spec, "expr:")) {
    PatternSpec s = family_node(spec, "expr");
    s.arg = spec.substr(5);
    return s;
  }
  if (starts_with(spec, "mtx:"))
    throw UsageError("pattern '" + spec + "' is a matrix, not a translation-invariant pattern");
  if (starts_with(spec, "sink:") || starts_with(spec, "global:") || starts_with(spec, "block:") ||
      starts_with(spec, "bigbird:") || starts_with(spec, "topk-blocks:"))
    throw UsageError("pattern '" + spec +
                     "' reads fixed positions, it is not a translation-invariant pattern");
  throw UsageError("unknown pattern '" + spec + "'; valid patterns: " + pattern_name_help());
}

std::string single_mark_refusal(const std::string& spec) {
  return "pattern '" + spec +
         "': a read mark (@A, @B, @AB) marks a part of a union, e.g. window:128@A|sink:4@B; a pattern "
         "alone reads through its own A and B";
}

/// Split on `sep`, trimming; an empty piece is refused with `what` in the message.
std::vector<std::string> split_parts(const std::string& spec, const std::string& body, char sep,
                                     const std::string& what) {
  std::vector<std::string> texts;
  for (std::size_t start = 0;;) {
    const auto at = body.find(sep, start);
    texts.push_back(trim(body.substr(start, at == std::string::npos ? std::string::npos : at - start)));
    if (texts.back().empty()) throw UsageError("pattern '" + spec + "': empty part in " + what);
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return texts;
}

PatternSpec parse_union(const std::string& spec) {
  const auto texts = split_parts(spec, spec, '|', "a union; write P1|P2|...");
  std::vector<detail::MarkedPart> marks;
  for (const auto& t : texts) {
    marks.push_back(detail::split_read_mark(spec, t));
    if (marks.back().text.empty())
      throw UsageError("pattern '" + spec + "': part '" + t + "' is a read mark without a pattern");
  }
  for (const auto& m : marks)
    if (starts_with(m.text, "heads:"))
      throw UsageError("pattern '" + spec + "': heads: must be outermost (heads:P1|Q1;P2), not a union part");
  PatternSpec s;
  s.kind = SpecKind::Union;
  s.text = spec;
  for (const auto& m : marks) {
    s.parts.push_back(detail::parse_spec_piece(m.text, false));
    s.parts.back().read_a = m.a;
    s.parts.back().read_b = m.b;
    s.parts.back().marked = m.marked;
  }
  return s;
}

PatternSpec parse_heads(const std::string& spec) {
  const std::string body = spec.substr(spec.find(':') + 1);
  const auto texts = split_parts(spec, body, ';', "heads:; write heads:P1;P2;...");
  for (const auto& t : texts)
    if (starts_with(t, "heads:"))
      throw UsageError("pattern '" + spec + "': heads: cannot be nested (head '" + t + "')");
  PatternSpec s;
  s.kind = SpecKind::Heads;
  s.text = spec;
  for (const auto& t : texts) s.parts.push_back(detail::parse_spec_piece(t, false));
  return s;
}

PatternSpec parse_cache(const std::string& spec) {
  const std::string base = trim(spec.substr(0, spec.size() - 6));
  if (starts_with(base, "mtx:"))
    throw UsageError("pattern '" + spec +
                     "': +cache applies to translation-invariant patterns (offsets f(k)); an mtx: pattern "
                     "has no offsets, so it has no cache-efficient variant");
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
  if (ends_with(base, "+cache"))
    throw UsageError("pattern '" + spec +
                     "': '+cache' applies to translation-invariant patterns only, not '" + base + "'");
  PatternSpec s;
  s.kind = SpecKind::Cache;
  s.text = spec;
  s.parts.push_back(base.find('|') != std::string::npos ? parse_union(base)
                                                        : parse_translation_invariant(base));
  return s;
}

PatternSpec parse_matrix(const std::string& spec) {
  const std::string files = spec.substr(4);
  if (files.empty()) throw UsageError("pattern '" + spec + "': give mtx:B.mtx or mtx:A.mtx,B.mtx");
  PatternSpec s;
  s.kind = SpecKind::Matrix;
  s.text = spec;
  const auto comma = files.find(',');
  if (comma == std::string::npos) {
    s.b_file = files;
  } else {
    s.a_file = files.substr(0, comma);
    s.b_file = files.substr(comma + 1);
    if (s.a_file.empty() || s.b_file.empty() || s.b_file.find(',') != std::string::npos)
      throw UsageError("pattern '" + spec + "': give mtx:B.mtx or mtx:A.mtx,B.mtx");
  }
  return s;
}

std::string param_list(const std::vector<std::uint64_t>& v) {
  std::string out;
  for (std::size_t k = 0; k < v.size(); ++k) out += (k ? "," : "") + std::to_string(v[k]);
  return out;
}

}  // namespace

const char* to_string(SpecKind k) {
  switch (k) {
    case SpecKind::Family:
      return "family";
    case SpecKind::Matrix:
      return "matrix";
    case SpecKind::Cache:
      return "cache";
    case SpecKind::Union:
      return "union";
    case SpecKind::Heads:
      return "heads";
    case SpecKind::Stack:
      return "stack";
  }
  return "?";
}

bool PatternSpec::translation_invariant_family() const {
  return kind == SpecKind::Family && !explicit_family();
}

bool PatternSpec::explicit_family() const {
  return kind == SpecKind::Family && (family == "sink" || family == "global" || family == "block" ||
                                      family == "bigbird" || family == "topk-blocks");
}

bool PatternSpec::has_matrix() const {
  return is_matrix() ||
         std::any_of(parts.begin(), parts.end(), [](const PatternSpec& p) { return p.has_matrix(); });
}

bool operator==(const PatternSpec& x, const PatternSpec& y) {
  return x.kind == y.kind && x.family == y.family && x.params == y.params && x.arg == y.arg &&
         x.b_file == y.b_file && x.a_file == y.a_file && x.read_a == y.read_a && x.read_b == y.read_b &&
         x.marked == y.marked && x.parts == y.parts;
}

PatternSpec cache_of(const PatternSpec& base) {
  // what the parser takes before "+cache": a translation-invariant family, or a union of them unmarked
  const auto rounds = [](const PatternSpec& q) {
    return q.kind == SpecKind::Family && q.translation_invariant_family() && q.family != "loglinear";
  };
  const bool ok = base.kind == SpecKind::Union
                      ? std::all_of(base.parts.begin(), base.parts.end(),
                                    [&](const PatternSpec& q) { return rounds(q) && q.read_a && q.read_b; })
                      : rounds(base);
  if (!ok)
    throw UsageError("pattern '" + base.text +
                     "+cache': '+cache' applies to translation-invariant patterns only, not '" + base.text +
                     "'");
  PatternSpec s;
  s.kind = SpecKind::Cache;
  s.text = base.text + "+cache";
  s.parts.push_back(base);
  return s;
}

std::uint64_t spec_parse_count() {
  return g_parses.load();
}

namespace detail {

PatternSpec parse_spec_piece(const std::string& spec_in, bool allow_stack) {
  const std::string spec = trim(spec_in);
  if (spec.empty()) throw UsageError("empty pattern; valid patterns: " + pattern_name_help());
  if (starts_with(spec, "stack:")) {
    if (!allow_stack) throw UsageError(stack_refusal(spec));
    return parse_stack_spec(spec);  // stack.cpp
  }
  if (starts_with(spec, "heads:")) return parse_heads(spec);  // outermost: heads may hold | and +cache
  if (ends_with(spec, "+cache")) return parse_cache(spec);    // a trailing +cache is always the suffix
  if (spec.find('|') != std::string::npos) return parse_union(spec);
  if (detail::split_read_mark(spec, spec).marked) throw UsageError(single_mark_refusal(spec));
  if (starts_with(spec, "mtx:")) return parse_matrix(spec);
  if (starts_with(spec, "sink:")) return parse_one_positive(spec, "sink");
  if (starts_with(spec, "global:")) return parse_one_positive(spec, "global");
  if (starts_with(spec, "block:")) return parse_one_positive(spec, "block");
  if (starts_with(spec, "bigbird:")) return parse_bigbird(spec);
  if (starts_with(spec, "topk-blocks:")) return parse_topk(spec);
  return parse_translation_invariant(spec);
}

}  // namespace detail

PatternSpec parse_pattern_spec(const std::string& spec, bool allow_stack) {
  g_parses.fetch_add(1);
  return detail::parse_spec_piece(spec, allow_stack);
}

std::string spec_text(const PatternSpec& s) {
  std::string out;
  switch (s.kind) {
    case SpecKind::Family:
      out = s.family;
      if (s.family == "expr") return out + ":" + s.arg;
      if (!s.params.empty()) out += ":" + param_list(s.params);
      if (!s.arg.empty()) out += "," + s.arg;
      return out;
    case SpecKind::Matrix:
      return "mtx:" + (s.a_file.empty() ? s.b_file : s.a_file + "," + s.b_file);
    case SpecKind::Cache:
      return spec_text(s.parts.at(0)) + "+cache";
    case SpecKind::Union:
      for (std::size_t k = 0; k < s.parts.size(); ++k) {
        const auto& p = s.parts[k];
        out += (k ? "|" : "") + spec_text(p);
        if (p.marked) out += p.read_a && p.read_b ? "@AB" : p.read_a ? "@A" : "@B";
      }
      return out;
    case SpecKind::Heads:
      out = "heads:";
      for (std::size_t k = 0; k < s.parts.size(); ++k) out += (k ? ";" : "") + spec_text(s.parts[k]);
      return out;
    case SpecKind::Stack:
      out = "stack:";
      for (std::size_t k = 0; k < s.parts.size(); ++k) out += (k ? ";" : "") + spec_text(s.parts[k]);
      return out;
  }
  return out;
}

std::vector<std::uint64_t> f_values_for(const PatternSpec& s, std::uint64_t n) {
  const std::string& spec = s.text;
  std::vector<std::uint64_t> f;
  if (s.kind == SpecKind::Union) {  // the union of the parts' offsets
    for (const auto& p : s.parts) {
      if (!(p.read_a && p.read_b))
        throw UsageError("pattern part '" + p.text + (p.read_a ? "@A" : "@B") +
                         "' reads through one matrix only: it has no offsets f(k) of its own, and a trailing "
                         "'+cache' is not defined with read marks @A / @B; mark a cached part instead, e.g. "
                         "ssm@B|pow2+cache@AB");
      const auto x = f_values_for(p, n);
      std::vector<std::uint64_t> y;
      std::set_union(f.begin(), f.end(), x.begin(), x.end(), std::back_inserter(y));
      f.swap(y);
    }
    return f;
  }
  if (s.kind == SpecKind::Matrix)
    throw UsageError("pattern '" + spec + "' is a matrix, not a translation-invariant pattern");
  if (s.explicit_family())
    throw UsageError("pattern '" + spec +
                     "' reads fixed positions, it is not a translation-invariant pattern");
  if (s.kind != SpecKind::Family)
    throw UsageError("unknown pattern '" + spec + "'; valid patterns: " + pattern_name_help());
  auto gen = [&](auto&& next) {  // next(k) -> value, increasing
    for (std::uint64_t k = 0;; ++k) {
      std::uint64_t v = next(k);
      if (v >= n) break;
      f.push_back(v);
    }
  };
  const std::string& name = s.family;
  if (name == "pow2") {
    gen([](std::uint64_t k) { return k < 63 ? std::uint64_t{1} << k : ~std::uint64_t{0}; });
  } else if (name == "pow") {
    const std::uint64_t b = s.params[0];
    std::uint64_t v = 1;
    while (v < n) {
      f.push_back(v);
      if (v > n / b + 1) break;
      v *= b;
    }
  } else if (name == "sq1") {
    gen([](std::uint64_t k) { return k * k + 1; });
  } else if (name == "sq") {
    gen([](std::uint64_t k) { return (k + 1) * (k + 1); });
  } else if (name == "fib") {
    std::uint64_t a = 1, b = 2;
    while (a < n) {
      f.push_back(a);
      std::uint64_t c = a + b;
      a = b;
      b = c;
    }
  } else if (name == "window" || name == "local") {
    const std::uint64_t w = s.params[0];
    for (std::uint64_t o = 1; o <= w && o < n; ++o) f.push_back(o);
  } else if (name == "dilated") {  // r, 2r, ..., w r
    const std::uint64_t w = s.params[0], r = s.params[1];
    for (std::uint64_t k = 1; k <= w && r < n && k * r < n; ++k) f.push_back(k * r);
  } else if (name == "strided") {  // 1..w and every multiple of s
    const std::uint64_t w = s.params[0], st = s.params[1];
    for (std::uint64_t o = 1; o <= w && o < n; ++o) f.push_back(o);
    if (w < n)  // multiples of s above w, ascending
      for (std::uint64_t o = (w / st + 1) * st; o < n; o += st) f.push_back(o);
  } else if (name == "dense" || name == "attention" || name == "loglinear") {
    for (std::uint64_t o = 1; o < n; ++o) f.push_back(o);
  } else if (name == "ssm") {
    if (n > 1) f.push_back(1);
  } else if (name == "offsets") {
    auto v = s.params;
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    for (auto o : v)
      if (o < n) f.push_back(o);
  } else if (name == "expr") {
    f = evaluate_expression(s.arg, n);
  } else {
    throw UsageError("unknown pattern '" + spec + "'; valid patterns: " + pattern_name_help());
  }
  return f;
}

std::vector<std::uint64_t> f_values_for(const std::string& spec, std::uint64_t n) {
  return f_values_for(parse_pattern_spec(spec, false), n);
}

}  // namespace mixgraph
