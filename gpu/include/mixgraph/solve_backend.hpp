#pragma once
// One API over both backends: the CPU engine (lib/, solve.hpp) and the GPU kernels (gpu_solve.hpp).
// C++20 (includes lib/ headers): for the CLI, tests and benchmarks, never for .cu files.
//
//   auto choice = mixgraph::choose_backend(mixgraph::parse_backend("auto"));  // throws GpuRequired for "gpu"
//   auto info = mixgraph::solve_on(choice, weights, x, y, d);                   // info.kernel says which ran
#include <string>

#include "mixgraph/error.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_solve.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/weight_gen.hpp"

namespace mixgraph {

enum class Backend { Auto, Cpu, Gpu };

inline Backend parse_backend(const std::string& s) {
  if (s == "auto") return Backend::Auto;
  if (s == "cpu") return Backend::Cpu;
  if (s == "gpu") return Backend::Gpu;
  throw UsageError("--backend must be auto, cpu or gpu (got '" + s + "')");
}

struct BackendChoice {
  bool gpu = false;
  std::string name;    ///< "cpu" | "gpu"
  std::string reason;  ///< why (e.g. "auto: no GPU: CUDA is not built in ...")
};

/// Auto: the GPU when one is usable, else the CPU. Gpu without a usable GPU: throws GpuRequired (exit 4).
inline BackendChoice choose_backend(Backend b) {
  const auto info = gpu::device_info();
  BackendChoice c;
  switch (b) {
    case Backend::Cpu:
      c.reason = "requested";
      break;
    case Backend::Gpu:
      if (!info.usable())
        throw GpuRequired("--backend gpu: " + info.note +
                          "; use --backend cpu or auto, or run on a machine with a CUDA GPU");
      c.gpu = true;
      c.reason = "requested: " + info.name;
      break;
    case Backend::Auto:
      c.gpu = info.usable();
      c.reason = c.gpu ? "auto: GPU present (" + info.name + ")" : "auto: no GPU (" + info.note + ")";
      break;
  }
  c.name = c.gpu ? "gpu" : "cpu";
  return c;
}

/// The GPU problem for a structure and coefficients given apart (pointers into s and c's arrays; valid
/// while they live): a Mixer's plan (mixer.hpp) solved on the device without a copy of its structure.
/// Layouts as solve.hpp's; seeded and per-offset coefficients are made on the device (gpu::CoefGen).
template <class T>
gpu::SolveProblem gpu_problem(const SolveStructure& s, const MixerCoefs<T>& c, std::size_t d) {
  gpu::SolveProblem p;
  p.n = s.n;
  p.d = static_cast<std::uint32_t>(d);
  p.heads = static_cast<std::uint32_t>(c.heads);
  p.fp64 = sizeof(T) == 8;
  auto fill = [&](gpu::SolveMatrix& m, const std::vector<pos_t>& offs, const Csr& csr, const T* v,
                  CoefSource src, bool is_a) {
    m.implicit = s.implicit;
    m.vals = v;
    m.hs = s.implicit ? std::size_t(s.n) * offs.size() : std::size_t(csr.nnz());
    // seeded and per-offset coefficients are made on the device (no per-nonzero array, no upload)
    m.gen = src == CoefSource::Seeded      ? gpu::CoefGen::Seeded
            : src == CoefSource::PerOffset ? gpu::CoefGen::PerOffset
                                           : gpu::CoefGen::Values;
    m.gen_seed = c.seed;
    m.gen_matrix = static_cast<std::uint32_t>(is_a ? wgen::kMatrixA : wgen::kMatrixB);
    m.gen_total = is_a ? wgen::kTotalA : wgen::kTotalB;
    if (s.implicit) {
      m.offsets = offs.data();
      m.k = static_cast<std::uint32_t>(offs.size());
      m.is = offs.size();
      m.ks = 1;
    } else {
      m.ptr = csr.ptr.data();
      m.idx = csr.idx.data();
      m.is = 1;
    }
  };
  fill(p.a, s.a_offsets, s.a, c.a, c.a_source, true);
  fill(p.b, s.b_offsets, s.b, c.b, c.b_source, false);
  return p;
}

/// The GPU problem for MixerWeights (pointers into w; valid while w lives).
template <class T>
gpu::SolveProblem gpu_problem(const MixerWeights<T>& w, std::size_t d) {
  return gpu_problem(w.s, MixerCoefs<T>::of(w), d);
}

/// The GPU side of the error contract (solve.hpp): UsageError for d, GpuRequired without a usable GPU.
inline void check_gpu_call(std::size_t d, int heads) {
  if (d == 0 || d % static_cast<std::size_t>(heads) != 0)
    throw UsageError("solve: d must be a positive multiple of the heads");
  const auto info = gpu::device_info();
  if (!info.usable())
    throw GpuRequired("GPU solve: " + info.note +
                      "; use the CPU backend or run on a machine with a CUDA GPU");
}

/// Solve on the chosen backend (gpu options: the GPU planner's choices, gpu_solve.hpp). Errors as
/// solve.hpp's contract says: UsageError, GpuRequired, RuntimeFailure when the GPU run fails.
template <class T>
SolveInfo solve_on(const BackendChoice& c, const MixerWeights<T>& w, const T* x, T* y, std::size_t d,
                   int threads = 0, const gpu::SolveOptions& gpu_options = {}) {
  if (!c.gpu) return solve_mixer(w, x, y, d, threads);
  check_gpu_call(d, w.heads);
  const auto r = gpu::solve(gpu_problem(w, d), x, y, gpu_options);
  if (!r.ran) throw RuntimeFailure("GPU solve failed: " + r.note);
  SolveInfo info;
  info.kernel = r.kernel;
  info.seconds = r.kernel_ms / 1000.0;
  info.total_seconds = r.total_ms / 1000.0;
  info.threads = 0;
  return info;
}

/// GPU only: the seeded X of a --random run made on the device (weight_gen.hpp input_value(x_seed, i, c),
/// the bits a host run makes), solved there; Y goes to y (host, n x d) only when y is not null, and *y_sum
/// gets Y's sum (taken on the device). Throws RuntimeFailure when the GPU run fails.
template <class T>
SolveInfo solve_seeded_x_on_gpu(const MixerWeights<T>& w, std::uint64_t x_seed, T* y, std::size_t d,
                                const gpu::SolveOptions& gpu_options, double* y_sum) {
  check_gpu_call(d, w.heads);
  const auto r = gpu::solve_seeded_x(gpu_problem(w, d), x_seed, y, gpu_options);
  if (!r.ran) throw RuntimeFailure("GPU solve failed: " + r.note);
  if (y_sum) *y_sum = r.y_sum;
  SolveInfo info;
  info.kernel = r.kernel;
  info.seconds = r.kernel_ms / 1000.0;
  info.total_seconds = r.total_ms / 1000.0;
  info.threads = 0;
  return info;
}

}  // namespace mixgraph
