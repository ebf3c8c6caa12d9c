#pragma once
// Argument checks shared by the gated scan's kernels and its CPU reference (gated_scan_reference.cpp).
#include <string>

#include "mixgraph/gpu_gated_scan.hpp"

namespace mixgraph::gpu {
/// "" or what is wrong: sizes, the segment, the input, gates and workspace present, some output asked for.
std::string gated_scan_check(const GatedScan& s, const void* in, const void* g, const void* work,
                             bool any_out);
}  // namespace mixgraph::gpu
