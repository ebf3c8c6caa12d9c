// Pattern specs and expressions (pow2, window:w, expr:<f(k)>, offsets:..., a+b, +cache, unions with read
// marks, heads:P1;P2, stack:P1,P2 with (LIST)*k repetitions, ...): any text gives a Pattern (or a Stack) at
// a small n or a mixgraph::Error; the spec walk that lists a spec's pieces and files never fails. The first
// byte picks n in 1..256.
#include <string>

#include "fuzz_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"
#include "mixgraph/spec_files.hpp"
#include "mixgraph/stack.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool init = (fuzz::limit_memory(), true);
  (void)init;
  if (size == 0 || size > 512) return 0;
  const std::uint64_t n = 1 + data[0];
  std::string spec(reinterpret_cast<const char*>(data + 1), size - 1);
  // files: the .mtx and .npy harnesses cover the readers; a spec naming one is not opened here
  if (spec.find("mtx:") != std::string::npos || spec.find("topk-blocks:") != std::string::npos) return 0;
  (void)mixgraph::spec_input_files(spec);  // walks every wrapper; reads nothing
  try {
    if (mixgraph::is_stack_spec(spec)) {
      (void)mixgraph::estimate_stack_bytes(spec, n);
      const mixgraph::Stack s = mixgraph::make_stack(spec, n);
      if (s.n != n || s.depth() == 0 || s.depth() > mixgraph::kMaxStackLayers) __builtin_trap();
      mixgraph::ProfileOptions po;
      po.threads = 1;
      const auto prof = mixgraph::stack_profile(s, po);
      if (prof.layers.size() != s.depth()) __builtin_trap();
    } else {
      const mixgraph::Pattern p = mixgraph::make_pattern(spec, n);
      if (p.n != n) __builtin_trap();
    }
  } catch (const mixgraph::Error&) {
  }
  return 0;
}
