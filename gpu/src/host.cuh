#pragma once
// Host helpers: CUDA errors as exceptions (MG_CUDA), device buffers, uploads, device matrices.

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

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

// What a workspace slot holds, where a call can use it again as it is: every input of the fill that wrote
// it, compared word for word (no hash). Empty: nothing known (the default).
using SlotKey = std::vector<std::uint64_t>;

// The cached device buffers of one device (gpu_solve.hpp, solve_device): slot j serves the j-th buffer
// of a call, grow-only. `mu` is held for a whole call (WsScope). keys[j] names slot j's content where a
// fill left it reusable (seeded coefficients, device_coefs); any other use of the slot clears it.
struct Workspace {
  std::mutex mu;
  std::vector<std::pair<void*, std::size_t>> slots;  // pointer, capacity in bytes
  std::vector<SlotKey> keys;
  // The end of the last call, recorded on its stream: the next call's stream waits for it on the device
  // before reusing a slot (a call with SolveOptions::wait = false returns before its kernels end).
  cudaEvent_t done = nullptr;
  // Pinned host memory mapped into the device: the status bits of check_plan that a no-wait call's
  // kernels reported (written on the device after the solve; read and cleared by the next call).
  volatile std::uint32_t* status = nullptr;
  std::uint32_t* status_dev = nullptr;  // the same word, as the device addresses it
  void release() {                      // with mu held (the event and the status word stay)
    if (done) cudaEventSynchronize(done);
    for (auto& s : slots)
      if (s.first) cudaFree(s.first);
    slots.clear();
    keys.clear();
  }  // release(), and the event and the status word too: a DevicePlan's own workspace when the plan is freed
  // (a status bit its last call left unreported is dropped with it). With mu held.
  void release_all() {
    release();
    if (done) cudaEventDestroy(done);
    if (status) cudaFreeHost(const_cast<std::uint32_t*>(status));
    done = nullptr;
    status = nullptr;
    status_dev = nullptr;
  }
};

// One Workspace per device, never destroyed (no CUDA calls in static destructors; the process's end
// frees the memory).
Workspace& workspace_of(int device) {
  static std::mutex reg_mu;
  static auto* reg = new std::vector<Workspace*>();
  const std::lock_guard<std::mutex> lk(reg_mu);
  if (device < 0) device = 0;
  if (reg->size() <= std::size_t(device)) reg->resize(std::size_t(device) + 1, nullptr);
  if (!(*reg)[std::size_t(device)]) (*reg)[std::size_t(device)] = new Workspace();
  return *(*reg)[std::size_t(device)];
}

// While a WsScope lives on a thread, that thread's DevBufs take the workspace's slots in order (and do not
// free them); it holds the device's mutex. The next call reuses them: solve_device either synchronizes
// before returning, or (wait = false) records Workspace::done, for which the next call's stream waits.
struct WsScope;
thread_local WsScope* tl_ws = nullptr;
struct WsScope {
  Workspace& w;
  std::lock_guard<std::mutex> lk;
  std::size_t next = 0;
  WsScope* prev;
  explicit WsScope(Workspace& ws) : w(ws), lk(ws.mu), prev(tl_ws) { tl_ws = this; }
  WsScope(const WsScope&) = delete;
  WsScope& operator=(const WsScope&) = delete;
  ~WsScope() { tl_ws = prev; }
  // The next slot, at least `bytes` long. *hit: it still holds what `key` names (then the caller need
  // not write it). The slot's key is cleared unless it hit; remember() sets it once the content is written.
  void* take(std::size_t bytes, std::size_t& slot, const SlotKey* key = nullptr, bool* hit = nullptr) {
    if (next == w.slots.size()) {
      w.slots.emplace_back(nullptr, 0);
      w.keys.emplace_back();
    }
    slot = next++;
    auto& s = w.slots[slot];
    SlotKey& k = w.keys[slot];
    if (s.second < bytes) {
      k.clear();
      if (s.first) cudaFree(s.first);
      s = {nullptr, 0};
      MG_CUDA(cudaMalloc(&s.first, bytes), "cudaMalloc");
      s.second = bytes;
    }
    const bool same = key && !k.empty() && k == *key;
    if (hit) *hit = same;
    if (!same) k.clear();
    return s.first;
  }
};

