// The option checks both front ends share (mixgraph/analysis/option_checks.hpp), against independent
// references: the library's parsers (parse_count, parse_position_list) for what is accepted and the value,
// CLI11's own IsMember for the wording of a refused choice, and strtod / isfinite for the numbers. Part of
// test_analysis (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include "mixgraph/analysis/cuts.hpp"
#include "mixgraph/analysis/option_checks.hpp"
#include "mixgraph/analysis/weight_options.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/sweep.hpp"
#include "mixgraph/weight_files.hpp"

using namespace mixgraph;

namespace {
std::optional<std::uint64_t> library_count(const std::string& text) {
  try {
    return parse_count(text, "value");
  } catch (const UsageError&) {
    return std::nullopt;
  }
}
const std::vector<std::string> kCountTexts = {
    "4096", "2^20", "1e6",  "10^8", " 64 ", "0",    "-1",  "abc",
    "",     "1e99", "2^64", "2^63", "1.5",  "0x10", "1e0", "18446744073709551615"};
}  // namespace

TEST(AnalysisOptionChecks, CountsAreWhatTheLibraryParserTakes) {
  for (const auto& t : kCountTexts) {
    const auto ref = library_count(t);
    EXPECT_EQ(analysis::count_text_problem(t).empty(), ref.has_value()) << t;
    for (const bool allow_zero : {false, true}) {
      std::uint64_t v = 12345;
      const std::string why = analysis::checked_count_problem(t, allow_zero, v);
      const bool ok = ref && (*ref != 0 || allow_zero);
      EXPECT_EQ(why.empty(), ok) << t << " allow_zero " << allow_zero << ": " << why;
      EXPECT_EQ(v, ok ? *ref : 12345u) << t << " (a refused text leaves the value alone)";
      EXPECT_EQ(why.rfind("value", 0), std::string::npos) << why << ": the parser's own name is cut off";
    }
  }
  std::uint64_t v = 0;
  EXPECT_EQ(analysis::checked_count_problem("0", false, v), "'0' must be >= 1");
  EXPECT_EQ(analysis::checked_count_problem("-1", true, v), "'-1' is not in 0..2^64-1");
}

TEST(AnalysisOptionChecks, PositionListsAreWhatTheListParserTakes) {
  for (const std::string t : {"1,5,6", "1..5,9", "128,", "5..1", "0", "1,,2", "", ",", "1..99999999", "x"}) {
    std::string list = t;
    if (list.size() > 1 && list.back() == ',') list.pop_back();
    bool ref = true;
    try {
      analysis::parse_position_list(list, "value");
    } catch (const UsageError&) {
      ref = false;
    }
    EXPECT_EQ(analysis::position_list_problem(t).empty(), ref) << t;
  }
  EXPECT_EQ(analysis::position_list_problem("5..1"), "range '5..1' runs backwards (write LO..HI, LO <= HI)");
}

TEST(AnalysisOptionChecks, ARefusedChoiceReadsAsCliElevensIsMember) {
  const std::vector<std::string> choices = {"softmax", "linear"};
  CLI::IsMember is_member(choices);
  for (const std::string t : {"softmax", "linear", "foo", "", "Softmax"}) {
    std::string copy = t;
    EXPECT_EQ(analysis::member_problem(t, choices), is_member(copy)) << t;
  }
}

TEST(AnalysisOptionChecks, FiniteRangesRefuseWhatStrtodCallsNonFiniteOrOutside) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(analysis::finite_range_bound(0, 1), "[0, 1]");
  EXPECT_EQ(analysis::finite_range_bound(0.5, 20), "[0.5, 20]");
  EXPECT_EQ(analysis::finite_range_bound(2, inf), ">= 2");
  for (const std::string t :
       {"0", "1", "0.5", "2", "-0.1", "nan", "inf", "-inf", "1e999", "x", "", " 0.25 "}) {
    const auto b = t.find_first_not_of(' '), e = t.find_last_not_of(' ');
    const std::string s = b == std::string::npos ? "" : t.substr(b, e - b + 1);  // the text without blanks
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    const bool ref = !s.empty() && end == s.c_str() + s.size() && std::isfinite(v) && v >= 0 && v <= 1;
    EXPECT_EQ(analysis::finite_range_problem(t, 0, 1).empty(), ref) << t;
  }
  EXPECT_EQ(analysis::finite_range_problem("nan", 0, 1),
            "'nan' is not a finite number (give a value in [0, 1])");
  EXPECT_EQ(analysis::finite_range_problem("1", 2, inf), "'1' must be >= 2");
}

TEST(AnalysisOptionChecks, ThreadsFromZeroToTheLimit) {
  for (const long long t : {-1LL, 0LL, 1LL, 1024LL, 1025LL, 1LL << 40})
    EXPECT_EQ(analysis::threads_problem(t).empty(), t >= 0 && t <= analysis::kMaxThreads) << t;
  EXPECT_EQ(analysis::threads_problem(5000), "must be between 0 (all cores) and 1024 (got 5000)");
}

// heads_for_weights: the heads a solve has, against the rule written out here (without gates, any divisor of
// d; with gates or input gates, d itself, --heads left out (1) or d), and each front end's names in its
// words.
TEST(AnalysisWeightOptions, HeadsFollowTheRuleAndNameEachFrontEndsOptions) {
  const analysis::WeightOptionNames cli;
  const analysis::WeightOptionNames py = analysis::python_weight_option_names();
  for (const int gated : {0, 1, 2}) {
    WeightFiles f;
    if (gated == 1) f.gates = "g.npy";
    if (gated == 2) f.input_gates = "u.npy";
    for (std::size_t d = 1; d <= 12; ++d)
      for (int heads = 1; heads <= 13; ++heads) {
        const bool ok = gated ? (heads == 1 || std::size_t(heads) == d) : d % std::size_t(heads) == 0;
        const int want = gated ? int(d) : heads;
        for (const auto* names : {&cli, &py}) {
          if (ok) {
            EXPECT_EQ(analysis::heads_for_weights(f, heads, d, *names), want) << d << " " << heads;
            continue;
          }
          try {
            analysis::heads_for_weights(f, heads, d, *names);
            ADD_FAILURE() << "accepted d = " << d << ", heads = " << heads << ", gated " << gated;
          } catch (const UsageError& e) {
            const std::string m = e.what();
            const std::string expect =
                gated ? names->gates + " make every column its own head: " + names->heads + " must be " +
                            std::to_string(d) + " (X's columns) or left out"
                      : "X has " + std::to_string(d) + " columns, not a multiple of " + names->heads +
                            names->heads_value + std::to_string(heads);
            EXPECT_EQ(m, expect);
            EXPECT_EQ(m.find(names == &py ? "--" : "heads ="), std::string::npos) << m;
          }
        }
      }
  }
}
