// entry_dots (gpu_entry_dots.hpp): the CPU reference against per-head dense dot products of gathered rows,
// and argument checks; on a GPU, the kernel against the reference (skipped without one).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernel_check.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_entry_dots.hpp"
#include "mixgraph/gpu_solve.hpp"

using namespace mixgraph;

namespace {

struct Entries {
  std::vector<std::int64_t> rows, cols;
};

Entries random_entries(std::uint32_t n, std::size_t nnz, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int64_t> u(0, n - 1);
  Entries e;
  for (std::size_t k = 0; k < nnz; ++k) e.rows.push_back(u(rng)), e.cols.push_back(u(rng));
  return e;
}

// Sequence b's (n, heads dh) block of the columns layout, then per head a dot product of the two rows'
// head slices, summed over the sequences: an independent order of the same sums.
std::vector<double> by_sequences(const gpu::EntryDots& s, const std::vector<double>& z,
                                 const std::vector<double>& v, const Entries& en) {
  const std::size_t dseq = std::size_t(s.heads) * s.dh, D = dseq * s.batch;
  std::vector<double> out(std::size_t(s.heads) * s.nnz, 0.0);
  for (std::uint32_t b = 0; b < s.batch; ++b) {
    std::vector<double> zb(std::size_t(s.n) * dseq), vb(zb.size());
    for (std::size_t i = 0; i < s.n; ++i)
      for (std::size_t c = 0; c < dseq; ++c)
        zb[i * dseq + c] = z[i * D + b * dseq + c], vb[i * dseq + c] = v[i * D + b * dseq + c];
    for (std::size_t e = 0; e < s.nnz; ++e)
      for (std::size_t h = 0; h < s.heads; ++h) {
        double dot = 0;
        for (std::size_t c = h * s.dh; c < (h + 1) * s.dh; ++c)
          dot += zb[std::size_t(en.rows[e]) * dseq + c] * vb[std::size_t(en.cols[e]) * dseq + c];
        out[h * s.nnz + e] += dot;
      }
  }
  return out;
}

}  // namespace

TEST(EntryDotsReference, MatchesPerSequenceDots) {
  gpu::EntryDots s;
  s.n = 37, s.batch = 3, s.heads = 2, s.dh = 5, s.nnz = 90, s.fp64 = true;
  const std::size_t N = std::size_t(s.n) * s.batch * s.heads * s.dh;
  const std::vector<double> z = test::random_values(N, 1), v = test::random_values(N, 2);
  const Entries en = random_entries(s.n, s.nnz, 3);
  std::vector<double> out(std::size_t(s.heads) * s.nnz, -7.0);
  ASSERT_EQ(gpu::entry_dots_reference(s, z.data(), v.data(), en.rows.data(), en.cols.data(), out.data()), "");
  EXPECT_LT(test::relerr(by_sequences(s, z, v, en), out), 1e-14);
  // float32 inputs: the products of the rounded values, summed in double
  const std::vector<float> zf(z.begin(), z.end()), vf(v.begin(), v.end());
  s.fp64 = false;
  std::vector<double> outf(out.size());
  ASSERT_EQ(gpu::entry_dots_reference(s, zf.data(), vf.data(), en.rows.data(), en.cols.data(), outf.data()),
            "");
  EXPECT_LT(test::relerr(by_sequences(s, std::vector<double>(zf.begin(), zf.end()),
                                      std::vector<double>(vf.begin(), vf.end()), en),
                         outf),
            1e-14);
  Entries bad = en;
  bad.rows[5] = s.n;  // outside 0..n-1
  EXPECT_NE(gpu::entry_dots_reference(s, zf.data(), vf.data(), bad.rows.data(), bad.cols.data(), outf.data()),
            "");
  s.dh = 0;
  EXPECT_NE(gpu::entry_dots_check(s, zf.data(), vf.data(), en.rows.data(), en.cols.data(), outf.data()), "");
}

TEST(GpuEntryDots, KernelMatchesTheReference) {
  const gpu::DeviceInfo info = gpu::device_info();
  if (!info.usable()) GTEST_SKIP() << "no usable CUDA device: " << info.note;
  for (bool fp64 : {false, true}) {
    gpu::EntryDots s;
    s.n = 300, s.batch = 5, s.heads = 3, s.dh = 24, s.nnz = 1000, s.fp64 = fp64;  // 120 columns a head
    const std::size_t N = std::size_t(s.n) * s.batch * s.heads * s.dh, es = fp64 ? 8 : 4;
    const std::vector<double> z = test::random_values(N, 4), v = test::random_values(N, 5);
    const std::vector<float> zf(z.begin(), z.end()), vf(v.begin(), v.end());
    const Entries en = random_entries(s.n, s.nnz, 6);
    std::vector<double> ref(std::size_t(s.heads) * s.nnz), got(ref.size());
    const void* zh = fp64 ? static_cast<const void*>(z.data()) : zf.data();
    const void* vh = fp64 ? static_cast<const void*>(v.data()) : vf.data();
    ASSERT_EQ(gpu::entry_dots_reference(s, zh, vh, en.rows.data(), en.cols.data(), ref.data()), "");
    void *dz = nullptr, *dv = nullptr, *dr = nullptr, *dc = nullptr, *dout = nullptr;
    ASSERT_EQ(gpu::device_alloc(&dz, N * es), "");
    ASSERT_EQ(gpu::device_alloc(&dv, N * es), "");
    ASSERT_EQ(gpu::device_alloc(&dr, s.nnz * 8), "");
    ASSERT_EQ(gpu::device_alloc(&dc, s.nnz * 8), "");
    ASSERT_EQ(gpu::device_alloc(&dout, got.size() * 8), "");
    ASSERT_EQ(gpu::copy_to_device(dz, zh, N * es), "");
    ASSERT_EQ(gpu::copy_to_device(dv, vh, N * es), "");
    ASSERT_EQ(gpu::copy_to_device(dr, en.rows.data(), s.nnz * 8), "");
    ASSERT_EQ(gpu::copy_to_device(dc, en.cols.data(), s.nnz * 8), "");
    ASSERT_EQ(gpu::entry_dots(s, dz, dv, static_cast<const std::int64_t*>(dr),
                              static_cast<const std::int64_t*>(dc), static_cast<double*>(dout)),
              "");
    ASSERT_EQ(gpu::copy_to_host(got.data(), dout, got.size() * 8), "");
    EXPECT_LT(test::relerr(ref, got), 1e-13) << (fp64 ? "fp64" : "fp32");  // double sums either way
    for (void* p : {dz, dv, dr, dc, dout}) gpu::device_free(p);
  }
}
