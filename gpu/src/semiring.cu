// The semiring solves on the GPU (gpu_semiring.hpp): one thread per source column marching over the rows.
// C++17; of lib/ only the C++17 semiring_ops.hpp (the rings, shared with the CPU engine). Every error becomes
// ran = false with a note; nothing throws across the API.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "mixgraph/gpu_semiring.hpp"

namespace mixgraph::gpu {

namespace {

constexpr int kBlock = 128;  // a multiple of 32: every warp is full (inactive lanes join the shuffle)
constexpr std::size_t kMaxChunkBytes = std::size_t(4) << 30;

struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // clear a non-sticky error so later calls in this process can still run
    throw CudaFailure(std::string(what) + ": " + cudaGetErrorString(e));
  }
}

/// A device allocation freed on scope exit.
struct DeviceBuffer {
  void* p = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p) cudaFree(p);
  }
  void alloc(std::size_t bytes, const char* what) {
    if (bytes > 0) check(cudaMalloc(&p, bytes), what);
  }
  void upload(const void* host, std::size_t bytes, const char* what) {
    alloc(bytes, what);
    if (bytes > 0) check(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), what);
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

struct DeviceEvent {
  cudaEvent_t e = nullptr;
  DeviceEvent() { check(cudaEventCreate(&e), "cudaEventCreate"); }
  DeviceEvent(const DeviceEvent&) = delete;
  DeviceEvent& operator=(const DeviceEvent&) = delete;
  ~DeviceEvent() {
    if (e) cudaEventDestroy(e);
  }
};

/// The structure on the device (passed to the kernel by value).
struct DevStructure {
  std::uint32_t n = 0;
  const std::uint32_t* b_off = nullptr;
  std::uint32_t kb = 0;
  const std::uint32_t* a_off = nullptr;
  std::uint32_t ka = 0;
  const std::uint64_t* b_ptr = nullptr;
  const std::uint32_t* b_idx = nullptr;
  const std::uint64_t* a_ptr = nullptr;
  const std::uint32_t* a_idx = nullptr;
};

// ---- the semirings (same zero / A weight / add / B product as lib/src/solve/solve.cpp's rings) ----
// Buf: the device planes of one n x pitch chunk; load / store one entry. y is never read through the
// read-only cache: a thread reads back rows it wrote itself in the same kernel.

/// A ring whose entries are one plane of its value type (minplus: distances, orand: reachability).
template <class Ring>
struct OnePlane : Ring {
  using V = typename Ring::V;
  struct Buf {
    V* d;
  };
  __host__ __device__ static V load(const Buf& b, std::uint64_t k) { return b.d[k]; }
  __host__ __device__ static void store(const Buf& b, std::uint64_t k, V v) { b.d[k] = v; }
};

struct MinPlus : OnePlane<semiring::MinPlus> {
  static constexpr const char* kName = "minplus";
};

struct OrAnd : OnePlane<semiring::OrAnd> {
  static constexpr const char* kName = "orand";
};

struct Count : semiring::Count {
  static constexpr const char* kName = "count";
  struct Buf {
    std::uint32_t* d;
    std::uint64_t* c;
  };
  __host__ __device__ static V load(const Buf& b, std::uint64_t k) { return V{b.d[k], b.c[k]}; }
  __host__ __device__ static void store(const Buf& b, std::uint64_t k, V v) {
    b.d[k] = v.d;
    b.c[k] = v.c;
  }
};

