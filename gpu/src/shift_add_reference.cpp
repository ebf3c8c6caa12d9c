// The CPU reference of shift_add (gpu_shift_add.hpp): the sums row by row, and the argument checks the
// kernel shares.
#include "mixgraph/gpu_shift_add.hpp"
#include "shift_add_args.hpp"

namespace mixgraph::gpu {

std::string shift_add_check(const ShiftAdd& s, const void* table, const void* z, const void* out) {
  if (s.n == 0 || s.d == 0 || s.heads == 0 || s.d % s.heads != 0)
    return "shift add: n, d and heads must be at least 1, d a multiple of heads";
  if (s.offsets.size() > kShiftAddMaxOffsets)
    return "shift add: at most " + std::to_string(kShiftAddMaxOffsets) + " offsets";
  if (!table || !z || !out) return "shift add: table, z and out must be given";
  return "";
}

namespace {
template <class T>
void sums(const ShiftAdd& s, const T* table, const T* z, T* out) {
  const std::uint64_t d = s.d, dh = s.d / s.heads, K = s.offsets.size();
  for (std::uint64_t i = 0; i < s.n; ++i)
    for (std::uint64_t c = 0; c < d; ++c) {
      T acc = T(0);
      for (std::uint64_t k = 0; k < K; ++k) {
        const std::uint64_t j = i + s.offsets[k];
        if (j >= s.n) continue;
        const std::uint64_t r = s.z_reversed ? s.n - 1 - j : j;
        acc += table[(c / dh) * K + k] * z[r * d + c];
      }
      out[i * d + c] = acc;
    }
}
}  // namespace

std::string shift_add_reference(const ShiftAdd& s, const void* table, const void* z, void* out) {
  const std::string err = shift_add_check(s, table, z, out);
  if (!err.empty()) return err;
  if (s.fp64)
    sums(s, static_cast<const double*>(table), static_cast<const double*>(z), static_cast<double*>(out));
  else
    sums(s, static_cast<const float*>(table), static_cast<const float*>(z), static_cast<float*>(out));
  return "";
}

}  // namespace mixgraph::gpu
