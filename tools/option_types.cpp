#include "option_types.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/spec_files.hpp"
#include "mixgraph/sweep.hpp"

namespace mixgraph::cli {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// parse_count's message without its "<what>: " prefix (CLI11 puts the option name in front).
std::string reason(const UsageError& e, const std::string& what) {
  std::string m = e.what();
  if (m.rfind(what + ": ", 0) == 0)
    m.erase(0, what.size() + 2);
  else if (m.rfind(what + " ", 0) == 0)  // "value must be >= 1 (got -1)"
    m.erase(0, what.size() + 1);
  return m;
}

}  // namespace

CLI::Validator checked_count(bool allow_zero) {
  return CLI::Validator(
      [allow_zero](std::string& s) -> std::string {
        if (allow_zero && trim(s).rfind('-', 0) == 0) return "'" + s + "' is not in 0..2^64-1";
        try {
          const auto v = parse_count(s, "value");
          if (v == 0 && !allow_zero) return "'" + s + "' must be >= 1";
          s = std::to_string(v);
          return {};
        } catch (const UsageError& e) {
          return reason(e, "value");
        }
      },
      "", "checked_count");
}

CLI::Validator finite_range(double lo, double hi) {
  const bool open_top = hi == std::numeric_limits<double>::infinity();
  auto num = [](double v) {
    std::string t = std::to_string(v);
    t.erase(t.find_last_not_of('0') + 1);  // 0.500000 -> 0.5, 20.000000 -> 20.
    if (!t.empty() && t.back() == '.') t.pop_back();
    return t;
  };
  const std::string bound = open_top ? ">= " + num(lo) : "[" + num(lo) + ", " + num(hi) + "]";
  return CLI::Validator(
      [lo, hi, bound, open_top](std::string& s) -> std::string {
        const std::string t = trim(s);
        char* end = nullptr;
        const double v = t.empty() ? 0.0 : std::strtod(t.c_str(), &end);
        if (t.empty() || end != t.c_str() + t.size()) return "'" + s + "' is not a number";
        if (!std::isfinite(v))  // nan, inf, and 1e999 (strtod gives inf)
          return "'" + s + "' is not a finite number (give a value " + (open_top ? bound : "in " + bound) +
                 ")";
        if (v < lo || v > hi) return "'" + s + "' must be " + (open_top ? bound : "in " + bound);
        return {};
      },
      bound, "finite_range");
}

CLI::Validator nonempty_path() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return s.empty() ? "the value is empty: give a folder name (leave the option out for none)"
                         : std::string();
      },
      "", "nonempty_path");
}

CLI::Validator count_text() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        try {
          parse_count(s, "value");
          return {};
        } catch (const UsageError& e) {
          return reason(e, "value");
        }
      },
      "", "count_text");
}

CLI::Validator position_list(std::vector<std::string> extra) {
  return CLI::Validator(
      [extra](std::string& s) -> std::string {
        if (std::find(extra.begin(), extra.end(), s) != extra.end()) return {};
        try {
          std::string list = s;
          if (list.size() > 1 && list.back() == ',') list.pop_back();  // "128," = a one-item list
          parse_position_list(list, "value");
          return {};
        } catch (const UsageError& e) {
          return reason(e, "value");
        }
      },
      "", "position_list");
}

CLI::Validator pattern_spec() {
  return CLI::Validator([](std::string& s) -> std::string { return spec_file_name_hint(s); }, "",
                        "pattern_spec");
}

CLI::Option* add_seed_option(CLI::App& app, std::uint64_t& seed, const std::string& what) {
  return app.add_option("--seed", seed, what + "; 0..2^64-1 (also 2^k, 1e6 forms)")
      ->transform(checked_count(true))
      ->type_name(type::kUint64)
      ->default_val(seed);
}

CLI::Option* add_output_option(CLI::App& app, std::string& target, const std::string& help,
                               const std::string& legacy, const char* type_name) {
  const std::string names = "--output,-o" + (legacy.empty() ? "" : "," + legacy);
  return app.add_option(names, target, help)->type_name(type_name);
}

CLI::Option* add_format_option(CLI::App& app, std::string& format, const std::vector<std::string>& choices,
                               const std::vector<std::pair<std::string, std::string>>& refused) {
  std::string set;
  for (const auto& c : choices) set += (set.empty() ? "" : ",") + c;
  std::string listed;
  for (std::size_t k = 0; k < choices.size(); ++k)
    listed += (k == 0 ? "" : k + 1 == choices.size() ? " or " : ", ") + choices[k];
  return app
      .add_option("--format", format,
                  "Output format: " + listed + " (table for people, the others for programs)")
      ->check(CLI::Validator(
          [choices, refused, set](std::string& s) -> std::string {
            if (std::find(choices.begin(), choices.end(), s) != choices.end()) return {};
            for (const auto& [word, why] : refused)
              if (s == word) return "'" + s + "' is not offered here: " + why;
            return "'" + s + "' is not one of {" + set + "}";
          },
          "{" + set + "}", "choices"))
      ->default_val(choices.front());
}

}  // namespace mixgraph::cli
