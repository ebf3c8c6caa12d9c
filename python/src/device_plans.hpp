#pragma once
// Device plans (gpu_plan.hpp) kept beside a structure: mixgraph.solve's Mixer cache entries, a
// mixgraph.Mixer made with device='cuda', and the torch op's device solves keep the plans of their
// structure here, so a repeated solve on CUDA tensors pays the coefficients and the kernel alone.
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>

#include "common.hpp"
#include "dlpack_array.hpp"
#include "mixgraph/gpu_plan.hpp"
#include "mixgraph/gpu_solve.hpp"
#include "mixgraph/mixer.hpp"

namespace mixgraph::py {

/// Plans of one structure, at most kPlansPerStructure (least recently used dropped): one per (d, heads,
/// precision, coefficient kinds, device) in use. Thread-safe (its own mutex).
class DevicePlans {
 public:
  static constexpr std::size_t kPlansPerStructure = 4;
  /// The plan for p on `device` (the current CUDA device), made now when none fits (the caller has
  /// released the GIL); *hit says which. Throws RuntimeFailure when the plan cannot be made.
  std::shared_ptr<gpu::DevicePlan> get(const gpu::SolveProblem& p, int device, bool* hit = nullptr);
  /// Frees every plan's device memory (running calls finish first).
  void clear();
  /// Device bytes held now.
  std::uint64_t bytes() const;
  /// Plans held now.
  std::size_t size() const;

 private:
  mutable std::mutex mu_;
  std::list<std::shared_ptr<gpu::DevicePlan>> plans_;
};

/// torch's current stream on `device` when x is a torch tensor, else nullptr (the default stream).
void* torch_stream_of(const pb::object& x, int device);

/// The problem of the seeded solve of d columns with seed on m's structure (the files' values of mtx:
/// patterns marked vals_constant: they live in m's plan, unchanged while it lives). Holds m's structure in
/// *hold for the call.
template <class T>
gpu::SolveProblem seeded_problem(const Mixer& m, std::size_t d, std::uint64_t seed,
                                 std::shared_ptr<const SolveStructure>* hold);

/// solve_planned with the plan of `plans` for p (made on the first call), the GIL released meanwhile: X and
/// Y device pointers on `device`, queued on `stream`; returns once Y is written, or with wait = false once
/// queued (solve_planned). Throws RuntimeFailure when the solve fails.
gpu::SolveRun planned_solve(DevicePlans& plans, const gpu::SolveProblem& p, const void* x, void* y,
                            void* stream, int device, bool* plan_hit = nullptr, bool wait = true);

/// A device solve's info dict, its first fields: kernel, threads (0: the host computed nothing), seconds (the
/// kernel's) and total_seconds (the whole call's); the caller adds its own next.
pb::dict device_run_info(const gpu::SolveRun& r);
/// Its last fields: plan, input (X's kind), device ("cuda:<id>"), x_address and y_address.
void add_device_run_place(pb::dict& info, const gpu::SolveRun& r, const ArrayView& xv, const ArrayView& yv);

}  // namespace mixgraph::py
