// Staged host <-> device copies (host_copy.hpp): chunks through pinned slots, host copies by an OpenMP
// team overlapping the DMA of the chunks before them.
#include "host_copy.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

namespace mixgraph::gpu {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::string(what) + ": " + cudaGetErrorString(e);
}

// Below this a copy goes straight through cudaMemcpy: the staging would cost more than it saves.
constexpr std::size_t kDirectBelow = std::size_t(1) << 20;

struct Staging {
  std::mutex mu;
  char* base = nullptr;  // slots x chunk bytes of pinned memory
  std::size_t chunk = 0;
  int slots = 0;
  void free_slots() {  // with mu held
    if (base) cudaFreeHost(base);
    base = nullptr;
    chunk = 0;
    slots = 0;
  }
};

Staging& staging() {
  static auto* s = new Staging();  // never destroyed: no CUDA calls in static destructors
  return *s;
}

// The events of one staged copy, one per slot (made per copy: a few microseconds, and no event outlives the
// device it was made on).
struct SlotEvents {
  std::vector<cudaEvent_t> e;
  std::vector<bool> pending;
  explicit SlotEvents(int n) : e(std::size_t(n), nullptr), pending(std::size_t(n), false) {
    for (auto& ev : e) {
      const cudaError_t err = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
      if (err == cudaSuccess) continue;
      ev = nullptr;
      for (auto& made : e)  // the destructor does not run for a half-made object
        if (made) cudaEventDestroy(made);
      check(err, "cudaEventCreate");
    }
  }
  SlotEvents(const SlotEvents&) = delete;
  SlotEvents& operator=(const SlotEvents&) = delete;
  ~SlotEvents() {
    for (std::size_t s = 0; s < e.size(); ++s) {
      if (pending[s]) cudaEventSynchronize(e[s]);  // a copy that failed part way: its DMA may still read
      if (e[s]) cudaEventDestroy(e[s]);
    }
  }
  void record(int s, cudaStream_t st) {
    const cudaError_t err = cudaEventRecord(e[std::size_t(s)], st);
    if (err != cudaSuccess) {
      cudaStreamSynchronize(
          st);  // the slot's chunk is queued: it must be off the bus before the slot is freed
      check(err, "cudaEventRecord");
    }
    pending[std::size_t(s)] = true;
  }
  void wait(int s) {
    if (!pending[std::size_t(s)]) return;
    check(cudaEventSynchronize(e[std::size_t(s)]), "staged copy");
    pending[std::size_t(s)] = false;
  }
};

int team_size(const HostCopyOptions& o) {
  return o.threads > 0 ? o.threads : std::min(16, std::max(1, omp_get_max_threads()));
}

// memcpy by `threads` threads, each a contiguous piece (64-byte aligned boundaries).
void team_copy(char* dst, const char* src, std::size_t bytes, int threads) {
  if (threads <= 1 || bytes < (std::size_t(256) << 10)) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const std::size_t piece =
      ((bytes + std::size_t(threads) - 1) / std::size_t(threads) + 63) & ~std::size_t(63);
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const std::size_t b = std::size_t(t) * piece;
    if (b < bytes) std::memcpy(dst + b, src + b, std::min(piece, bytes - b));
  }
}

