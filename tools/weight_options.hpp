#pragma once
// The weight-file options (--weights-a, --weights-b, --gates, --input-gates), one parser for every command
// that takes the user's weights (solve, validate), and the heads they imply.
#include <CLI/CLI.hpp>
#include <cstddef>

#include "mixgraph/weight_files.hpp"

namespace mixgraph::cli {

/// Adds the four options, filling f (docs/cli.md, docs/formats.md "Weight files").
void add_weight_options(CLI::App& app, WeightFiles& f);

/// The heads a run has: `heads` as given, or d with gates (every column its own head). Throws UsageError
/// when the gates and --heads disagree or d is not a multiple of the heads.
int heads_for_weights(const WeightFiles& f, int heads, std::size_t d);

}  // namespace mixgraph::cli
