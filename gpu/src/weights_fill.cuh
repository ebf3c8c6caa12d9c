#pragma once
// Coefficients made on the device (SolveMatrix::gen): seeded weights from weight_gen.hpp (the same
// function, bit for bit, as the CPU solver's), or one coefficient per offset and head written to every
// row. They land in the standard layout (implicit [h][i][k], CSR [h][e]), so every kernel reads them as
// it reads uploaded ones; no host array exists and nothing crosses the bus but the structure.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "host.cuh"
#include "mixgraph/gpu_solve.hpp"
#include "mixgraph/weight_gen.hpp"

namespace mixgraph::gpu {
namespace {

// number of offsets <= i (offsets ascending)
__device__ __forceinline__ std::uint32_t reads_upto(const std::uint32_t* off, std::uint32_t k,
                                                    std::uint32_t i) {
  std::uint32_t lo = 0, hi = k;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (off[mid] <= i)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// one thread per entry (h, i, k): out[(h * n + i) * K + k], 0 where offset k > i
template <class T>
__global__ void fill_implicit(T* out, const std::uint32_t* off, std::uint32_t K, std::uint32_t n,
                              std::uint32_t heads, int per_offset, const T* table, std::uint64_t seed,
                              std::uint64_t matrix, double total) {
  const std::uint64_t count = std::uint64_t(heads) * n * K;
  for (std::uint64_t q = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; q < count;
       q += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t k = std::uint32_t(q % K);
    const std::uint64_t hi = q / K;
    const std::uint32_t i = std::uint32_t(hi % n), h = std::uint32_t(hi / n);
    const std::uint32_t o = __ldg(off + k);
    T v = T(0);
    if (o <= i) {
      if (per_offset) {
        v = table[std::uint64_t(h) * K + k];
      } else {
        const std::uint64_t key = wgen::stream_key(seed, h, matrix);
        v = T(wgen::weight(key, total, reads_upto(off, K, i), i, i - o));
      }
    }
    out[q] = v;
  }
}

// one thread per entry (h, e): out[h * nnz + e]
template <class T>
__global__ void fill_csr(T* out, const std::uint64_t* ptr, const std::uint32_t* idx, std::uint32_t n,
                         std::uint32_t heads, std::uint64_t seed, std::uint64_t matrix, double total) {
  const std::uint64_t nnz = ptr[n];
  const std::uint64_t count = std::uint64_t(heads) * nnz;
  for (std::uint64_t q = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; q < count;
       q += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t e = q % nnz;
    const std::uint32_t h = std::uint32_t(q / nnz);
    std::uint32_t lo = 0, hi = n;  // the row i with ptr[i] <= e < ptr[i + 1]
    while (hi - lo > 1) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (ptr[mid] <= e)
        lo = mid;
      else
        hi = mid;
    }
    const std::uint32_t reads = std::uint32_t(ptr[lo + 1] - ptr[lo]);
    const std::uint64_t key = wgen::stream_key(seed, h, matrix);
    out[q] = T(wgen::weight(key, total, reads, lo, idx[e]));
  }
}

// The device coefficients of one matrix: uploaded (Values) or written here (Seeded, PerOffset). Returns
// the matrix with the strides of the device array (m's structure arrays are host arrays; a temporary device
// copy serves the fill, dev_matrix uploads the solve's own).
template <class T>
SolveMatrix device_coefs(const SolveMatrix& m, std::uint32_t n, std::uint32_t heads, DevBuf& v) {
  if (m.gen == CoefGen::Values) {
    upload(v, static_cast<const T*>(m.vals), value_count(m, n, heads));
    return m;
  }
  SolveMatrix r = m;
  if (m.implicit) {
    r.hs = std::uint64_t(n) * m.k;
    r.is = m.k;
    r.ks = 1;
  } else {
    if (m.gen == CoefGen::PerOffset) throw std::string("weights per offset need implicit offsets");
    r.hs = m.ptr[n];
    r.is = 1;
    r.ks = 0;
  }
  const std::uint64_t count = value_count(r, n, heads);
  v = DevBuf(count * sizeof(T));
  if (count == 0) return r;
  constexpr unsigned kBlock = 256;
  const unsigned grid = unsigned(std::min<std::uint64_t>((count + kBlock - 1) / kBlock, 65535u * 16));
  DevStruct s;
  DevBuf table;
  if (m.implicit) {
    upload(s.off, m.offsets, m.k);
    if (m.gen == CoefGen::PerOffset) upload(table, static_cast<const T*>(m.vals), std::size_t(heads) * m.k);
    fill_implicit<T><<<grid, kBlock>>>(v.as<T>(), s.off.as<std::uint32_t>(), m.k, n, heads,
                                       m.gen == CoefGen::PerOffset, table.as<T>(), m.gen_seed, m.gen_matrix,
                                       m.gen_total);
    MG_CUDA(cudaGetLastError(), "fill_implicit");
  } else {
    upload(s.ptr, m.ptr, std::size_t(n) + 1);
    upload(s.idx, m.idx, m.ptr[n]);
    fill_csr<T><<<grid, kBlock>>>(v.as<T>(), s.ptr.as<std::uint64_t>(), s.idx.as<std::uint32_t>(), n, heads,
                                  m.gen_seed, m.gen_matrix, m.gen_total);
    MG_CUDA(cudaGetLastError(), "fill_csr");
  }
  MG_CUDA(cudaDeviceSynchronize(), "fill coefficients");  // before s and table are freed
  return r;
}

}  // namespace
}  // namespace mixgraph::gpu
