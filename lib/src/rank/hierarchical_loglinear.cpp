// The decode state of log-linear attention (hierarchical.hpp, loglinear_decode_state): Fenwick levels and
// the number of summarised states a decoder keeps, in closed form.
#include <bit>

#include "mixgraph/error.hpp"
#include "mixgraph/hierarchical.hpp"

namespace mixgraph {

LogLinearDecodeState loglinear_decode_state(std::uint64_t n) {
  if (n < 1) throw UsageError("log-linear decode state: n must be >= 1");
  LogLinearDecodeState s;
  s.n = n;
  const std::uint64_t last = n - 1;  // the last query t
  const auto width = static_cast<std::uint32_t>(std::bit_width(last));
  s.levels = width + 1;
  // t < n with the most bits set: last itself when it is all ones (n a power of two), else 2^(width-1) - 1
  const std::uint32_t most = std::has_single_bit(n) ? width : width - 1;
  s.max_states = most + 1;
  s.max_kept_states = most;
  s.max_states_position = std::uint64_t{1} << most;  // t = 2^most - 1, position t + 1
  std::uint64_t set_bits = 0;
  for (std::uint32_t b = 0; b < width; ++b) {
    const std::uint64_t period = std::uint64_t{1} << (b + 1), half = std::uint64_t{1} << b;
    const std::uint64_t rest = n % period;
    set_bits += (n / period) * half + (rest > half ? rest - half : 0);
  }
  s.total_states = n + set_bits;
  return s;
}

}  // namespace mixgraph
