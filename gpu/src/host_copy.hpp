#pragma once
// Copies between host memory and the device at the bus's speed (CUDA builds only; C++17, no lib/ header).
//
// A copy from pageable memory (a numpy array, a std::vector) with plain cudaMemcpy runs at a fraction of
// what the bus carries: the driver stages it through a small pinned buffer, one piece at a time. Here the
// staging is ours: the host array is copied in chunks into pinned staging slots by several threads while
// the DMA of the previous chunks runs, so the host copies and the bus overlap. Pinned host memory (from
// cudaHostAlloc or cudaHostRegister, a pinned torch tensor) is copied directly.
//
// The staging slots are pinned host memory held per process (slots x chunk bytes), made on first use and
// freed by release_host_staging(). Copies through them are serialized by a mutex.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace mixgraph::gpu {

/// How a staged copy runs. chunk: bytes per staging slot (a multiple of 4096); slots: staging slots in
/// flight (>= 2); threads: host threads copying each chunk (0: OpenMP's default team, at most 16).
/// The defaults are the fastest setting measured (docs/benchmarks.md, the host path).
struct HostCopyOptions {
  std::size_t chunk = std::size_t(16) << 20;
  int slots = 4;
  int threads = 0;
};

/// Whether `host` lies in page-locked host memory that the device can copy directly.
bool is_pinned_host(const void* host);

/// host (bytes) -> dev, queued on st after the work already there. Returns once the copy is complete.
/// Where the staging slots cannot be allocated (pinned memory is limited), the copy goes through plain
/// cudaMemcpyAsync instead. Throws std::string on a CUDA error.
void upload_staged(void* dev, const void* host, std::size_t bytes, cudaStream_t st,
                   const HostCopyOptions& o = {});

/// dev (bytes) -> host, after the work already queued on st. Returns once the host array is written (the
/// same fallback as upload_staged). Throws std::string on a CUDA error.
void download_staged(void* host, const void* dev, std::size_t bytes, cudaStream_t st,
                     const HostCopyOptions& o = {});

/// Frees the staging slots (waiting for copies in flight). The next staged copy makes them again.
void release_host_staging();

}  // namespace mixgraph::gpu
