#pragma once
// Host helpers: CUDA errors as exceptions (MG_CUDA), device buffers, uploads, device matrices.

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "common.cuh"
#include "mixgraph/gpu_solve.hpp"

namespace mixgraph::gpu {
namespace {

std::string err_text(cudaError_t e, const char* what) {
  return std::string(what) + ": " + cudaGetErrorString(e);
}
#define MG_CUDA(call, what)                                       \
  do {                                                            \
    cudaError_t e_ = (call);                                      \
    if (e_ != cudaSuccess) throw std::string(err_text(e_, what)); \
  } while (0)

struct DevBuf {
  void* p = nullptr;
  DevBuf() = default;
  explicit DevBuf(std::size_t bytes) {
    if (bytes) MG_CUDA(cudaMalloc(&p, bytes), "cudaMalloc");
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf& operator=(DevBuf&& o) noexcept {
    if (this != &o) {
      if (p) cudaFree(p);
      p = o.p;
      o.p = nullptr;
    }
    return *this;
  }
  ~DevBuf() {
    if (p) cudaFree(p);
  }
  template <class U>
  U* as() const {
    return static_cast<U*>(p);
  }
};

template <class U>
void upload(DevBuf& b, const U* h, std::size_t count) {
  b = DevBuf(count * sizeof(U));
  if (count) MG_CUDA(cudaMemcpy(b.p, h, count * sizeof(U), cudaMemcpyHostToDevice), "upload");
}

int num_sms() {
  int dev = 0, sms = 132;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return sms;
}

// Device copies of one matrix's structure (values separately).
struct DevStruct {
  DevBuf off, ptr, idx;
};

template <class T>
DevMatrix<T> dev_matrix(const SolveMatrix& m, std::uint32_t n, DevStruct& s, const T* vals) {
  DevMatrix<T> d{};
  d.implicit = m.implicit ? 1 : 0;
  d.k = m.k;
  if (m.implicit) {
    upload(s.off, m.offsets, m.k);
    d.off = s.off.as<std::uint32_t>();
  } else {
    upload(s.ptr, m.ptr, std::size_t(n) + 1);
    upload(s.idx, m.idx, m.ptr[n]);
    d.ptr = s.ptr.as<std::uint64_t>();
    d.idx = s.idx.as<std::uint32_t>();
  }
  d.val = vals;
  d.hs = m.hs;
  d.is = m.is;
  d.ks = m.ks;
  return d;
}

std::uint64_t value_count(const SolveMatrix& m, std::uint32_t n, std::uint32_t heads) {
  // the largest index touched + 1
  if (m.implicit) {
    if (m.k == 0) return 0;
    return std::uint64_t(heads - 1) * m.hs + std::uint64_t(n - 1) * m.is + std::uint64_t(m.k - 1) * m.ks + 1;
  }
  const std::uint64_t nnz = m.ptr[n];
  if (nnz == 0) return 0;
  return std::uint64_t(heads - 1) * m.hs + (nnz - 1) * m.is + 1;
}

}  // namespace
}  // namespace mixgraph::gpu
