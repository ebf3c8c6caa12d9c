// stack:P1,P2,... : parsing, building the layers, and the decode cost and cache summed over layers.
#include "mixgraph/stack.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include "core/text_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "pattern/pattern_families.hpp"

namespace mixgraph {

namespace {

using detail::trim;

bool starts_with(const std::string& s, const char* p) {
  return s.rfind(p, 0) == 0;
}

/// A spec as quoted in messages: a long one (thousands of layers) is cut to its first 120 characters.
std::string quoted(const std::string& spec) {
  if (spec.size() <= 160) return spec;
  return spec.substr(0, 120) + "... (" + std::to_string(spec.size()) + " characters)";
}

/// Split at depth-0 `sep` (parentheses nest); refuses unbalanced parentheses and empty pieces.
std::vector<std::string> split_top(const std::string& spec, const std::string& body, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t k = 0; k <= body.size(); ++k) {
    const char c = k < body.size() ? body[k] : sep;
    if (c == '(') ++depth;
    if (c == ')' && --depth < 0)
      throw UsageError("pattern '" + quoted(spec) + "': a ')' without its '(' in the stack");
    if (c == sep && depth == 0) {
      out.push_back(trim(body.substr(start, k - start)));
      if (out.back().empty())
        throw UsageError("pattern '" + quoted(spec) +
                         "': empty layer in the stack; write stack:P1,P2,... or "
                         "stack:P1;P2;...");
      start = k + 1;
    }
  }
  if (depth != 0) throw UsageError("pattern '" + quoted(spec) + "': unbalanced '(' in the stack");
  return out;
}

bool has_top(const std::string& body, char sep) {
  int depth = 0;
  for (char c : body) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == sep && depth == 0) return true;
  }
  return false;
}

/// A piece that starts a layer: (LIST)*k, or a spec whose name (before ':', '+' or '|') is a pattern name.
bool names_a_layer(const std::string& item) {
  static const char* const kNames[] = {"pow2",      "pow",     "sq1",    "sq",    "fib",     "window",
                                       "dilated",   "strided", "ssm",    "dense", "local",   "attention",
                                       "loglinear", "sink",    "global", "block", "bigbird", "topk-blocks",
                                       "expr",      "offsets", "mtx",    "heads", "stack"};
  if (item.front() == '(') return true;
  const std::string name = trim(item.substr(0, item.find_first_of(":+|")));
  return std::any_of(std::begin(kNames), std::end(kNames), [&](const char* k) { return name == k; });
}

void expand(const std::string& spec, const std::string& body, std::vector<std::string>& out, int level) {
  if (level > 16) throw UsageError("pattern '" + quoted(spec) + "': repetitions nested more than 16 deep");
  std::vector<std::string> items;
  if (has_top(body, ';')) {
    items = split_top(spec, body, ';');
  } else {  // ',': every piece a layer when each names one, else the whole list is one spec with commas
    items = split_top(spec, body, ',');
    if (!std::all_of(items.begin(), items.end(), names_a_layer)) items.assign(1, trim(body));
  }
  for (const auto& item : items) {
    if (item.front() == '(') {  // (LIST)*k
      const auto close = item.rfind(')');
      const std::string tail = trim(item.substr(close + 1));
      std::uint64_t k = 0;
      const auto [ptr, ec] = tail.size() > 1
                                 ? std::from_chars(tail.data() + 1, tail.data() + tail.size(), k)
                                 : std::from_chars_result{tail.data(), std::errc::invalid_argument};
      if (tail.empty() || tail[0] != '*' || ec != std::errc() || ptr != tail.data() + tail.size() || k < 1)
        throw UsageError("pattern '" + quoted(spec) + "': '" + item +
                         "': a parenthesised list must be followed by *k (k >= 1 repetitions), e.g. "
                         "stack:(ssm,window:64)*4");
      if (k > kMaxStackLayers)
        throw UsageError("pattern '" + quoted(spec) + "': at most " + std::to_string(kMaxStackLayers) +
                         " layers");
      std::vector<std::string> inner;
      expand(spec, item.substr(1, close - 1), inner, level + 1);
      for (std::uint64_t r = 0; r < k; ++r) {
        out.insert(out.end(), inner.begin(), inner.end());
        if (out.size() > kMaxStackLayers)
          throw UsageError("pattern '" + quoted(spec) + "': at most " + std::to_string(kMaxStackLayers) +
                           " layers");
      }
      continue;
    }
    if (starts_with(item, "stack:"))
      throw UsageError("pattern '" + quoted(spec) + "': stack: cannot be nested (layer '" + item +
                       "'); list the layers in one stack, or repeat with (P1,P2)*k");
    if (starts_with(item, "heads:"))
      throw UsageError("pattern '" + quoted(spec) + "': heads: is not a stack layer ('" + item +
                       "'); a layer may be a union P1|P2 (the heads' combined reads)");
    out.push_back(item);
    if (out.size() > kMaxStackLayers)
      throw UsageError("pattern '" + quoted(spec) + "': at most " + std::to_string(kMaxStackLayers) +
                       " layers");
  }
}

std::string body_of(const std::string& spec) {
  const std::string t = trim(spec);
  if (!starts_with(t, "stack:")) throw UsageError("pattern '" + quoted(spec) + "' is not a stack: spec");
  return trim(t.substr(6));
}

/// A layer's error with the hint that ',' separates whole specs.
std::string comma_hint(const UsageError& e, const std::string& spec) {
  return std::string(e.what()) + " (in '" + quoted(spec) +
         "': with ',' between layers every piece must be a whole spec; separate layers with "
         "';' when a spec has a comma, e.g. stack:bigbird:8,2,2;ssm)";
}

}  // namespace