// The staging slots for o (made or remade as o asks), with s.mu held by the caller; nullptr where no pinned
// memory can be had (a locked-memory limit): the copy then goes through the driver's own staging.
char* slots_for(Staging& s, const HostCopyOptions& o) {
  if (o.slots < 2 || o.chunk == 0 || o.chunk % 4096 != 0)
    throw std::string("staged copy: slots must be >= 2 and chunk a positive multiple of 4096");
  if (s.base && s.chunk == o.chunk && s.slots == o.slots) return s.base;
  s.free_slots();
  void* p = nullptr;
  if (cudaHostAlloc(&p, o.chunk * std::size_t(o.slots), cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  s.base = static_cast<char*>(p);
  s.chunk = o.chunk;
  s.slots = o.slots;
  return s.base;
}

}  // namespace

bool is_pinned_host(const void* host) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, host) != cudaSuccess) {
    cudaGetLastError();  // older drivers report unregistered memory as an error: clear it
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

namespace {

// One cudaMemcpyAsync, waited for.
void direct_copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t st,
                 const char* what) {
  check(cudaMemcpyAsync(dst, src, bytes, kind, st), what);
  check(cudaStreamSynchronize(st), what);
}

// Small copies and pinned host memory go directly. False: the copy is to be staged.
bool copied_directly(void* dst, const void* src, std::size_t bytes, const void* host, cudaMemcpyKind kind,
                     cudaStream_t st, const char* what) {
  if (bytes >= kDirectBelow && !is_pinned_host(host)) return false;
  direct_copy(dst, src, bytes, kind, st, what);
  return true;
}

// One staged copy: the staging slots (their mutex held for the copy), the copying team, the slots' events.
struct StagedCopy {
  const HostCopyOptions& o;
  std::lock_guard<std::mutex> lk;
  char* base;
  int threads;
  SlotEvents ev;
  explicit StagedCopy(const HostCopyOptions& opt)
      : o(opt), lk(staging().mu), base(slots_for(staging(), opt)), threads(team_size(opt)), ev(opt.slots) {}
  int slot_of(std::size_t k) const { return int(k % std::size_t(o.slots)); }
  char* buf(std::size_t k) const { return base + std::size_t(slot_of(k)) * o.chunk; }
  std::size_t len(std::size_t k, std::size_t bytes) const { return std::min(o.chunk, bytes - k * o.chunk); }
};

}  // namespace

void upload_staged(void* dev, const void* host, std::size_t bytes, cudaStream_t st,
                   const HostCopyOptions& o) {
  if (!bytes || copied_directly(dev, host, bytes, host, cudaMemcpyHostToDevice, st, "upload")) return;
  StagedCopy c(o);
  if (!c.base) return direct_copy(dev, host, bytes, cudaMemcpyHostToDevice, st, "upload");
  const char* src = static_cast<const char*>(host);
  char* dst = static_cast<char*>(dev);
  const std::size_t chunks = (bytes + o.chunk - 1) / o.chunk;
  for (std::size_t k = 0; k < chunks; ++k) {
    c.ev.wait(c.slot_of(k));  // the slot's previous chunk is on the device
    team_copy(c.buf(k), src + k * o.chunk, c.len(k, bytes), c.threads);
    check(cudaMemcpyAsync(dst + k * o.chunk, c.buf(k), c.len(k, bytes), cudaMemcpyHostToDevice, st),
          "upload");
    c.ev.record(c.slot_of(k), st);
  }
  for (int slot = 0; slot < o.slots; ++slot) c.ev.wait(slot);  // the slots are free for the next copy
}

void download_staged(void* host, const void* dev, std::size_t bytes, cudaStream_t st,
                     const HostCopyOptions& o) {
  if (!bytes || copied_directly(host, dev, bytes, host, cudaMemcpyDeviceToHost, st, "download")) return;
  StagedCopy c(o);
  if (!c.base) return direct_copy(host, dev, bytes, cudaMemcpyDeviceToHost, st, "download");
  const char* src = static_cast<const char*>(dev);
  char* dst = static_cast<char*>(host);
  const std::size_t chunks = (bytes + o.chunk - 1) / o.chunk;
  auto queue = [&](std::size_t k) {  // chunk k onto the bus, into its slot
    check(cudaMemcpyAsync(c.buf(k), src + k * o.chunk, c.len(k, bytes), cudaMemcpyDeviceToHost, st),
          "download");
    c.ev.record(c.slot_of(k), st);
  };
  for (std::size_t k = 0; k < std::min(chunks, std::size_t(o.slots)); ++k) queue(k);
  for (std::size_t k = 0; k < chunks; ++k) {
    c.ev.wait(c.slot_of(k));
    team_copy(dst + k * o.chunk, c.buf(k), c.len(k, bytes), c.threads);
    if (k + std::size_t(o.slots) < chunks) queue(k + std::size_t(o.slots));
  }
}

void release_host_staging() {
  Staging& s = staging();
  const std::lock_guard<std::mutex> lk(s.mu);
  s.free_slots();
}

}  // namespace mixgraph::gpu
