#pragma once
// Coefficients made on the device (SolveMatrix::gen): seeded weights from weight_gen.hpp (the same
// function, bit for bit, as the CPU solver's), or one coefficient per offset and head written to every
// row. They land in the standard layout (implicit [h][i][k], CSR [h][e]), so every kernel reads them as
// it reads uploaded ones; no host array exists and nothing crosses the bus but the structure.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
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

// Entry q of an implicit layout as (h, i, k): head-major [h][i][k] (k fastest) or channel-major [k][i][h]
// (h fastest; SolveOptions::Layout). Threads take consecutive q, so either layout is written coalesced.
struct ImpIndex {
  std::uint32_t h, i, k;
};
__device__ __forceinline__ ImpIndex imp_index(std::uint64_t q, std::uint32_t K, std::uint32_t n,
                                              std::uint32_t heads, int chmajor) {
  ImpIndex r;
  if (chmajor) {
    r.h = std::uint32_t(q % heads);
    const std::uint64_t ki = q / heads;
    r.i = std::uint32_t(ki % n);
    r.k = std::uint32_t(ki / n);
  } else {
    r.k = std::uint32_t(q % K);
    const std::uint64_t hi = q / K;
    r.i = std::uint32_t(hi % n);
    r.h = std::uint32_t(hi / n);
  }
  return r;
}

// one thread per entry (h, i, k) of the layout (imp_index), 0 where offset k > i
template <class T>
__global__ void fill_implicit(T* out, const std::uint32_t* off, std::uint32_t K, std::uint32_t n,
                              std::uint32_t heads, int chmajor, int per_offset, const T* table,
                              std::uint64_t seed, std::uint64_t matrix, double total) {
  const std::uint64_t count = std::uint64_t(heads) * n * K;
  for (std::uint64_t q = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; q < count;
       q += std::uint64_t(gridDim.x) * blockDim.x) {
    const ImpIndex e = imp_index(q, K, n, heads, chmajor);
    const std::uint32_t o = __ldg(off + e.k);
    T v = T(0);
    if (o <= e.i) {
      if (per_offset) {
        v = table[std::uint64_t(e.h) * K + e.k];
      } else {
        const std::uint64_t key = wgen::stream_key(seed, e.h, matrix);
        v = T(wgen::weight(key, total, reads_upto(off, K, e.i), e.i, e.i - o));
      }
    }
    out[q] = v;
  }
}