/// Column c of the chunk (source `mine`) from row `start` on, in order: y[i * pitch + c]. Rows before the
/// column's own source come out as zero(): no A read of such a row is the source, and every B read is an
/// earlier row that is still zero(). Host and device, so the march can be stepped through on the host.
template <class R, bool Implicit>
__host__ __device__ void march(const DevStructure& s, std::uint32_t mine, std::uint32_t start,
                               std::uint32_t c, std::uint32_t pitch, const typename R::Buf& y) {
  for (std::uint32_t i = start; i < s.n; ++i) {
    typename R::V acc = R::zero();
    if constexpr (Implicit) {
      if (i >= mine) {  // A reads i - o: only o = i - mine reads the impulse (offsets ascending, distinct)
        const std::uint32_t want = i - mine;
        std::uint32_t lo = 0, hi = s.ka;  // lo: the first k with a_off[k] >= want
        while (lo < hi) {
          const std::uint32_t mid = lo + (hi - lo) / 2;
          if (s.a_off[mid] < want)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (lo < s.ka && s.a_off[lo] == want) R::add(acc, R::a_weight(want == 0));
      }
      for (std::uint32_t k = 0; k < s.kb; ++k) {  // B reads i - o
        const std::uint32_t o = s.b_off[k];
        if (o > i) break;
        R::add(acc, R::mul_b(R::load(y, std::uint64_t(i - o) * pitch + c)));
      }
    } else {
      for (std::uint64_t e = s.a_ptr[i]; e < s.a_ptr[i + 1]; ++e) {
        const std::uint32_t j = s.a_idx[e];
        if (j == mine) R::add(acc, R::a_weight(j == i));
      }
      for (std::uint64_t e = s.b_ptr[i]; e < s.b_ptr[i + 1]; ++e)
        R::add(acc, R::mul_b(R::load(y, std::uint64_t(s.b_idx[e]) * pitch + c)));
    }
    R::store(y, std::uint64_t(i) * pitch + c, acc);
  }
}

/// Thread c marches column c of the chunk (source src[c]) from the smallest source of its warp, so the
/// warp's loads of one row stay together (one coalesced access per read).
template <class R, bool Implicit>
__global__ void __launch_bounds__(kBlock)
    semiring_kernel(DevStructure s, const std::uint32_t* __restrict__ src, std::uint32_t w,
                    std::uint32_t pitch, typename R::Buf y) {
  const std::uint32_t c = blockIdx.x * blockDim.x + threadIdx.x;
  const bool active = c < w;
  const std::uint32_t mine = active ? src[c] : s.n;  // inactive lanes: no impulse, do not lower start
  std::uint32_t start = mine;
  for (int o = 16; o > 0; o >>= 1) start = min(start, __shfl_xor_sync(0xFFFFFFFFu, start, o));
  if (active) march<R, Implicit>(s, mine, start, c, pitch, y);
}

/// One output array: entries of elem bytes, device chunks filled with the byte fill (the zero()).
struct Plane {
  std::size_t elem;
  int fill;
  void* host;  ///< n x S row-major
};

template <class R>
typename R::Buf make_buf(const std::vector<DeviceBuffer>& dev) {  // one plane (MinPlus, OrAnd)
  return {dev[0].as<typename R::V>()};
}
template <>
Count::Buf make_buf<Count>(const std::vector<DeviceBuffer>& dev) {
  return {dev[0].as<std::uint32_t>(), dev[1].as<std::uint64_t>()};
}

std::string position_text(std::uint64_t p) {
  return std::to_string(p + 1);
}

template <class R>
SemiringRun drive(const SemiringStructure& s, const std::uint32_t* sources, std::uint32_t S,
                  const std::vector<Plane>& planes, std::uint32_t max_chunk_columns) {
  SemiringRun r;
  const auto t0 = std::chrono::steady_clock::now();
  r.kernel = std::string("gpu-semiring-") + R::kName + (s.implicit ? "-implicit" : "-csr");
  try {
    const std::uint32_t n = s.n;
    if (S > 0 && sources == nullptr) throw std::invalid_argument("no source array given");
    for (std::uint32_t c = 0; c < S; ++c)
      if (sources[c] >= n)
        throw std::invalid_argument("source position " + position_text(sources[c]) + " is outside 1.." +
                                    std::to_string(n));
    for (const auto& pl : planes)
      if (S > 0 && pl.host == nullptr) throw std::invalid_argument("no output array given");
    if (n == 0 || S == 0) {  // nothing to compute (the CPU returns an empty result too)
      r.ran = true;
      return r;
    }
    if (s.implicit) {
      if ((s.kb > 0 && !s.b_offsets) || (s.ka > 0 && !s.a_offsets))
        throw std::invalid_argument("implicit structure without its offset arrays");
    } else if (!s.b_ptr || !s.a_ptr || (s.b_ptr[n] > 0 && !s.b_idx) || (s.a_ptr[n] > 0 && !s.a_idx)) {
      throw std::invalid_argument("CSR structure without its n + 1 row pointers or column indices");
    }
    int devices = 0;
    check(cudaGetDeviceCount(&devices), "no usable GPU");
    if (devices == 0) throw CudaFailure("no CUDA device visible");

    // the structure
    DeviceBuffer b_off, a_off, b_ptr, b_idx, a_ptr, a_idx;
    DevStructure ds;
    ds.n = n;
    if (s.implicit) {
      b_off.upload(s.b_offsets, std::size_t(s.kb) * 4, "upload B offsets");
      a_off.upload(s.a_offsets, std::size_t(s.ka) * 4, "upload A offsets");
      ds.b_off = b_off.as<std::uint32_t>();
      ds.kb = s.kb;
      ds.a_off = a_off.as<std::uint32_t>();
      ds.ka = s.ka;
    } else {
      b_ptr.upload(s.b_ptr, (std::size_t(n) + 1) * 8, "upload B row pointers");
      b_idx.upload(s.b_idx, std::size_t(s.b_ptr[n]) * 4, "upload B column indices");
      a_ptr.upload(s.a_ptr, (std::size_t(n) + 1) * 8, "upload A row pointers");
      a_idx.upload(s.a_idx, std::size_t(s.a_ptr[n]) * 4, "upload A column indices");
      ds.b_ptr = b_ptr.as<std::uint64_t>();
      ds.b_idx = b_idx.as<std::uint32_t>();
      ds.a_ptr = a_ptr.as<std::uint64_t>();
      ds.a_idx = a_idx.as<std::uint32_t>();
    }

    // chunk width: the n x Sc planes within min(free / 4, 4 GiB); a multiple of 32 columns when wider
    std::size_t col_bytes = 0;
    for (const auto& pl : planes) col_bytes += std::size_t(n) * pl.elem;
    std::size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    const std::size_t budget = std::min(free_b / 4, kMaxChunkBytes);
    std::size_t sc = budget / col_bytes;
    if (sc == 0)
      throw CudaFailure("one source column needs " + std::to_string(col_bytes) + " bytes of GPU memory, " +
                        std::to_string(free_b) + " are free");
    sc = std::min<std::size_t>(sc, S);
    if (sc > 32) sc -= sc % 32;
    if (max_chunk_columns > 0) sc = std::min<std::size_t>(sc, max_chunk_columns);
    const std::uint32_t Sc = static_cast<std::uint32_t>(sc);

    std::vector<DeviceBuffer> dev(planes.size());
    for (std::size_t k = 0; k < planes.size(); ++k)
      dev[k].alloc(std::size_t(n) * Sc * planes[k].elem, "allocate the solution chunk");
    DeviceBuffer dsrc;
    dsrc.alloc(std::size_t(Sc) * 4, "allocate the sources");
    const typename R::Buf buf = make_buf<R>(dev);
    DeviceEvent ev0, ev1;

    for (std::uint64_t c0 = 0; c0 < S; c0 += Sc) {  // 64-bit: c0 + Sc may pass 2^32
      const auto w = static_cast<std::uint32_t>(std::min<std::uint64_t>(Sc, S - c0));
      check(cudaMemcpy(dsrc.p, sources + c0, std::size_t(w) * 4, cudaMemcpyHostToDevice), "upload sources");
      for (std::size_t k = 0; k < planes.size(); ++k)
        check(cudaMemset(dev[k].p, planes[k].fill, std::size_t(n) * Sc * planes[k].elem), "cudaMemset");
      const unsigned blocks = (w + kBlock - 1) / kBlock;
      check(cudaEventRecord(ev0.e), "cudaEventRecord");
      if (s.implicit)
        semiring_kernel<R, true><<<blocks, kBlock>>>(ds, dsrc.as<std::uint32_t>(), w, Sc, buf);
      else
        semiring_kernel<R, false><<<blocks, kBlock>>>(ds, dsrc.as<std::uint32_t>(), w, Sc, buf);
      check(cudaGetLastError(), "launch the semiring kernel");
      check(cudaEventRecord(ev1.e), "cudaEventRecord");
      check(cudaEventSynchronize(ev1.e), "the semiring kernel");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, ev0.e, ev1.e), "cudaEventElapsedTime");
      r.kernel_ms += ms;
      // chunk column c -> host column c0 + c of the n x S result
      for (std::size_t k = 0; k < planes.size(); ++k) {
        const std::size_t e = planes[k].elem;
        check(cudaMemcpy2D(static_cast<char*>(planes[k].host) + std::size_t(c0) * e, std::size_t(S) * e,
                           dev[k].p, std::size_t(Sc) * e, std::size_t(w) * e, n, cudaMemcpyDeviceToHost),
              "download the solution chunk");
      }
      ++r.chunks;
    }
    r.ran = true;
  } catch (const std::exception& e) {
    r.ran = false;
    r.note = e.what();
  } catch (...) {
    r.ran = false;
    r.note = "unknown error";
  }
  r.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace

