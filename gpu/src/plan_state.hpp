#pragma once
// The type-erased state behind gpu::DevicePlan (gpu_plan.hpp): plain C++17, shared by the CUDA
// implementation (solve.cu's PlanState<T>) and the key checks compiled in every build (plan_key.cpp).
#include <cstdint>
#include <mutex>
#include <string>

#include "mixgraph/gpu_plan.hpp"

namespace mixgraph::gpu {

struct DevicePlan::State {
  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  virtual ~State() = default;
  /// Frees the device memory (with mu held); after it the state is not ready.
  virtual void free_device() = 0;
  /// Device bytes held now (with mu held).
  virtual std::uint64_t bytes() const = 0;
  std::mutex mu;  ///< held for a whole call, for free_device and for the reads below
  bool ready = false;
  PlanKey key;
  std::string kernel, explain;
};

}  // namespace mixgraph::gpu
