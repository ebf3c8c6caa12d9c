// A minimal program using the installed mixgraph library through find_package(mixgraph): a pattern's cache
// profile (mixgraph::core), the claims of `mixgraph verify` (mixgraph::claims) and the GPU query
// (mixgraph::gpu: the CUDA solver where it was built, a CPU fallback otherwise).
#include <cstdio>
#include <mixgraph/claims.hpp>
#include <mixgraph/gpu.hpp>
#include <mixgraph/pattern.hpp>
#include <mixgraph/profile.hpp>

int main() {
  const auto p = mixgraph::make_pattern("pow2", 64);
  const auto prof = mixgraph::cache_profile(p);
  const auto claims = mixgraph::registered_claims();
  const auto gpu = mixgraph::gpu::device_info();
  std::printf("pow2 n=%u max_cache=%u claims=%zu gpu_built_in=%d\n", p.n, prof.max_cache, claims.size(),
              gpu.built_in ? 1 : 0);
  return prof.max_cache > 0 && !claims.empty() ? 0 : 1;
}
