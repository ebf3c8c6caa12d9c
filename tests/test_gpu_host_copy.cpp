// The staged host <-> device copies (gpu/src/host_copy.hpp) behind gpu::solve, copy_to_device and
// copy_to_host: without a GPU they report an error instead of crashing (unit); on a GPU (Gpu*: they skip
// without one) every size round-trips byte for byte from pageable and pinned memory, through one chunk,
// many chunks and the slots' reuse, and a host-to-host solve gives the bits of the device solve of the
// same X copied up by plain cudaMemcpy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_solve.hpp"
#include "mixgraph/mixer.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/solve_backend.hpp"

#ifdef MIXGRAPH_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

using namespace mixgraph;

#define REQUIRE_GPU()                                \
  do {                                               \
    const auto info_ = gpu::device_info();           \
    if (!info_.usable()) GTEST_SKIP() << info_.note; \
  } while (0)

std::vector<unsigned char> pattern_bytes(std::size_t n, std::uint64_t salt) {
  std::vector<unsigned char> v(n);
  for (std::size_t k = 0; k < n; ++k) v[k] = static_cast<unsigned char>((k * 2654435761u + salt) >> 11);
  return v;
}

TEST(HostCopy, ReportsAnErrorWithoutAGpu) {
  if (gpu::device_info().usable()) GTEST_SKIP() << "a GPU is present: the Gpu* tests cover the copies";
  std::vector<unsigned char> h(std::size_t(3) << 20);
  void* dev = nullptr;
  EXPECT_NE(gpu::device_alloc(&dev, h.size()), "");
  EXPECT_EQ(dev, nullptr);
  EXPECT_NE(gpu::copy_to_device(reinterpret_cast<void*>(std::uintptr_t(4096)), h.data(), h.size()), "");
  EXPECT_NE(gpu::copy_to_host(h.data(), reinterpret_cast<void*>(std::uintptr_t(4096)), h.size()), "");
}

#ifdef MIXGRAPH_HAVE_CUDA
// Sizes below the direct-copy limit (1 MiB), one partial chunk, and 6 chunks of 16 MiB through 4 slots
// (each slot used twice), none a multiple of 64.
TEST(GpuHostCopy, RoundTripsEverySizeFromPageableMemory) {
  REQUIRE_GPU();
  for (std::size_t bytes : {std::size_t(1), std::size_t(4097), (std::size_t(1) << 20) - 1,
                            (std::size_t(5) << 20) + 17, (std::size_t(80) << 20) + 3}) {
    const auto src = pattern_bytes(bytes, bytes);
    void* dev = nullptr;
    ASSERT_EQ(gpu::device_alloc(&dev, bytes), "");
    ASSERT_EQ(gpu::copy_to_device(dev, src.data(), bytes), "");
    // the device copy, read back by plain cudaMemcpy (not the staged path)
    std::vector<unsigned char> plain(bytes, 0xAB), back(bytes, 0xCD);
    ASSERT_EQ(cudaMemcpy(plain.data(), dev, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_TRUE(plain == src) << bytes << " bytes up";
    ASSERT_EQ(gpu::copy_to_host(back.data(), dev, bytes), "");
    EXPECT_TRUE(back == src) << bytes << " bytes down";
    gpu::device_free(dev);
  }
  EXPECT_EQ(gpu::release_workspace(), "");  // frees the staging; the next copy makes it again
  const auto src = pattern_bytes(std::size_t(20) << 20, 7);
  std::vector<unsigned char> back(src.size());
  void* dev = nullptr;
  ASSERT_EQ(gpu::device_alloc(&dev, src.size()), "");
  ASSERT_EQ(gpu::copy_to_device(dev, src.data(), src.size()), "");
  ASSERT_EQ(gpu::copy_to_host(back.data(), dev, src.size()), "");
  EXPECT_TRUE(back == src);
  gpu::device_free(dev);
}

TEST(GpuHostCopy, RoundTripsFromPinnedMemory) {
  REQUIRE_GPU();
  const std::size_t bytes = (std::size_t(5) << 20) + 17;
  const auto src = pattern_bytes(bytes, 3);
  unsigned char *pin_in = nullptr, *pin_out = nullptr;
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&pin_in), bytes, cudaHostAllocDefault), cudaSuccess);
  ASSERT_EQ(cudaHostAlloc(reinterpret_cast<void**>(&pin_out), bytes, cudaHostAllocDefault), cudaSuccess);
  std::copy(src.begin(), src.end(), pin_in);
  void* dev = nullptr;
  ASSERT_EQ(gpu::device_alloc(&dev, bytes), "");
  ASSERT_EQ(gpu::copy_to_device(dev, pin_in, bytes), "");
  ASSERT_EQ(gpu::copy_to_host(pin_out, dev, bytes), "");
  EXPECT_TRUE(std::equal(src.begin(), src.end(), pin_out));
  gpu::device_free(dev);
  cudaFreeHost(pin_in);
  cudaFreeHost(pin_out);
}

// X of 128 MiB (8 staged chunks each way): gpu::solve from host memory against solve_device on the same X
// put on the device by plain cudaMemcpy.
TEST(GpuHostCopy, HostSolveGivesTheDeviceSolveBits) {
  REQUIRE_GPU();
  const pos_t n = 65536;
  const std::uint32_t d = 512;
  const Pattern pat = make_pattern("pow2", n);
  const auto w = seeded_mixer_weights<float>(pat, 1, 5);
  const gpu::SolveProblem p = gpu_problem(w, d);
  const std::size_t count = std::size_t(n) * d, bytes = count * sizeof(float);
  std::vector<float> x(count), y_host(count, -7.0f), y_dev(count, 3.0f);
  for (std::size_t k = 0; k < count; ++k) x[k] = float(int(k * 2654435761u >> 20) % 1000) / 1000.0f - 0.5f;
  const gpu::SolveRun rh = gpu::solve(p, x.data(), y_host.data());
  ASSERT_TRUE(rh.ran) << rh.note;
  void *dx = nullptr, *dy = nullptr;
  ASSERT_EQ(cudaMalloc(&dx, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dy, bytes), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  const gpu::SolveRun rd = gpu::solve_device(p, dx, dy);
  ASSERT_TRUE(rd.ran) << rd.note;
  ASSERT_EQ(cudaMemcpy(y_dev.data(), dy, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(rh.kernel, rd.kernel);
  EXPECT_TRUE(y_host == y_dev);
  cudaFree(dx);
  cudaFree(dy);
}
#endif

}  // namespace
