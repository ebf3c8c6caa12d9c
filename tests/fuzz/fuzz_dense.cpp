// The dense X readers of `solve --input`: .npy, Matrix Market array/coordinate and CSV (the first byte
// picks the format). Any bytes give an array whose size matches its shape, or a mixgraph::Error.
#include "fuzz_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string paths[3] = {fuzz::scratch(".npy"), fuzz::scratch(".mtx"), fuzz::scratch(".csv")};
  static const bool init = (fuzz::limit_memory(), true);
  (void)init;
  if (size == 0) return 0;
  const std::string& path = paths[data[0] % 3];
  fuzz::put(path, data + 1, size - 1);
  try {
    const mixgraph::NpyArray a = mixgraph::read_dense(path);
    if ((a.fp64 ? a.f64.size() : a.f32.size()) != a.rows * a.cols) __builtin_trap();
  } catch (const mixgraph::Error&) {
  }
  return 0;
}
