#pragma once
// `mixgraph solve --attn-q Q.npy --attn-k K.npy`: A's weights from a real attention head per head
// (docs/math.md §5, "Real attention heads"); B seeded or from --weights-b. The options here; the checks and
// the weights in mixgraph/analysis/attention_options.hpp, which the Python package calls too.
#include <CLI/CLI.hpp>

#include "mixgraph/analysis/attention_options.hpp"

namespace mixgraph::cli {

using analysis::AttentionOptions;  // --attn-q / --attn-k / --attn-kernel (rank's too)

/// --attn-q, --attn-k, --attn-kernel (the names and meaning of rank's), filling o.
void add_solve_attention_options(CLI::App& app, AttentionOptions& o);

// The checks and the weights themselves are the analyses' (mixgraph/analysis/attention_options.hpp).
using analysis::attention_weights_from_arrays;
using analysis::check_solve_attention;
using analysis::solve_attention_weights;

}  // namespace mixgraph::cli