bool is_stack_spec(const std::string& spec) {
  return starts_with(trim(spec), "stack:");
}

std::string stack_refusal(const std::string& spec) {
  return "pattern '" + quoted(spec) +
         "': a stack of layers is not a single-layer pattern; `mixgraph pattern`, `distances`, `rank` and "
         "`congestion` take it as the whole --pattern, `gallery` and `report` beside other patterns (it "
         "cannot be a union part, a head, or used by this command)";
}

std::vector<std::string> stack_layer_specs(const std::string& spec) {
  const std::string body = body_of(spec);
  if (body.empty())
    throw UsageError("pattern '" + quoted(spec) + "': give the layers, e.g. stack:ssm,window:64");
  std::vector<std::string> out;
  expand(spec, body, out, 0);
  return out;
}

bool Stack::translation_invariant() const {
  return std::all_of(layers.begin(), layers.end(), [](const auto& p) { return p->translation_invariant(); });
}

PatternSpec parse_stack_spec(const std::string& spec) {
  PatternSpec s;
  s.kind = SpecKind::Stack;
  s.text = trim(spec);
  const auto layers = stack_layer_specs(spec);
  s.stack_commas = !has_top(body_of(spec), ';');
  std::map<std::string, std::size_t> parsed;  // repetitions: each distinct layer parsed once
  for (const auto& l : layers) {
    if (const auto it = parsed.find(l); it != parsed.end()) {
      PatternSpec copy = s.parts[it->second];
      s.parts.push_back(std::move(copy));
      continue;
    }
    try {
      s.parts.push_back(detail::parse_spec_piece(l, false));
    } catch (const UsageError& e) {
      if (!s.stack_commas || l.find(',') == std::string::npos)
        throw;  // the hint is about a piece with a comma
      throw UsageError(comma_hint(e, s.text));
    }
    parsed.emplace(l, s.parts.size() - 1);
  }
  return s;
}

Stack make_stack(const std::string& spec, std::uint64_t n) {
  return make_stack(parse_pattern_spec(spec), n);
}

Stack make_stack(const PatternSpec& spec, std::uint64_t n) {
  if (!spec.is_stack()) throw UsageError("pattern '" + quoted(spec.text) + "' is not a stack: spec");
  Stack s;
  s.spec = spec.text;
  for (const auto& l : spec.parts) s.layer_specs.push_back(l.text);
  // mtx: layers fix n (all must agree; a given n must match)
  std::uint64_t n_eff = n;
  for (const auto& l : spec.parts)
    if (l.has_matrix() && n_eff == 0) n_eff = make_pattern(l, 0).n;
  std::map<std::string, std::shared_ptr<const Pattern>> built;
  for (const auto& l : spec.parts) {
    auto& slot = built[l.text];
    if (!slot) {
      try {
        slot = std::make_shared<const Pattern>(make_pattern(l, n_eff));
      } catch (const UsageError& e) {
        if (!spec.stack_commas || l.text.find(',') == std::string::npos) throw;
        throw UsageError(comma_hint(e, s.spec));
      }
      if (slot->n != n_eff)
        throw InputError(
            "pattern '" + quoted(s.spec) + "': layer '" + l.text + "' has n = " + std::to_string(slot->n) +
            " but the stack has n = " + std::to_string(n_eff) + "; every layer must have equal n");
    }
    s.layers.push_back(slot);
  }
  s.n = static_cast<pos_t>(n_eff);
  return s;
}

std::uint64_t estimate_stack_bytes(const std::string& spec, std::uint64_t n) {
  return estimate_stack_bytes(parse_stack_spec(spec), n);
}

std::uint64_t estimate_stack_bytes(const PatternSpec& spec, std::uint64_t n) {
  std::map<std::string, const PatternSpec*> distinct;
  for (const auto& l : spec.parts) distinct.emplace(l.text, &l);
  std::uint64_t total = 0;
  for (const auto& [text, l] : distinct) total = sat_add(total, estimate_pattern_bytes(*l, n, true));
  return total;
}

StackProfile stack_profile(const Stack& s, const ProfileOptions& opt) {
  StackProfile r;
  r.n = s.n;
  ProfileOptions po = opt;
  po.per_position = true;  // the sums over layers need every position
  std::vector<std::uint64_t> cost(s.n, 0), cache(s.n, 0);
  for (const auto& layer : s.layers) {
    PatternProfile lp = cache_profile(*layer, po);
    r.nnz_a += lp.nnz_a;
    r.nnz_b += lp.nnz_b;
    r.total_decode_cost += lp.total_decode_cost;
    for (pos_t i = 0; i < s.n; ++i) {
      cost[i] += lp.decode_cost[i];
      cache[i] += lp.cache_size[i];
    }
    if (!opt.per_position) {
      lp.decode_cost.clear();
      lp.cache_size.clear();
      lp.kept_set.clear();
    }
    r.layers.push_back(std::move(lp));
  }
  for (pos_t i = 0; i < s.n; ++i) {
    r.max_decode_cost = std::max(r.max_decode_cost, cost[i]);
    if (cache[i] > r.max_cache) {
      r.max_cache = cache[i];
      r.argmax_cache = i;
    }
  }
  if (opt.per_position) {
    r.decode_cost = std::move(cost);
    r.cache_size = std::move(cache);
  }
  return r;
}

}  // namespace mixgraph
