#pragma once
// `stack:P1,P2,...` in pattern, distances and rank (docs/cli.md "Stacked layers"): the commands hand a stack
// spec here before building a single-layer pattern; options a stack does not support are refused (exit 2).
// The analyses are mixgraph/analysis/stack.hpp's queries; these print their results.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mixgraph/stack.hpp"
#include "output.hpp"

namespace mixgraph::cli {

struct StackRequest {
  StackRequest(std::string s, std::string n, CommonOptions c)
      : spec(std::move(s)), n_text(std::move(n)), common(std::move(c)) {}
  std::string spec;
  std::string n_text;
  CommonOptions common;
  bool profile = false;     ///< pattern: per-position sums
  bool summary = false;     ///< pattern/distances: no lists
  std::string source_text;  ///< distances: final-layer distances from this input position
  std::string method;       ///< rank: both | dense | flow
  std::string cuts_text;    ///< rank: --cuts ("" for the default cuts)
  std::uint64_t seed = 1;
  double tol = 0.0;
  /// Options the caller saw that stacks do not take (e.g. "--sweep"): refused with one line.
  std::vector<std::string> unsupported;
};

/// Refuses (UsageError, exit 2) the options a stack command was given but does not take, in one line:
/// "<command> with a stack: pattern does not take <options> (<why>)". Returns when there are none.
void refuse_stack_options(const std::vector<std::string>& unsupported, const std::string& command,
                          const std::string& why);

int run_stack_pattern(const StackRequest& r);
int run_stack_distances(const StackRequest& r);
int run_stack_rank(const StackRequest& r);

}  // namespace mixgraph::cli
