#pragma once
// `mixgraph congestion` on a stack:P1,P2,... spec: the copy task across layers (docs/math.md §3).
#include <cstdint>
#include <string>
#include <vector>

#include "output.hpp"

namespace mixgraph::cli {

struct StackCongestionRequest {
  std::string spec;
  std::string n_text;   ///< the copy length N ("" with mtx: layers: n / 2)
  std::string routing;  ///< "" = every routing that fits
  std::uint64_t seed = 1;
  std::string paths_file;
  CommonOptions common;
  bool lp = false;  ///< --lp: the LP bound (and the integer optimum when tiny) on the stacked graph
  /// Options given that stacks do not take (e.g. "--sweep"): refused with one line (exit 2).
  std::vector<std::string> unsupported;
};

int run_stack_congestion(const StackCongestionRequest& r);

}  // namespace mixgraph::cli
