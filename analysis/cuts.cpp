// Position and cut lists in text (cuts.hpp).
#include "mixgraph/analysis/cuts.hpp"

#include "mixgraph/error.hpp"
#include "mixgraph/rank.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::analysis {
namespace {

/// The most values a position list may name (ranges included): checked before anything is allocated.
constexpr std::uint64_t kMaxListValues = std::uint64_t{1} << 24;

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

std::vector<std::uint64_t> parse_position_list(const std::string& text, const std::string& what) {
  std::vector<std::uint64_t> out;
  if (trim(text).empty()) throw UsageError(what + ": empty list (write e.g. 1,5,6 or 1..5)");
  std::size_t start = 0;
  std::uint64_t total = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string item =
        trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.empty()) throw UsageError(what + ": empty item in list '" + text + "'");
    const auto dots = item.find("..");
    std::uint64_t lo = 0, hi = 0;
    if (dots == std::string::npos) {
      lo = hi = parse_count(item, what);
    } else {
      lo = parse_count(item.substr(0, dots), what);
      hi = parse_count(item.substr(dots + 2), what);
      if (hi < lo) throw UsageError(what + ": range '" + item + "' runs backwards (write LO..HI, LO <= HI)");
    }
    if (lo < 1) throw UsageError(what + ": '" + item + "' must be >= 1 (positions are 1-indexed)");
    total += hi - lo + 1;
    if (hi - lo >= kMaxListValues || total > kMaxListValues)
      throw UsageError(what + ": '" + text + "' names more than 2^24 values");
    for (std::uint64_t v = lo; v <= hi; ++v) out.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<pos_t> parse_cuts(const std::string& text, pos_t n, const std::string& name) {
  if (text.empty()) return {};
  if (text == "all") return all_cuts(n);
  if (text.find(',') == std::string::npos && text.find("..") == std::string::npos) {
    const auto count = parse_count(text, name);
    return spaced_cuts(n, count);
  }
  std::vector<pos_t> c;
  std::string list = text;
  if (!list.empty() && list.back() == ',') list.pop_back();  // "128," = the single cut 128
  for (auto k : parse_position_list(list, name)) {
    if (k < 1 || k >= n)
      throw UsageError(name + ": cut " + std::to_string(k) + " is outside 1.." + std::to_string(n - 1) +
                       " (cut K separates positions 1..K from K+1..n)");
    c.push_back(static_cast<pos_t>(k));
  }
  return c;
}

}  // namespace mixgraph::analysis