// uploaded coefficients (strides hs, is, ks) rewritten channel-major
template <class T>
__global__ void to_channel_major(T* out, const T* in, std::uint32_t K, std::uint32_t n, std::uint32_t heads,
                                 std::uint64_t hs, std::uint64_t is, std::uint64_t ks) {
  const std::uint64_t count = std::uint64_t(heads) * n * K;
  for (std::uint64_t q = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; q < count;
       q += std::uint64_t(gridDim.x) * blockDim.x) {
    const ImpIndex e = imp_index(q, K, n, heads, 1);
    out[q] = in[e.h * hs + std::uint64_t(e.i) * is + std::uint64_t(e.k) * ks];
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
// copy serves the fill, dev_matrix uploads the solve's own). chmajor (implicit only): the channel-major
// layout [k][i][h] (hs = 1, is = heads, ks = n heads) instead of [h][i][k]. *reused: the array was
// already in v's workspace slot (solve_device's cache; seeded implicit coefficients only) and not rewritten.
// The fill kernels run on st (the solve's stream). PerOffset with vals_on_device: m.vals is the (heads, K)
// table in device memory, read by the fill (nothing uploaded, no slot reuse: its values are not known here).
// dev: the structure already on the device (a device plan's), read by the fills instead of temporary
// uploads. fixed: the workspace serves one structure only (a device plan's own, gpu_plan.hpp), so seeded
// CSR coefficients and host values marked vals_constant are keyed too (by seed, resp. address), without
// the structure in the key.
template <class T>
SolveMatrix device_coefs(const SolveMatrix& m, std::uint32_t n, std::uint32_t heads, DevBuf& v,
                         bool chmajor = false, bool* reused = nullptr, cudaStream_t st = nullptr,
                         const DevStruct* dev = nullptr, bool fixed = false) {
  if (reused) *reused = false;
  chmajor = chmajor && m.implicit;
  // a per-offset table the caller keeps on the device (SolveMatrix::vals_on_device): read there by the fill
  // on st, after the caller's work that wrote it; its values are not on the host, so the slot keeps no key
  const bool dev_table = m.gen == CoefGen::PerOffset && m.vals_on_device;
  if (dev_table && !m.implicit) throw std::string("weights per offset need implicit offsets");
  if (m.gen == CoefGen::Values && !chmajor) {
    const std::uint64_t count = value_count(m, n, heads);
    if (fixed && m.vals_constant && count) {  // uploaded once per address (the caller's promise)
      const SlotKey key = {4u, sizeof(T), reinterpret_cast<std::uintptr_t>(m.vals), count};
      bool hit = false;
      v = DevBuf(count * sizeof(T), &key, &hit);
      if (reused) *reused = hit;
      if (!hit) {
        MG_CUDA(cudaMemcpy(v.p, m.vals, count * sizeof(T), cudaMemcpyHostToDevice), "upload");
        remember(v, key);
      }
      return m;
    }
    upload(v, static_cast<const T*>(m.vals), count, st);
    return m;
  }
  SolveMatrix r = m;
  r.vals_on_device = false;  // r describes the array written here (v), whatever m.vals was
  if (m.implicit) {
    r.hs = chmajor ? 1 : std::uint64_t(n) * m.k;
    r.is = chmajor ? heads : m.k;
    r.ks = chmajor ? std::uint64_t(n) * heads : 1;
  } else {
    if (m.gen == CoefGen::PerOffset) throw std::string("weights per offset need implicit offsets");
    r.hs = m.ptr[n];
    r.is = 1;
    r.ks = 0;
  }
  const std::uint64_t count = m.implicit ? std::uint64_t(heads) * n * m.k : value_count(r, n, heads);
  // Seeded and per-offset implicit coefficients depend only on what the key lists (for per-offset ones
  // the table's values too), so a solve_device workspace slot that still holds them (the same key,
  // compared in full) is used as it is: a repeated call pays the kernel alone.
  SlotKey key;
  if (fixed && !m.implicit && m.gen == CoefGen::Seeded) {  // the structure is the workspace's own
    std::uint64_t total_bits = 0;
    std::memcpy(&total_bits, &m.gen_total, sizeof total_bits);
    key = {3u, sizeof(T), n, heads, r.hs, m.gen_seed, m.gen_matrix, total_bits};
  } else if (m.implicit && (m.gen == CoefGen::Seeded || m.gen == CoefGen::PerOffset) && !dev_table) {
    std::uint64_t total_bits = 0;
    std::memcpy(&total_bits, &m.gen_total, sizeof total_bits);
    key = {m.gen == CoefGen::Seeded ? 1u : 2u,
           sizeof(T),
           chmajor ? 1u : 0u,
           n,
           heads,
           m.k,
           m.gen_seed,
           m.gen_matrix,
           total_bits};
    key.insert(key.end(), m.offsets, m.offsets + m.k);
    if (m.gen == CoefGen::PerOffset) {
      const std::size_t count = std::size_t(heads) * m.k;
      const auto* vals = static_cast<const T*>(m.vals);
      for (std::size_t q = 0; q < count; ++q) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, vals + q, sizeof(T));
        key.push_back(bits);
      }
    }
  }
  bool hit = false;
  v = DevBuf(count * sizeof(T), key.empty() ? nullptr : &key, &hit);
  if (count == 0) return r;
  constexpr unsigned kBlock = 256;
  const unsigned grid = unsigned(std::min<std::uint64_t>((count + kBlock - 1) / kBlock, 65535u * 16));
  DevStruct s;
  DevBuf table;
  if (hit) {  // take the slot the fill's offsets take, so the call's later buffers keep their slots
    if (m.implicit && !dev) s.off = DevBuf(std::size_t(m.k) * sizeof(std::uint32_t));
    if (m.gen == CoefGen::PerOffset) table = DevBuf(std::size_t(heads) * m.k * sizeof(T));
    if (reused) *reused = true;
    return r;
  }
  if (m.gen == CoefGen::Values) {  // channel-major from an uploaded array: rewritten on the device
    upload(table, static_cast<const T*>(m.vals), value_count(m, n, heads), st);
    to_channel_major<T><<<grid, kBlock, 0, st>>>(v.as<T>(), table.as<T>(), m.k, n, heads, m.hs, m.is, m.ks);
    MG_CUDA(cudaGetLastError(), "to_channel_major");
  } else if (m.implicit) {
    if (!dev) upload(s.off, m.offsets, m.k, st);
    if (m.gen == CoefGen::PerOffset && !dev_table)
      upload(table, static_cast<const T*>(m.vals), std::size_t(heads) * m.k, st);
    const T* tab = dev_table ? static_cast<const T*>(m.vals) : table.as<T>();
    const std::uint32_t* off = dev ? dev->off.as<std::uint32_t>() : s.off.as<std::uint32_t>();
    fill_implicit<T><<<grid, kBlock, 0, st>>>(v.as<T>(), off, m.k, n, heads, chmajor ? 1 : 0,
                                              m.gen == CoefGen::PerOffset, tab, m.gen_seed, m.gen_matrix,
                                              m.gen_total);
    MG_CUDA(cudaGetLastError(), "fill_implicit");
  } else {
    if (!dev) {
      upload(s.ptr, m.ptr, std::size_t(n) + 1, st);
      upload(s.idx, m.idx, m.ptr[n], st);
    }
    const DevStruct& ds = dev ? *dev : s;
    fill_csr<T><<<grid, kBlock, 0, st>>>(v.as<T>(), ds.ptr.as<std::uint64_t>(), ds.idx.as<std::uint32_t>(), n,
                                         heads, m.gen_seed, m.gen_matrix, m.gen_total);
    MG_CUDA(cudaGetLastError(), "fill_csr");
  }
  // Outside solve_device's workspace (tl_ws null) s and table are freed on return; a keyed slot is
  // reused as it is by a later call, maybe on another stream: both wait for the fill here. A device table
  // in the workspace needs no wait: s stays allocated until the call ends (which synchronizes), and the
  // solve reads v after the fill on the same stream.
  if (!tl_ws || !key.empty()) MG_CUDA(cudaDeviceSynchronize(), "fill coefficients");
  if (!key.empty()) remember(v, std::move(key));
  return r;
}

}  // namespace
}  // namespace mixgraph::gpu
