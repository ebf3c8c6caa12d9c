// The pieces of a pattern spec and the files it reads (mixgraph/spec_files.hpp).
#include "mixgraph/spec_files.hpp"

#include <algorithm>
#include <cctype>

#include "core/text_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/stack.hpp"

namespace mixgraph {

namespace {

using detail::trim;

bool starts_with(const std::string& s, const char* p) {
  return s.rfind(p, 0) == 0;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  for (std::size_t start = 0;;) {
    const auto at = s.find(sep, start);
    out.push_back(trim(s.substr(start, at == std::string::npos ? std::string::npos : at - start)));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

void add_once(std::vector<std::string>& out, const std::string& s) {
  if (!s.empty() && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
}

/// level: 0 the whole spec (stack: or heads: allowed), 1 a layer or head (a union allowed), 2 a union part.
/// Wrappers that cannot nest there are left as pieces, so the walk is at most three levels deep.
void walk(const std::string& spec_in, int level, std::vector<std::string>& out) {
  std::string spec = trim(spec_in);
  if (level == 0 && starts_with(spec, "stack:")) {
    std::vector<std::string> layers;
    try {
      layers = stack_layer_specs(spec);
    } catch (const Error&) {
      return;  // bad grammar: make_stack names it
    }
    std::vector<std::string> distinct;  // repetitions: each layer once
    for (const auto& l : layers) add_once(distinct, l);
    for (const auto& l : distinct) walk(l, 1, out);
    return;
  }
  if (level == 0 && starts_with(spec, "heads:")) {
    for (const auto& h : split(spec.substr(6), ';')) walk(h, 1, out);
    return;
  }
  std::size_t end = spec.size();  // a trailing +cache (repeated: make_pattern names the fault)
  while (end > 6 && spec.compare(end - 6, 6, "+cache") == 0) {
    end -= 6;
    while (end > 0 && (spec[end - 1] == ' ' || spec[end - 1] == '\t')) --end;
  }
  spec.resize(end);
  if (level <= 1 && spec.find('|') != std::string::npos) {
    for (const auto& part : split(spec, '|')) walk(part, 2, out);
    return;
  }
  add_once(out, spec);
}

}  // namespace

std::vector<std::string> spec_leaf_parts(const std::string& spec) {
  std::vector<std::string> out;
  walk(spec, 0, out);
  return out;
}

std::vector<std::string> spec_input_files(const std::string& spec) {
  std::vector<std::string> files;
  for (const auto& marked : spec_leaf_parts(spec)) {
    const std::string part = strip_read_mark(marked);  // mtx:B.mtx@A reads B.mtx
    if (starts_with(part, "mtx:")) {
      for (const auto& f : split(part.substr(4), ',')) add_once(files, f);
    } else if (starts_with(part, "topk-blocks:")) {
      const auto c1 = part.find(',');
      const auto c2 = c1 == std::string::npos ? c1 : part.find(',', c1 + 1);
      if (c2 != std::string::npos) add_once(files, trim(part.substr(c2 + 1)));
    }
  }
  return files;
}

std::string spec_file_name_hint(const std::string& spec) {
  // every union part, head and stack layer (a bad stack gives none: make_stack names its fault)
  for (const auto& part : spec_leaf_parts(spec)) {
    if (part.rfind("mtx:", 0) == 0 || part.rfind("topk-blocks:", 0) == 0) continue;
    std::size_t start = 0;  // a ',' list that is not all layers stays one piece: stack:B.mtx,ssm
    while (start <= part.size()) {
      const auto comma = part.find(',', start);
      const std::string piece =
          trim(part.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      std::string lower = strip_read_mark(piece);  // a read mark is not part of the file name: B.mtx@A
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (lower.size() > 4 && lower.compare(lower.size() - 4, 4, ".mtx") == 0)
        return "'" + piece + "' is a file name: did you mean mtx:" + piece + "?";
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return "";
}

}  // namespace mixgraph
