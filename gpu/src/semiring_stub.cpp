// CPU-only builds: the GPU semiring entry points report that CUDA is not built in.
#include "mixgraph/gpu_semiring.hpp"

namespace mixgraph::gpu {

namespace {
SemiringRun not_built_in(const char* ring, const SemiringStructure& s) {
  SemiringRun r;
  r.kernel = std::string("gpu-semiring-") + ring + (s.implicit ? "-implicit" : "-csr");
  r.note = "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
  return r;
}
}  // namespace

SemiringRun semiring_distances(const SemiringStructure& s, const std::uint32_t*, std::uint32_t,
                               std::uint32_t*, std::uint32_t) {
  return not_built_in("minplus", s);
}

SemiringRun semiring_reachability(const SemiringStructure& s, const std::uint32_t*, std::uint32_t,
                                  std::uint8_t*, std::uint32_t) {
  return not_built_in("orand", s);
}

SemiringRun semiring_path_counts(const SemiringStructure& s, const std::uint32_t*, std::uint32_t,
                                 std::uint32_t*, std::uint64_t*, bool* overflow, std::uint32_t) {
  if (overflow) *overflow = false;
  return not_built_in("count", s);
}

}  // namespace mixgraph::gpu
