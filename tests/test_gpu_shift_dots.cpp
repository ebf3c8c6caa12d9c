// shift_dots (gpu_shift_dots.hpp): the CPU reference against the shifted products built from a zero-padded
// shifted copy of v, and argument checks; on a GPU, the kernel against the reference (skipped without one).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernel_check.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_shift_dots.hpp"
#include "mixgraph/gpu_solve.hpp"

using namespace mixgraph;

namespace {

// part[k][c] from a copy of v moved down by o rows within each sequence (zeros above), then plain products
std::vector<double> by_shifted_copies(const gpu::ShiftDots& s, const std::vector<double>& z,
                                      const std::vector<double>& v) {
  const std::size_t d = s.d, rows = std::size_t(s.batch) * s.n;
  std::vector<double> part(s.offsets.size() * d, 0.0);
  for (std::size_t k = 0; k < s.offsets.size(); ++k) {
    std::vector<double> sh(rows * d, 0.0);
    for (std::size_t r = 0; r < rows; ++r)
      if (r % s.n >= s.offsets[k])
        for (std::size_t c = 0; c < d; ++c) sh[r * d + c] = v[(r - s.offsets[k]) * d + c];
    for (std::size_t e = 0; e < rows * d; ++e) part[k * d + e % d] += z[e] * sh[e];
  }
  return part;
}

}  // namespace

TEST(ShiftDotsReference, MatchesShiftedCopies) {
  gpu::ShiftDots s;
  s.batch = 3, s.n = 50, s.d = 7, s.fp64 = true, s.offsets = {0, 1, 2, 4, 8, 16, 32, 49, 60};
  const std::vector<double> z = test::random_values(std::size_t(3) * 50 * 7, 1),
                            v = test::random_values(std::size_t(3) * 50 * 7, 2);
  std::vector<double> part(s.offsets.size() * s.d, 0.0);
  ASSERT_EQ(gpu::shift_dots_reference(s, z.data(), v.data(), part.data()), "");
  EXPECT_LT(test::relerr(by_shifted_copies(s, z, v), part), 1e-14);
  s.offsets.assign(gpu::kShiftDotsMaxOffsets + 1, 1);
  EXPECT_NE(gpu::shift_dots_reference(s, z.data(), v.data(), part.data()), "");
}

TEST(ShiftDotsReference, ReversedZIsTheFlippedZ) {
  gpu::ShiftDots s;
  s.batch = 2, s.n = 33, s.d = 5, s.fp64 = true, s.offsets = {0, 1, 4, 32};
  const std::size_t N = std::size_t(2) * 33 * 5;
  const std::vector<double> z = test::random_values(N, 11), v = test::random_values(N, 12);
  std::vector<double> flipped(N);  // each sequence's rows in reverse order
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t i = 0; i < 33; ++i)
      for (std::size_t c = 0; c < 5; ++c) flipped[(b * 33 + 32 - i) * 5 + c] = z[(b * 33 + i) * 5 + c];
  std::vector<double> want(s.offsets.size() * s.d, 0.0), got(want.size(), 0.0);
  ASSERT_EQ(gpu::shift_dots_reference(s, z.data(), v.data(), want.data()), "");
  s.z_reversed = true;
  ASSERT_EQ(gpu::shift_dots_reference(s, flipped.data(), v.data(), got.data()), "");
  EXPECT_LT(test::relerr(want, got), 1e-15);
  EXPECT_LT(test::relerr(by_shifted_copies(s, z, v), got), 1e-14);
}

TEST(GpuShiftDots, KernelMatchesTheReference) {
  const gpu::DeviceInfo info = gpu::device_info();
  if (!info.usable()) GTEST_SKIP() << "no usable CUDA device: " << info.note;
  for (bool fp64 : {false, true})
    for (bool rev : {false, true}) {
      gpu::ShiftDots s;
      s.batch = 2, s.n = 3001, s.d = 40, s.fp64 = fp64,
      s.z_reversed = rev;  // 40 columns: a partial block of 32
      for (std::uint32_t o = 1; o < s.n; o *= 2) s.offsets.push_back(o);
      const std::size_t N = std::size_t(s.batch) * s.n * s.d, es = fp64 ? 8 : 4;
      const std::vector<double> z = test::random_values(N, 3), v = test::random_values(N, 4);
      std::vector<double> ref(s.offsets.size() * s.d, 0.0), got(ref.size(), 0.0);
      std::vector<float> zf(z.begin(), z.end()), vf(v.begin(), v.end());
      // the reference on the values the device sees
      if (fp64)
        ASSERT_EQ(gpu::shift_dots_reference(s, z.data(), v.data(), ref.data()), "");
      else
        ASSERT_EQ(gpu::shift_dots_reference(s, zf.data(), vf.data(), ref.data()), "");
      void *dz = nullptr, *dv = nullptr, *dp = nullptr;
      ASSERT_EQ(gpu::device_alloc(&dz, N * es), "");
      ASSERT_EQ(gpu::device_alloc(&dv, N * es), "");
      ASSERT_EQ(gpu::device_alloc(&dp, got.size() * 8), "");
      ASSERT_EQ(gpu::copy_to_device(dz, fp64 ? static_cast<const void*>(z.data()) : zf.data(), N * es), "");
      ASSERT_EQ(gpu::copy_to_device(dv, fp64 ? static_cast<const void*>(v.data()) : vf.data(), N * es), "");
      ASSERT_EQ(gpu::copy_to_device(dp, got.data(), got.size() * 8), "");  // zeros: part is added to
      ASSERT_EQ(gpu::shift_dots(s, dz, dv, static_cast<double*>(dp)), "");
      ASSERT_EQ(gpu::copy_to_host(got.data(), dp, got.size() * 8), "");
      EXPECT_LT(test::relerr(ref, got), fp64 ? 1e-12 : 1e-5) << (fp64 ? "fp64" : "fp32") << " rev " << rev;
      gpu::device_free(dz);
      gpu::device_free(dv);
      gpu::device_free(dp);
    }
}
