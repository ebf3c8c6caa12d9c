// CPU-only builds: shift_add reports that CUDA is not built in (its reference is built either way).
#include "mixgraph/gpu_shift_add.hpp"

namespace mixgraph::gpu {

std::string shift_add(const ShiftAdd&, const void*, const void*, void*, void*) {
  return "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
}

}  // namespace mixgraph::gpu
