// mixgraph.solve: Y = (I - B)^{-1} A X on the CPU, or on the GPU for CUDA tensors. X and Y are read and
// written in place: numpy arrays, buffer-protocol objects and DLPack tensors (PyTorch, ...), never copied
// (dlpack_array.hpp).
#include <pybind11/stl.h>

#include "common.hpp"
#include "dlpack_array.hpp"
#include "interrupt.hpp"
#include "mixer_cache.hpp"
#include "mixgraph/analysis/weight_options.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/mixer.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/solve_backend.hpp"
#include "mixgraph/weight_files.hpp"
#include "solve_weights.hpp"

namespace mixgraph::py {
namespace {

/// What the worker thread needs: plain pointers (kept valid by the Python objects run_interruptible
/// holds) and shared C++ objects, never a Python object.
template <class T>
struct SolveJob {
  PatternPtr h;  // read only (the Pattern is not touched by Python meanwhile: the call holds it)
  std::shared_ptr<const MixerWeights<T>> w;  // the user's weights, or null: seeded ones on the Mixer
  std::shared_ptr<const Mixer> mixer;        // the plan (from the cache, or made by the job)
  const T* x = nullptr;
  T* y = nullptr;
  std::size_t d = 0;
  int heads = 1, threads = 0;
  std::uint64_t seed = 1;
  SolveInfo info;
};

template <class T>
pb::tuple run(const PatternPtr& hp, const ArrayView& xv, const pb::object& out, int heads, std::uint64_t seed,
              int threads, std::uint64_t mem_limit, const pb::object& progress,
              std::shared_ptr<const MixerWeights<T>> user_w = nullptr) {
  PatternHolder& h = *hp;
  const Pattern& p = h.p;
  const std::size_t d = static_cast<std::size_t>(xv.cols);
  pb::object y_obj;
  T* yp = nullptr;
  const bool user = user_w != nullptr;  // the user's weights: solved as given, no Mixer
  // seeded weights are made by the kernel where it uses them: the plan (structure) is all that is kept
  const CoefSource src = user ? CoefSource::Stored : CoefSource::Seeded;
  if (out.is_none()) {
    check_memory(mixer_weights_bytes(p, heads, sizeof(T), src) + std::uint64_t(p.n) * d * sizeof(T),
                 mem_limit, "solve weights and Y for " + p.spec + " at n = " + std::to_string(p.n));
    pb::array_t<T> y = xv.ndim == 1
                           ? pb::array_t<T>({static_cast<pb::ssize_t>(p.n)})
                           : pb::array_t<T>({static_cast<pb::ssize_t>(p.n), static_cast<pb::ssize_t>(d)});
    yp = static_cast<T*>(y.request(true).ptr);
    y_obj = y;
  } else {
    check_memory(mixer_weights_bytes(p, heads, sizeof(T), src), mem_limit,
                 "solve weights for " + p.spec + " at n = " + std::to_string(p.n));
    const ArrayView yv = array_view(out, true, "out");
    if (yv.itemsize != xv.itemsize)
      throw UsageError(std::string("out must have X's dtype (") + (sizeof(T) == 8 ? "float64" : "float32") +
                       ")");
    if (yv.ndim != xv.ndim || yv.rows != xv.rows || yv.cols != xv.cols)
      throw UsageError("out must have X's dtype and shape and be C-contiguous");
    if (yv.cuda != xv.cuda) throw UsageError("out must be on X's device");
    const auto* x0 = static_cast<const char*>(xv.data);
    const auto* y0 = static_cast<const char*>(yv.data);
    const std::size_t bytes = std::size_t(p.n) * d * sizeof(T);
    if (x0 < y0 + bytes && y0 < x0 + bytes)
      throw UsageError("out must not overlap X (the solve is not in place)");
    yp = static_cast<T*>(yv.data);
    y_obj = out;
    // keep the exported view (DLPack capsule) alive with the call, too
    y_obj = pb::make_tuple(out, yv.owner);
  }
  auto job = std::make_shared<SolveJob<T>>();
  job->h = hp;
  job->x = static_cast<const T*>(xv.data);
  job->y = yp;
  job->d = d;
  job->heads = heads;
  job->seed = seed;
  job->threads = threads;
  const Precision prec = sizeof(T) == 8 ? Precision::Fp64 : Precision::Fp32;
  if (user)
    job->w = std::move(user_w);
  else
    job->mixer = mixer_cache_get(hp, heads, prec);
  const bool cached = job->mixer != nullptr;
  run_interruptible(
      [job, prec](Job& j) {
        // Ctrl-C stops the plan's build (every 4096 rows) and the kernel within a few ms (the job's
        // CancelScope, interrupt.hpp)
        if (job->w) {
          j.stage("solve");
          job->info = solve_mixer(*job->w, job->x, job->y, job->d, job->threads);
          return;
        }
        if (!job->mixer) {
          j.stage("weights");
          job->mixer = std::make_shared<const Mixer>(job->h->p, MixerOptions{job->heads, prec});
        }
        j.stage("solve");
        job->info = job->mixer->solve(job->x, job->y, job->d, job->seed, job->threads);
      },
      progress, 2, {xv.owner, y_obj});
  if (!user && !cached) mixer_cache_put(hp, heads, prec, job->mixer);
  pb::dict i;
  i["kernel"] = job->info.kernel;
  i["threads"] = job->info.threads;
  i["seconds"] = job->info.seconds;
  i["precision"] = sizeof(T) == 8 ? "fp64" : "fp32";
  i["d"] = d;
  i["heads"] = heads;
  i["weights_cached"] = cached;  // nothing built before the kernel: the plan came from the cache
  i["mixer_cached"] = cached;
  i["user_weights"] = user;
  i["input"] = xv.kind;
  i["x_address"] = reinterpret_cast<std::uintptr_t>(xv.data);  // where X was read (no copy: X's own memory)
  i["y_address"] = reinterpret_cast<std::uintptr_t>(job->y);
  return pb::make_tuple(out.is_none() ? y_obj : out, i);
}

// X on a CUDA device: the device-pointer solve from X to `out` on the same device, seeded weights made on
// the device; neither X nor Y crosses the bus. The structure is planned once (gpu::DevicePlan, kept with
// the cached Mixer: device_plans.hpp), so a repeated call pays the coefficients and the kernel alone.
// Ordered on torch's current stream when X is a torch tensor (else the default stream); returns once Y is
// written.
template <class T>
pb::tuple run_cuda(const PatternPtr& hp, const ArrayView& xv, const pb::object& x, const pb::object& out,
                   int heads, std::uint64_t seed, std::uint64_t mem_limit, const pb::object& gates,
                   const pb::object& input_gates) {
  const Pattern& p = hp->p;
  const std::size_t d = static_cast<std::size_t>(xv.cols);
  const ArrayView yv = cuda_out_view(xv, out);
  check_memory(mixer_weights_bytes(p, heads, sizeof(T), CoefSource::Seeded), mem_limit,
               "solve weights for " + p.spec + " at n = " + std::to_string(p.n));
  void* stream = torch_stream_of(x, xv.device_id);
  const std::string dev_note = gpu::set_device(xv.device_id);
  if (!dev_note.empty()) throw RuntimeFailure("GPU solve: " + dev_note);
  // the seeded weights on the structure of a cached Mixer (nothing of the structure rebuilt per call on
  // the host)
  const Precision prec = sizeof(T) == 8 ? Precision::Fp64 : Precision::Fp32;
  bool mixer_hit = false;
  const std::shared_ptr<const Mixer> mixer = mixer_for(hp, heads, prec, &mixer_hit);
  std::shared_ptr<DevicePlans> plans = mixer_device_plans(hp, heads, prec);
  if (!plans) plans = std::make_shared<DevicePlans>();  // (the entry is there: mixer_for just kept it)
  std::shared_ptr<const SolveStructure> structure;
  gpu::SolveProblem prob = seeded_problem<T>(*mixer, d, seed, &structure);
  // Per-channel gates read in place (the CLI's --gates / --input-gates): B's coefficient of row i, channel
  // c from gates[i, c], A's from input_gates[i, c], or 1 where only gates are given (y = G y_prev + X).
  const std::vector<T> ones(heads, T(1));
  if (!gates.is_none() || !input_gates.is_none()) {
    if (!(prob.b.implicit && prob.b.k == 1 && prob.b.offsets[0] == 1 && prob.a.implicit && prob.a.k == 1 &&
          prob.a.offsets[0] == 0))
      throw UsageError(
          "gates / input_gates are for first-order patterns with a diagonal A (B reads only i - 1, "
          "the ssm family); " +
          p.spec + " is not one");
    auto on_device = [&](const pb::object& o, const char* name, gpu::SolveMatrix& m) {
      const ArrayView v = array_view(o, false, name);
      if (!v.cuda || v.device_id != xv.device_id)
        throw UsageError(std::string(name) +
                         " must be a CUDA array on X's device (cuda:" + std::to_string(xv.device_id) + ")");
      if (v.itemsize != xv.itemsize || v.ndim != xv.ndim || v.rows != xv.rows || v.cols != xv.cols)
        throw UsageError(std::string(name) + " must have X's dtype and shape (n, d) and be C-contiguous");
      m.gen = gpu::CoefGen::Values;
      m.vals = v.data;
      m.vals_on_device = true;
      m.hs = 1;
      m.is = d;
      m.ks = std::uint64_t(p.n) * d;
    };
    if (!gates.is_none()) on_device(gates, "gates", prob.b);
    if (!input_gates.is_none()) {
      on_device(input_gates, "input_gates", prob.a);
    } else {  // A = 1 per channel: one coefficient per head (the device keeps the array between calls)
      prob.a.gen = gpu::CoefGen::PerOffset;
      prob.a.vals = ones.data();
      prob.a.vals_on_device = false;
    }
  }
  bool plan_hit = false;
  const gpu::SolveRun r = planned_solve(*plans, prob, xv.data, yv.data, stream, xv.device_id, &plan_hit);
  pb::dict i = device_run_info(r);
  i["precision"] = sizeof(T) == 8 ? "fp64" : "fp32";
  i["d"] = d;
  i["heads"] = heads;
  i["gates"] = !gates.is_none();
  i["input_gates"] = !input_gates.is_none();
  i["weights_cached"] = r.coefs_reused;  // the device's copy of the seeded weights from an earlier call
  i["mixer_cached"] = mixer_hit;
  i["plan_cached"] = plan_hit;  // the device plan (structure on the device, planner's choices) was kept
  add_device_run_place(i, r, xv, yv);
  return pb::make_tuple(out, i);
}

pb::tuple solve_call(const pb::object& pat, const pb::object& x, int heads, std::uint64_t seed, int threads,
                     const pb::object& out, const pb::object& mem, const pb::object& progress,
                     const pb::object& gates, const pb::object& weights_a, const pb::object& weights_b,
                     const pb::object& input_gates, const pb::object& attn_q, const pb::object& attn_k,
                     const std::string& attn_kernel) {
  const PatternPtr h = pattern_from(pat, pb::none());
  if (heads < 1) throw UsageError("heads must be >= 1");
  check_threads(threads);
  ensure_threads(threads);  // a process limit: a clear error, not the OpenMP runtime's exit
  const ArrayView xv = array_view(x, false, "X");
  if (static_cast<std::uint64_t>(xv.rows) != h->p.n)
    throw UsageError("X has " + std::to_string(xv.rows) +
                     " rows but the pattern has n = " + std::to_string(h->p.n));
  const std::size_t d = static_cast<std::size_t>(xv.cols);
  if (d == 0) throw UsageError("X needs at least one column");
  UserWeights uw;  // host weights (X on the host): the CLI's weight options
  uw.a = weights_a;
  uw.b = weights_b;
  uw.q = attn_q;
  uw.k = attn_k;
  uw.kernel = attn_kernel;
  if (xv.cuda && uw.any())
    throw UsageError(uw.given_names() +
                     ": host weights need X on the host; with a CUDA X only gates= and input_gates= (CUDA "
                     "tensors) are taken");
  if (!xv.cuda) {
    uw.gates = gates;
    uw.input_gates = input_gates;
  }
  if (uw.any()) {
    const std::uint64_t lim = mem_limit_from(mem);
    heads = user_weight_heads(uw, heads, d);
    if (xv.itemsize == 8)
      return run<double>(h, xv, out, heads, seed, threads, lim, progress,
                         user_weights<double>(h->p, heads, seed, uw, lim));
    return run<float>(h, xv, out, heads, seed, threads, lim, progress,
                      user_weights<float>(h->p, heads, seed, uw, lim));
  }
  WeightFiles given;  // CUDA gates: every column its own head (the CLI's --gates), with Python's names
  if (!gates.is_none()) given.gates = "gates";
  if (!input_gates.is_none()) given.input_gates = "input_gates";
  heads = analysis::heads_for_weights(given, heads, d, analysis::python_weight_option_names());
  const std::uint64_t lim = mem_limit_from(mem);
  if (xv.cuda) {
    // the device-pointer solve: X stays on its device and Y is written there
    const auto info = gpu::device_info();
    if (!info.usable())
      throw GpuRequired("X is a CUDA tensor (device " + std::to_string(xv.device_id) +
                        "), but no GPU is usable here (" + info.note + "); pass X.cpu() for the CPU solve");
    if (xv.itemsize == 8) return run_cuda<double>(h, xv, x, out, heads, seed, lim, gates, input_gates);
    return run_cuda<float>(h, xv, x, out, heads, seed, lim, gates, input_gates);
  }
  if (xv.itemsize == 8) return run<double>(h, xv, out, heads, seed, threads, lim, progress);
  return run<float>(h, xv, out, heads, seed, threads, lim, progress);
}

}  // namespace

void bind_solve(pb::module_& m) {
  m.def("_solve", &solve_call, pb::arg("pattern"), pb::arg("X"), pb::arg("heads") = 1, pb::arg("seed") = 1,
        pb::arg("threads") = 0, pb::arg("out") = pb::none(), pb::arg("mem_limit") = pb::none(),
        pb::arg("progress") = pb::none(), pb::arg("gates") = pb::none(), pb::arg("weights_a") = pb::none(),
        pb::arg("weights_b") = pb::none(), pb::arg("input_gates") = pb::none(),
        pb::arg("attn_q") = pb::none(), pb::arg("attn_k") = pb::none(), pb::arg("attn_kernel") = "softmax");
}

}  // namespace mixgraph::py
