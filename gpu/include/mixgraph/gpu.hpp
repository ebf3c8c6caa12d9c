#pragma once
// mixgraph::gpu — the GPU side. Plain C++17 types only (no CUDA headers), so every caller builds with or
// without CUDA; without it each entry point has a CPU fallback or reports "not built in".
//
//   auto info = mixgraph::gpu::device_info();
//   if (info.usable()) std::cout << info.name;
#include <cstddef>
#include <string>

namespace mixgraph::gpu {

struct DeviceInfo {
  bool built_in = false;  ///< CUDA code was compiled into this build
  int device_count = 0;   ///< visible CUDA devices (0 when none or when the driver is absent)
  std::string name;       ///< device 0
  int cc_major = 0, cc_minor = 0;
  std::size_t memory_bytes = 0;
  std::string note;  ///< why no device is usable, when none is
  bool usable() const { return built_in && device_count > 0; }
};

/// Probes the CUDA runtime once (cheap after the first call). Never throws.
DeviceInfo device_info();

}  // namespace mixgraph::gpu
