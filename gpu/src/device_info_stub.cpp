#include "mixgraph/gpu.hpp"

namespace mixgraph::gpu {

DeviceInfo device_info() {
  DeviceInfo d;
  d.note = "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
  return d;
}

}  // namespace mixgraph::gpu
