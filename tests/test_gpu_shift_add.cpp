// shift_add (gpu_shift_add.hpp): the CPU reference against A^T Z with A built as a dense matrix per head
// (z flipped by hand where the call says z_reversed), and argument checks; on a GPU, the kernel against the
// reference (skipped without one), with zero table entries that the kernel skips.
#include <gtest/gtest.h>

#include <vector>

#include "kernel_check.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_shift_add.hpp"
#include "mixgraph/gpu_solve.hpp"

using namespace mixgraph;

namespace {

// out = A_h^T z per head h, A_h[i][i - o_k] += table[h][k] as a dense n x n matrix (z flipped first when
// s.z_reversed)
std::vector<double> by_dense_transpose(const gpu::ShiftAdd& s, const std::vector<double>& table,
                                       std::vector<double> z) {
  const std::size_t n = s.n, d = s.d, dh = d / s.heads, K = s.offsets.size();
  if (s.z_reversed)
    for (std::size_t i = 0; i < n / 2; ++i)
      for (std::size_t c = 0; c < d; ++c) std::swap(z[i * d + c], z[(n - 1 - i) * d + c]);
  std::vector<double> out(n * d, 0.0);
  for (std::size_t h = 0; h < s.heads; ++h) {
    std::vector<double> A(n * n, 0.0);
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t i = s.offsets[k]; i < n; ++i) A[i * n + i - s.offsets[k]] += table[h * K + k];
    for (std::size_t i = 0; i < n; ++i)  // out_i = sum_j A[j][i] z_j
      for (std::size_t j = 0; j < n; ++j)
        if (A[j * n + i] != 0)
          for (std::size_t c = h * dh; c < (h + 1) * dh; ++c) out[i * d + c] += A[j * n + i] * z[j * d + c];
  }
  return out;
}

}  // namespace

TEST(ShiftAddReference, MatchesTheDenseTranspose) {
  for (bool rev : {false, true}) {
    gpu::ShiftAdd s;
    s.n = 70, s.d = 12, s.heads = 3, s.fp64 = true, s.z_reversed = rev;
    s.offsets = {0, 1, 3, 8, 16, 69, 90};  // 90 > n: reads nothing
    const std::vector<double> table = test::random_values(std::size_t(3) * 7, 5),
                              z = test::random_values(std::size_t(70) * 12, 6);
    std::vector<double> out(z.size(), 7.0);
    ASSERT_EQ(gpu::shift_add_reference(s, table.data(), z.data(), out.data()), "");
    EXPECT_LT(test::relerr(by_dense_transpose(s, table, z), out), 1e-14) << "z_reversed " << rev;
  }
  gpu::ShiftAdd s;
  s.n = 4, s.d = 3, s.heads = 2;  // d not a multiple of the heads
  float v[12] = {};
  EXPECT_NE(gpu::shift_add_reference(s, v, v, v), "");
  s.heads = 1;
  s.offsets.assign(gpu::kShiftAddMaxOffsets + 1, 1);
  EXPECT_NE(gpu::shift_add_reference(s, v, v, v), "");
}

TEST(GpuShiftAdd, KernelMatchesTheReference) {
  const gpu::DeviceInfo info = gpu::device_info();
  if (!info.usable()) GTEST_SKIP() << "no usable CUDA device: " << info.note;
  for (bool fp64 : {false, true})
    for (bool rev : {false, true}) {
      gpu::ShiftAdd s;
      s.n = 3001, s.d = 40, s.heads = 5, s.fp64 = fp64, s.z_reversed = rev;  // a partial block of 32 columns
      s.offsets = {0};
      for (std::uint32_t o = 1; o < 2 * s.n; o *= 2) s.offsets.push_back(o);
      const std::size_t K = s.offsets.size(), N = std::size_t(s.n) * s.d, es = fp64 ? 8 : 4;
      std::vector<double> table = test::random_values(s.heads * K, 7);
      for (std::size_t e = 0; e < table.size(); e += 3) table[e] = 0;  // skipped offsets
      const std::vector<double> z = test::random_values(N, 8);
      std::vector<double> ref(N), got(N);
      std::vector<float> tf(table.begin(), table.end()), zf(z.begin(), z.end()), rf(N), gf(N);
      const void* th = fp64 ? static_cast<const void*>(table.data()) : tf.data();
      const void* zh = fp64 ? static_cast<const void*>(z.data()) : zf.data();
      ASSERT_EQ(gpu::shift_add_reference(s, th, zh, fp64 ? static_cast<void*>(ref.data()) : rf.data()), "");
      void *dt = nullptr, *dz = nullptr, *dout = nullptr;
      ASSERT_EQ(gpu::device_alloc(&dt, table.size() * es), "");
      ASSERT_EQ(gpu::device_alloc(&dz, N * es), "");
      ASSERT_EQ(gpu::device_alloc(&dout, N * es), "");
      ASSERT_EQ(gpu::copy_to_device(dt, th, table.size() * es), "");
      ASSERT_EQ(gpu::copy_to_device(dz, zh, N * es), "");
      ASSERT_EQ(gpu::shift_add(s, dt, dz, dout), "");
      ASSERT_EQ(gpu::copy_to_host(fp64 ? static_cast<void*>(got.data()) : gf.data(), dout, N * es), "");
      if (!fp64) {
        ref.assign(rf.begin(), rf.end());
        got.assign(gf.begin(), gf.end());
      }
      EXPECT_LT(test::relerr(ref, got), fp64 ? 1e-13 : 1e-5) << (fp64 ? "fp64" : "fp32") << " rev " << rev;
      gpu::device_free(dt);
      gpu::device_free(dz);
      gpu::device_free(dout);
    }
}
