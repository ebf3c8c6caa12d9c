#pragma once
// Shared by the libFuzzer harnesses: the readers take paths, so each input is written to a scratch file
// (in /dev/shm where there is one) under a fixed name with the extension the reader dispatches on.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "mixgraph/memory.hpp"

namespace fuzz {

inline std::string scratch(const char* ext) {
  const char* dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return std::string(dir) + "/mixgraph-fuzz-" + std::to_string(::getpid()) + ext;
}

inline void put(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
}

/// Inputs may announce any size: the readers must refuse, not allocate, beyond this limit.
inline void limit_memory() {
  mixgraph::set_default_mem_limit(64ull << 20);
}

}  // namespace fuzz
