#include "option_types.hpp"

#include <algorithm>

#include "mixgraph/analysis/option_checks.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/spec_files.hpp"

namespace mixgraph::cli {

CLI::Validator checked_count(bool allow_zero) {
  return CLI::Validator(
      [allow_zero](std::string& s) -> std::string {
        std::uint64_t v = 0;
        std::string why = analysis::checked_count_problem(s, allow_zero, v);
        if (why.empty()) s = std::to_string(v);
        return why;
      },
      "", "checked_count");
}

CLI::Validator finite_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string { return analysis::finite_range_problem(s, lo, hi); },
      analysis::finite_range_bound(lo, hi), "finite_range");
}

CLI::Validator nonempty_path() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return s.empty() ? "the value is empty: give a folder name (leave the option out for none)"
                         : std::string();
      },
      "", "nonempty_path");
}

CLI::Option* add_count_option(CLI::App& app, const std::string& names, std::string& text,
                              const std::string& help) {
  return app.add_option(names, text, help)->check(count_text())->type_name(type::kCount);
}

CLI::Validator count_text() {
  return CLI::Validator([](std::string& s) -> std::string { return analysis::count_text_problem(s); }, "",
                        "count_text");
}

CLI::Validator position_list(std::vector<std::string> extra) {
  return CLI::Validator(
      [extra](std::string& s) -> std::string {
        if (std::find(extra.begin(), extra.end(), s) != extra.end()) return {};
        return analysis::position_list_problem(s);
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
