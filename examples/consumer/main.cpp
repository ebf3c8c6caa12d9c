// A minimal program using the installed mixgraph library through find_package(mixgraph).
#include <cstdio>
#include <mixgraph/pattern.hpp>
#include <mixgraph/profile.hpp>

int main() {
  const auto p = mixgraph::make_pattern("pow2", 64);
  const auto prof = mixgraph::cache_profile(p);
  std::printf("pow2 n=%u max_cache=%u\n", p.n, prof.max_cache);
  return prof.max_cache > 0 ? 0 : 1;
}
