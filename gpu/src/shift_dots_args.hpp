#pragma once
// Argument checks shared by shift_dots's kernel and its CPU reference (shift_dots_reference.cpp).
#include <string>

#include "mixgraph/gpu_shift_dots.hpp"

namespace mixgraph::gpu {
std::string shift_dots_check(const ShiftDots& s, const void* z, const void* v, const double* part);
}  // namespace mixgraph::gpu
