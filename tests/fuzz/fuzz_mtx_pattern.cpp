// The strict Matrix Market reader of pattern masks (mtx: specs): any bytes give a Csr or an InputError.
#include "fuzz_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/mtx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = fuzz::scratch(".mtx");
  static const bool init = (fuzz::limit_memory(), true);
  (void)init;
  fuzz::put(path, data, size);
  for (auto tri : {mixgraph::Triangle::Lower, mixgraph::Triangle::StrictlyLower}) {
    try {
      const mixgraph::Csr m = mixgraph::read_mtx_triangular(path, tri);
      // What was accepted is a valid lower-triangular CSR.
      if (m.ptr.size() != std::size_t(m.n) + 1 || m.ptr.back() != m.idx.size()) __builtin_trap();
      for (mixgraph::pos_t r = 0; r < m.n; ++r)
        for (auto k = m.ptr[r]; k < m.ptr[r + 1]; ++k)
          if (m.idx[k] > r) __builtin_trap();
    } catch (const mixgraph::Error&) {
    }
  }
  return 0;
}
