// CPU-only builds: the gated scan's device entry points report that CUDA is not built in (the reference in
// gated_scan_reference.cpp is built either way).
#include "mixgraph/gpu_gated_scan.hpp"

namespace mixgraph::gpu {

namespace {
const char* kNote =
    "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
}

std::string gated_scan_forward(const GatedScan&, const GatedScanForward&, void*) {
  return kNote;
}
std::string gated_scan_backward(const GatedScan&, const GatedScanBackward&, void*) {
  return kNote;
}

}  // namespace mixgraph::gpu
