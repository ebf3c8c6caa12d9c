#pragma once
// Argument checks shared by shift_add's kernel and its CPU reference (shift_add_reference.cpp).
#include <string>

#include "mixgraph/gpu_shift_add.hpp"

namespace mixgraph::gpu {
std::string shift_add_check(const ShiftAdd& s, const void* table, const void* z, const void* out);
}  // namespace mixgraph::gpu
