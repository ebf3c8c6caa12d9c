#pragma once
// The counter-based generator of seeded weights, one definition for the host and the device (C++17, no
// other mixgraph header; __host__ __device__ under nvcc). A weight is a pure function of
// (seed + head, matrix, reader row i, read column j, reads of row i), so the solvers make each one where
// it is used and no per-nonzero array is stored (docs/formats.md, "Seeded weights", reproduces it in numpy).
//
//   key    = splitmix64(splitmix64(seed + head) ^ (matrix * 0x632be59bd9b4e019))   matrix: 1 = B, 2 = A
//   z      = splitmix64(key ^ splitmix64((i << 32) | j))                             i, j 0-indexed, j <= i
//   mag    = ((z >> 12) | 2^52) * 2^-53                       in [0.5, 1), exact in binary64
//   w_ij   = (total / r_i) * (z & 1 ? -mag : mag)             total 0.9 for B, 1 for A; r_i reads of row i
//
// Every step is exact or one correctly rounded binary64 operation, so host, device and numpy agree
// bit for bit (FMA contraction cannot change a product of two numbers).
#include <cstdint>

#if defined(__CUDACC__)
#define MIXGRAPH_HD __host__ __device__ __forceinline__
#else
#define MIXGRAPH_HD inline
#endif

namespace mixgraph::wgen {

constexpr std::uint64_t kMatrixB = 1;  ///< the matrix id of B's weights
constexpr std::uint64_t kMatrixA = 2;  ///< the matrix id of A's weights
constexpr double kTotalB = 0.9;        ///< sum_j |beta_ij| <= 0.9, so ||(I - B)^{-1}||_inf <= 10
constexpr double kTotalA = 1.0;        ///< sum_j |alpha_ij| <= 1

MIXGRAPH_HD std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The stream of one (seed, head, matrix): computed once per head and matrix.
MIXGRAPH_HD std::uint64_t stream_key(std::uint64_t seed, std::uint64_t head, std::uint64_t matrix) {
  return splitmix64(splitmix64(seed + head) ^ (matrix * 0x632be59bd9b4e019ULL));
}

/// +-U[0.5, 1) for the read of column j by row i (0-indexed positions).
MIXGRAPH_HD double unit_draw(std::uint64_t key, std::uint32_t i, std::uint32_t j) {
  const std::uint64_t z = splitmix64(key ^ splitmix64((std::uint64_t(i) << 32) | std::uint64_t(j)));
  const double mag = double((z >> 12) | (std::uint64_t(1) << 52)) * 0x1.0p-53;
  return (z & 1) ? -mag : mag;
}

/// The weight of read (i, j) when row i has `reads` reads in this matrix (total: kTotalB or kTotalA).
MIXGRAPH_HD double weight(std::uint64_t key, double total, std::uint32_t reads, std::uint32_t i,
                          std::uint32_t j) {
  return (total / double(reads)) * unit_draw(key, i, j);
}

/// One uniform draw in [0, 1) from (seed, stream, row, col) (weights.hpp's hash_uniform):
///   h = splitmix64(seed ^ splitmix64(stream * 0x632be59bd9b4e019)); h = splitmix64(h ^ row);
///   h = splitmix64(h ^ (col * 0xd6e8feb86659fd93));  u = (h >> 11) * 2^-53
MIXGRAPH_HD double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t row, std::uint64_t col) {
  std::uint64_t h = splitmix64(seed ^ splitmix64(stream * 0x632be59bd9b4e019ULL));
  h = splitmix64(h ^ row);
  h = splitmix64(h ^ (col * 0xd6e8feb86659fd93ULL));
  return double(h >> 11) * 0x1.0p-53;
}

constexpr std::uint64_t kStreamX = 1001;  ///< the stream of seeded inputs (solve --random)

/// Seeded input X[i][c] = 2 u - 1 in [-1, 1), u = uniform(seed, kStreamX, i, c) (0-indexed; 2 u is exact,
/// so the subtraction is the one rounding, also where it is contracted into an FMA). fp32 runs round it
/// to float32. Made on the host (CPU solves) or on the device (GPU solves), the same bits.
MIXGRAPH_HD double input_value(std::uint64_t seed, std::uint64_t i, std::uint64_t c) {
  return 2 * uniform(seed, kStreamX, i, c) - 1;
}

}  // namespace mixgraph::wgen