SemiringRun semiring_distances(const SemiringStructure& s, const std::uint32_t* sources, std::uint32_t S,
                               std::uint32_t* dist, std::uint32_t max_chunk_columns) {
  return drive<MinPlus>(s, sources, S, {Plane{4, 0xFF, dist}}, max_chunk_columns);
}

SemiringRun semiring_reachability(const SemiringStructure& s, const std::uint32_t* sources, std::uint32_t S,
                                  std::uint8_t* reach, std::uint32_t max_chunk_columns) {
  return drive<OrAnd>(s, sources, S, {Plane{1, 0x00, reach}}, max_chunk_columns);
}

SemiringRun semiring_path_counts(const SemiringStructure& s, const std::uint32_t* sources, std::uint32_t S,
                                 std::uint32_t* dist, std::uint64_t* count, bool* overflow,
                                 std::uint32_t max_chunk_columns) {
  SemiringRun r =
      drive<Count>(s, sources, S, {Plane{4, 0xFF, dist}, Plane{8, 0x00, count}}, max_chunk_columns);
  if (overflow) {
    *overflow = false;
    if (r.ran)
      for (std::size_t k = 0, m = std::size_t(s.n) * S; k < m; ++k)
        if (count[k] == kCountMax) {
          *overflow = true;
          break;
        }
  }
  return r;
}

}  // namespace mixgraph::gpu
