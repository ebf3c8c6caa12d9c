// CPU-only builds: entry_dots reports that CUDA is not built in (its reference is built either way).
#include "mixgraph/gpu_entry_dots.hpp"

namespace mixgraph::gpu {

std::string entry_dots(const EntryDots&, const void*, const void*, const std::int64_t*, const std::int64_t*,
                       double*, void*) {
  return "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
}

}  // namespace mixgraph::gpu
