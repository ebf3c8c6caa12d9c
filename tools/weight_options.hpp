#pragma once
// The weight-file options (--weights-a, --weights-b, --gates, --input-gates), one parser for every command
// that takes the user's weights (solve, validate); the heads they imply are the analyses'
// (mixgraph/analysis/weight_options.hpp), which the Python package applies too.
#include <CLI/CLI.hpp>

#include "mixgraph/analysis/weight_options.hpp"
#include "mixgraph/weight_files.hpp"

namespace mixgraph::cli {

/// Adds the four options, filling f (docs/cli.md, docs/formats.md "Weight files").
void add_weight_options(CLI::App& app, WeightFiles& f);

using analysis::heads_for_weights;

}  // namespace mixgraph::cli
