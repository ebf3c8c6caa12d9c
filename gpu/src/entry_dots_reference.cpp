// The CPU reference of entry_dots (gpu_entry_dots.hpp): the sums entry by entry in double, and the argument
// checks the kernel shares.
#include <string>

#include "mixgraph/gpu_entry_dots.hpp"

namespace mixgraph::gpu {

std::string entry_dots_check(const EntryDots& s, const void* z, const void* v, const std::int64_t* rows,
                             const std::int64_t* cols, const double* out) {
  if (s.n == 0 || s.batch == 0 || s.heads == 0 || s.dh == 0)
    return "entry dots: n, batch, heads and dh must be at least 1";
  if (std::uint64_t(s.batch) * s.heads * s.dh > 0xffffffffULL) return "entry dots: too many columns";
  if (s.heads > 65535) return "entry dots: at most 65535 heads";
  if (s.nnz > 0x7fffffffULL) return "entry dots: at most 2^31 - 1 entries";
  if (s.nnz && (!z || !v || !rows || !cols || !out))
    return "entry dots: z, v, rows, cols and out must be given";
  return "";
}

namespace {
template <class T>
std::string sums(const EntryDots& s, const T* z, const T* v, const std::int64_t* rows,
                 const std::int64_t* cols, double* out) {
  const std::uint64_t D = std::uint64_t(s.batch) * s.heads * s.dh;
  for (std::uint64_t e = 0; e < s.nnz; ++e) {
    if (rows[e] < 0 || cols[e] < 0 || rows[e] >= std::int64_t(s.n) || cols[e] >= std::int64_t(s.n))
      return "entry dots: entry " + std::to_string(e) + " is outside 0..n-1";
    const T* zr = z + std::uint64_t(rows[e]) * D;
    const T* vr = v + std::uint64_t(cols[e]) * D;
    for (std::uint32_t h = 0; h < s.heads; ++h) {
      double acc = 0;
      for (std::uint32_t b = 0; b < s.batch; ++b) {
        const std::uint64_t c0 = (std::uint64_t(b) * s.heads + h) * s.dh;
        for (std::uint32_t c = 0; c < s.dh; ++c) acc += double(zr[c0 + c]) * double(vr[c0 + c]);
      }
      out[std::uint64_t(h) * s.nnz + e] = acc;
    }
  }
  return "";
}
}  // namespace

std::string entry_dots_reference(const EntryDots& s, const void* z, const void* v, const std::int64_t* rows,
                                 const std::int64_t* cols, double* out) {
  const std::string err = entry_dots_check(s, z, v, rows, cols, out);
  if (!err.empty()) return err;
  if (s.fp64) return sums(s, static_cast<const double*>(z), static_cast<const double*>(v), rows, cols, out);
  return sums(s, static_cast<const float*>(z), static_cast<const float*>(v), rows, cols, out);
}

}  // namespace mixgraph::gpu
