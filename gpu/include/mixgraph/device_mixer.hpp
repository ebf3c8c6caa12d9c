#pragma once
// A Mixer (mixer.hpp) solved on the GPU with a device plan (gpu_plan.hpp) made once: the C++ side of
// "plan once, solve many" on the device. C++20 (includes lib/ headers; lib/ itself never depends on gpu/):
// for the CLI, tests, benchmarks and the Python package, never for .cu files.
//
//   auto m = std::make_shared<const mixgraph::Mixer>("sq1+cache", 1 << 16);
//   mixgraph::DeviceMixer g(m);                        // nothing on the device yet
//   auto r = g.solve<float>(x_dev, y_dev, 256, 1);     // first call per d: plans (O(n + nnz)), then solves
//   r = g.solve<float>(x_dev, y_dev, 256, 2);          // later calls: coefficients + kernel
//   g.release();                                       // frees the device memory; the next call plans again
//
// Thread safety: calls from several threads are serialized (one plan, one call at a time); each returns
// once Y is written.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "mixgraph/error.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_plan.hpp"
#include "mixgraph/mixer.hpp"
#include "mixgraph/solve_backend.hpp"

namespace mixgraph {

class DeviceMixer {
 public:
  /// Throws UsageError for a null mixer. Plans nothing yet (the first solve does, on its device and d).
  explicit DeviceMixer(std::shared_ptr<const Mixer> m, gpu::SolveOptions o = {}) : m_(std::move(m)), o_(o) {
    if (!m_) throw UsageError("DeviceMixer: no Mixer");
  }

  /// Y = (I - B)^{-1} A X on the current CUDA device with the seeded coefficients of seed (the bits of
  /// gpu::solve_device on the Mixer's structure): x_dev, y_dev device pointers (row-major n x d, T the
  /// Mixer's precision), queued on `stream` (a cudaStream_t, nullptr: the default stream); returns once Y
  /// is written. The first call for a d (or after release(), or on another device) makes the plan.
  /// Errors: UsageError (d not a positive multiple of the heads, another precision), GpuRequired (no
  /// usable GPU), RuntimeFailure (the plan or the solve failed).
  template <class T>
  gpu::SolveRun solve(const T* x_dev, T* y_dev, std::size_t d, std::uint64_t seed, void* stream = nullptr) {
    return solve(x_dev, y_dev, d, m_->seeded<T>(seed), stream);
  }

  /// The same with coefficients c on the Mixer's structure (host arrays, or seeded / per-offset, as
  /// MixerCoefs says). Stored arrays are uploaded per call.
  template <class T>
  gpu::SolveRun solve(const T* x_dev, T* y_dev, std::size_t d, const MixerCoefs<T>& c,
                      void* stream = nullptr) {
    if ((m_->precision() == Precision::Fp64) != (sizeof(T) == 8))
      throw UsageError("DeviceMixer: the Mixer's precision is not the arrays'");
    if (c.heads != m_->heads()) throw UsageError("DeviceMixer: the coefficients' heads are not the Mixer's");
    check_gpu_call(d, m_->heads());
    const std::shared_ptr<const SolveStructure> s = m_->structure();  // held for the call
    const gpu::SolveProblem p = gpu_problem(*s, c, d);
    const std::lock_guard<std::mutex> lk(mu_);
    const int dev = gpu::current_device();
    if (!plan_.ready() || !gpu::plan_mismatch(plan_.key(), p, dev).empty()) {
      const std::string note = gpu::make_device_plan(plan_, p, o_);
      if (!note.empty()) throw RuntimeFailure("GPU plan failed: " + note);
    }
    gpu::SolveRun r = gpu::solve_planned(plan_, p, x_dev, y_dev, stream);
    if (!r.ran) throw RuntimeFailure("GPU solve failed: " + r.note);
    return r;
  }

  /// Frees the plan's device memory (waits for a running call); the next solve plans again.
  void release() {
    const std::lock_guard<std::mutex> lk(mu_);
    plan_.release();
  }
  /// Whether a plan is held now, and its device bytes (0 when none).
  bool planned() const { return plan_.ready(); }
  std::uint64_t device_bytes() const { return plan_.device_bytes(); }
  const Mixer& mixer() const { return *m_; }

 private:
  std::shared_ptr<const Mixer> m_;
  gpu::SolveOptions o_;
  std::mutex mu_;
  gpu::DevicePlan plan_;
};

}  // namespace mixgraph
