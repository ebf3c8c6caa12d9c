#pragma once
// Plan once, solve many on the device: a DevicePlan holds everything of a device solve that depends only
// on the structure (gpu_solve.hpp's SolveProblem without its coefficient values), so a repeated call pays
// the coefficient work that depends on the values, and the kernel. Plain C++17 (no CUDA types).
//
//   mixgraph::gpu::DevicePlan plan;
//   std::string err = mixgraph::gpu::make_device_plan(plan, p);       // once: uploads, planner, buffers
//   for (...) auto r = mixgraph::gpu::solve_planned(plan, p, x, y, stream);  // p's coefficients, any X
//   plan.release();                                                    // frees the device memory
//
// What a plan holds (made once, O(n + nnz) host work and uploads for explicit structures, O(K) for
// implicit ones): the structure on the device (offsets, or CSR ptr/idx of A and B) and a host copy of it;
// the planner's choices and everything they derive from the structure alone (the kernel, chunk, ring and
// read-list sizes, the blockinv package buffer, the pipeline ring, the scan's segment maps, the launch
// attributes); the coefficient arrays' device buffers, sized for the plan. Device memory: as one
// solve_device call of the same problem (structure + coefficient arrays + the kernel's workspace), held
// until release() or the plan's destruction; device_bytes() says how much.
//
// Per call (solve_planned): the coefficients (what depends on the values: an upload of host Values, a
// device fill of Seeded or PerOffset ones, or nothing where the plan still holds the same ones: the same
// seed, the same per-offset table, or host Values marked vals_constant at the same address), the kernel,
// and the end-of-call synchronization (as solve_device; none with wait = false). No O(n + nnz) host pass, no
// structure upload.
//
// Thread safety: one plan serves one call at a time; calls from several threads (on any streams) are
// serialized by the plan's mutex (each call returns once Y is written). Different plans run in parallel.
// release() waits for a running call. A plan is bound to the device current when it was made.
#include <cstdint>
#include <memory>
#include <string>

#include "mixgraph/gpu_solve.hpp"

namespace mixgraph::gpu {

/// What a plan was made for: everything solve_planned compares with a call's problem (scalars only; no
/// structure array is read per call).
struct PlanKey {
  struct Matrix {
    bool implicit = true;
    std::uint32_t k = 0;    ///< implicit: offsets
    std::uint64_t nnz = 0;  ///< CSR: entries (ptr[n]); not compared per call (the call's arrays are not read)
    CoefGen gen = CoefGen::Values;
    bool vals_on_device = false;
  };
  std::uint32_t n = 0, d = 0, heads = 0;
  bool fp64 = false;
  Matrix a, b;
  int device = 0;  ///< the CUDA device the plan lives on
};

/// The key of a problem (reads p.a.ptr[n] and p.b.ptr[n] of CSR matrices; nothing else of the arrays).
PlanKey plan_key(const SolveProblem& p, int device = 0);

/// "" when a call with problem `call` on `device` can use a plan made for `plan`, else a one-line reason
/// (e.g. "the plan was made for d = 256, the call has d = 128"). O(1): compares n, d, heads, precision,
/// each matrix's kind (implicit / CSR), offset count, coefficient source and whether its values are on the
/// device, and the device. A call's structure arrays are not compared: they must be the plan's (the
/// caller's promise; solve_planned uses the plan's copy).
std::string plan_mismatch(const PlanKey& plan, const SolveProblem& call, int device);

class DevicePlan {
 public:
  DevicePlan();
  ~DevicePlan();
  DevicePlan(DevicePlan&&) noexcept;
  DevicePlan& operator=(DevicePlan&&) noexcept;
  DevicePlan(const DevicePlan&) = delete;
  DevicePlan& operator=(const DevicePlan&) = delete;

  /// Whether the plan holds a made plan (false when empty, after a failed make or after release()).
  bool ready() const;
  /// The key of the problem it was made for (meaningful while ready()).
  PlanKey key() const;
  /// The kernel it runs (SolveRun::kernel) and the planner's explanation (SolveRun::plan).
  std::string kernel() const;
  std::string explain() const;
  /// Device bytes held now (structure, planner buffers, coefficient arrays); 0 when not ready.
  std::uint64_t device_bytes() const;
  /// Frees the device memory (waits for a running call first); ready() becomes false. solve_planned on a
  /// released plan returns ran = false with a note; make_device_plan may make it again.
  void release();

  struct State;                          ///< opaque (gpu/src)
  std::shared_ptr<State> state() const;  ///< for the implementation
  void reset(std::shared_ptr<State> s);  ///< for the implementation

 private:
  std::shared_ptr<State> s_;
};

/// Makes `plan` for the structure of p (n, d, heads, precision, A/B structure, each matrix's coefficient
/// source and whether its values are on the device; the coefficient values themselves are not read) and
/// the options o, on the current CUDA device. Replaces what plan held. O(n + nnz) host work and uploads
/// (explicit structures), the planner's (as one solve_device call). Returns "" or why not (no device, a bad
/// problem, out of device memory): then plan is not ready.
std::string make_device_plan(DevicePlan& plan, const SolveProblem& p, const SolveOptions& o = {});

/// Y = (I - B)^{-1} A X with the plan's structure and the coefficients of `coefs` (its a and b: gen, vals,
/// hs/is/ks, gen_seed/matrix/total, vals_on_device, vals_constant; its n, d, heads, fp64 must match the plan:
/// plan_mismatch), x_dev and y_dev device pointers on the plan's device (row-major n x d), queued on
/// `stream` (a cudaStream_t; nullptr: the default stream) after the work already there; returns once Y is
/// written. The same bits as solve_device(p, x_dev, y_dev, o, stream) for the p and o the plan was made
/// with (and these coefficients). SolveRun: kernel, plan, kernel_ms (the kernel alone), total_ms
/// (coefficients + kernel, host clock), coefs_reused (every coefficient array was still held from an
/// earlier call). wait = false: returns once the work is queued, as SolveOptions::wait = false does for
/// solve_device (kernel_ms 0; the next call on the plan waits on the device for this one's end, and
/// reports an internal error its kernel found). Never throws; errors (not ready, a mismatch, CUDA errors)
/// in note.
SolveRun solve_planned(DevicePlan& plan, const SolveProblem& coefs, const void* x_dev, void* y_dev,
                       void* stream = nullptr, bool wait = true);

}  // namespace mixgraph::gpu
