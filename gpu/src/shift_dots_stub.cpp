// CPU-only builds: shift_dots reports that CUDA is not built in (its reference is built either way).
#include "mixgraph/gpu_shift_dots.hpp"

namespace mixgraph::gpu {

std::string shift_dots(const ShiftDots&, const void*, const void*, double*, void*) {
  return "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
}

}  // namespace mixgraph::gpu
