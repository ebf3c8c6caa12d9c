// The option checks both front ends share (mixgraph/analysis/option_checks.hpp).
#include "mixgraph/analysis/option_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "mixgraph/analysis/cuts.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::analysis {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// A parser's message without its "value" prefix (the front end puts the option's name in front).
std::string reason(const UsageError& e) {
  std::string m = e.what();
  if (m.rfind("value: ", 0) == 0)
    m.erase(0, 7);
  else if (m.rfind("value ", 0) == 0)  // "value must be >= 1 (got -1)"
    m.erase(0, 6);
  return m;
}

}  // namespace

std::string count_text_problem(const std::string& text) {
  try {
    parse_count(text, "value");
    return {};
  } catch (const UsageError& e) {
    return reason(e);
  }
}

std::string checked_count_problem(const std::string& text, bool allow_zero, std::uint64_t& value) {
  if (allow_zero && trim(text).rfind('-', 0) == 0) return "'" + text + "' is not in 0..2^64-1";
  std::uint64_t v = 0;
  try {
    v = parse_count(text, "value");
  } catch (const UsageError& e) {
    return reason(e);
  }
  if (v == 0 && !allow_zero) return "'" + text + "' must be >= 1";
  value = v;
  return {};
}

std::string position_list_problem(const std::string& text) {
  try {
    std::string list = text;
    if (list.size() > 1 && list.back() == ',') list.pop_back();  // "128," = a one-item list
    parse_position_list(list, "value");
    return {};
  } catch (const UsageError& e) {
    return reason(e);
  }
}

std::string finite_range_bound(double lo, double hi) {
  auto num = [](double v) {
    std::string t = std::to_string(v);
    t.erase(t.find_last_not_of('0') + 1);  // 0.500000 -> 0.5, 20.000000 -> 20.
    if (!t.empty() && t.back() == '.') t.pop_back();
    return t;
  };
  std::string bound = hi == std::numeric_limits<double>::infinity() ? ">= " : "[";
  bound += num(lo);  // appended: GCC 12 warns falsely (-Wrestrict) on ">= " + num(lo) here
  if (hi != std::numeric_limits<double>::infinity()) bound += ", " + num(hi) + "]";
  return bound;
}

std::string finite_range_problem(const std::string& text, double lo, double hi) {
  const bool open_top = hi == std::numeric_limits<double>::infinity();
  const std::string bound = finite_range_bound(lo, hi);
  const std::string t = trim(text);
  char* end = nullptr;
  const double v = t.empty() ? 0.0 : std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size()) return "'" + text + "' is not a number";
  if (!std::isfinite(v))  // nan, inf, and 1e999 (strtod gives inf)
    return "'" + text + "' is not a finite number (give a value " + (open_top ? bound : "in " + bound) + ")";
  if (v < lo || v > hi) return "'" + text + "' must be " + (open_top ? bound : "in " + bound);
  return {};
}

std::string member_problem(const std::string& text, const std::vector<std::string>& choices) {
  if (std::find(choices.begin(), choices.end(), text) != choices.end()) return {};
  std::string set;
  for (const auto& c : choices) set += (set.empty() ? "" : ",") + c;
  return text + " not in {" + set + "}";
}

std::string threads_problem(long long threads) {
  if (threads >= 0 && threads <= kMaxThreads) return {};
  return "must be between 0 (all cores) and " + std::to_string(kMaxThreads) + " (got " +
         std::to_string(threads) + ")";
}

}  // namespace mixgraph::analysis