struct DevBuf {
  void* p = nullptr;
  std::size_t size = 0;                             // bytes asked for (a slot may be larger)
  bool owned = true;                                // false: a workspace slot (WsScope), never freed here
  std::size_t slot = static_cast<std::size_t>(-1);  // that slot's index
  DevBuf() = default;
  // key / hit: see WsScope::take (outside a WsScope nothing is cached: *hit = false)
  explicit DevBuf(std::size_t bytes, const SlotKey* key = nullptr, bool* hit = nullptr) {
    if (hit) *hit = false;
    if (!bytes) return;
    size = bytes;
    if (tl_ws) {
      p = tl_ws->take(bytes, slot, key, hit);
      owned = false;
      return;
    }
    MG_CUDA(cudaMalloc(&p, bytes), "cudaMalloc");
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf& operator=(DevBuf&& o) noexcept {
    if (this != &o) {
      if (p && owned) cudaFree(p);
      p = o.p;
      size = o.size;
      owned = o.owned;
      slot = o.slot;
      o.p = nullptr;
      o.size = 0;
      o.owned = true;
      o.slot = static_cast<std::size_t>(-1);
    }
    return *this;
  }
  ~DevBuf() {
    if (p && owned) cudaFree(p);
  }
  template <class U>
  U* as() const {
    return static_cast<U*>(p);
  }
};

// Marks b's workspace slot as holding what key names (after its content is written and synchronized).
void remember(const DevBuf& b, SlotKey key) {
  if (tl_ws && !b.owned && b.slot < tl_ws->w.keys.size()) tl_ws->w.keys[b.slot] = std::move(key);
}

// A host array into a new device buffer. st null: cudaMemcpy (the legacy default stream, which the
// kernels of a null-stream call follow). st given: a copy queued on st (from pageable memory the call
// returns once h has been read), so the kernels queued after it on st see the data whatever kind of
// stream st is.
template <class U>
void upload(DevBuf& b, const U* h, std::size_t count, cudaStream_t st = nullptr) {
  b = DevBuf(count * sizeof(U));
  if (!count) return;
  if (st)
    MG_CUDA(cudaMemcpyAsync(b.p, h, count * sizeof(U), cudaMemcpyHostToDevice, st), "upload");
  else
    MG_CUDA(cudaMemcpy(b.p, h, count * sizeof(U), cudaMemcpyHostToDevice), "upload");
}

// Raises fn's dynamic shared memory limit on the current device to at least `bytes`, never lowers it: the
// limit is a per-function setting of the device, and plans made earlier (gpu_plan.hpp's DevicePlan, maybe
// launching on another thread) rely on the limit they set. A launch passes its own size, so a higher limit
// changes nothing else.
void raise_smem_limit(const void* fn, std::size_t bytes) {
  static std::mutex mu;
  static auto* set = new std::map<std::pair<int, const void*>, std::size_t>();  // never destroyed
  int dev = 0;
  MG_CUDA(cudaGetDevice(&dev), "cudaGetDevice");
  const std::lock_guard<std::mutex> lk(mu);
  std::size_t& cur = (*set)[{dev, fn}];
  if (cur >= bytes) return;
  MG_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
          "cudaFuncSetAttribute");
  cur = bytes;
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
DevMatrix<T> dev_matrix(const SolveMatrix& m, std::uint32_t n, DevStruct& s, const T* vals,
                        cudaStream_t st = nullptr) {
  DevMatrix<T> d{};
  d.implicit = m.implicit ? 1 : 0;
  d.k = m.k;
  if (m.implicit) {
    upload(s.off, m.offsets, m.k, st);
    d.off = s.off.as<std::uint32_t>();
  } else {
    upload(s.ptr, m.ptr, std::size_t(n) + 1, st);
    upload(s.idx, m.idx, m.ptr[n], st);
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
