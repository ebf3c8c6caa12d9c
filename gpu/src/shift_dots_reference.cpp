// The CPU reference of shift_dots (gpu_shift_dots.hpp): the sums row by row in double, and the argument
// checks the kernel shares.
#include "mixgraph/gpu_shift_dots.hpp"
#include "shift_dots_args.hpp"

namespace mixgraph::gpu {

std::string shift_dots_check(const ShiftDots& s, const void* z, const void* v, const double* part) {
  if (s.batch == 0 || s.n == 0 || s.d == 0) return "shift dots: batch, n and d must be at least 1";
  if (s.offsets.size() > kShiftDotsMaxOffsets)
    return "shift dots: at most " + std::to_string(kShiftDotsMaxOffsets) + " offsets";
  if (!z || !v || !part) return "shift dots: z, v and part must be given";
  return "";
}

namespace {
template <class T>
void sums(const ShiftDots& s, const T* z, const T* v, double* part) {
  const std::uint64_t d = s.d;
  for (std::size_t k = 0; k < s.offsets.size(); ++k) {
    const std::uint32_t o = s.offsets[k];
    for (std::uint32_t b = 0; b < s.batch; ++b)
      for (std::uint32_t i = o; i < s.n; ++i)
        for (std::uint64_t c = 0; c < d; ++c)
          part[k * d + c] += double(z[(std::uint64_t(b) * s.n + (s.z_reversed ? s.n - 1 - i : i)) * d + c]) *
                             double(v[(std::uint64_t(b) * s.n + i - o) * d + c]);
  }
}
}  // namespace

std::string shift_dots_reference(const ShiftDots& s, const void* z, const void* v, double* part) {
  const std::string err = shift_dots_check(s, z, v, part);
  if (!err.empty()) return err;
  if (s.fp64)
    sums(s, static_cast<const double*>(z), static_cast<const double*>(v), part);
  else
    sums(s, static_cast<const float*>(z), static_cast<const float*>(v), part);
  return "";
}

}  // namespace mixgraph::gpu
