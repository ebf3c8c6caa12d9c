// Pattern specs and expressions (pow2, window:w, expr:<f(k)>, offsets:..., a+b, +cache, ...): any text
// gives a Pattern at a small n or a mixgraph::Error. The first byte picks n in 1..256.
#include <string>

#include "fuzz_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool init = (fuzz::limit_memory(), true);
  (void)init;
  if (size == 0 || size > 512) return 0;
  const std::uint64_t n = 1 + data[0];
  std::string spec(reinterpret_cast<const char*>(data + 1), size - 1);
  if (spec.rfind("mtx:", 0) == 0) return 0;  // files: the .mtx harness covers them
  try {
    const mixgraph::Pattern p = mixgraph::make_pattern(spec, n);
    if (p.n != n) __builtin_trap();
  } catch (const mixgraph::Error&) {
  }
  return 0;
}
