// mixgraph.Mixer: a plan made once (mixer.hpp) and its solves on numpy arrays and CPU tensors, read and
// written in place (dlpack_array.hpp), and with device='cuda' on CUDA tensors too (device plans kept with
// it, device_plans.hpp); and the cache of Mixers behind mixgraph.solve (mixer_cache.hpp).
#include <pybind11/stl.h>

#include "common.hpp"
#include "device_plans.hpp"
#include "dlpack_array.hpp"
#include "interrupt.hpp"
#include "mixer_cache.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/mixer.hpp"

namespace mixgraph::py {
namespace {

Precision precision_of(const std::string& s) {
  if (s == "fp32" || s == "float32") return Precision::Fp32;
  if (s == "fp64" || s == "float64") return Precision::Fp64;
  throw UsageError("precision must be 'fp32' or 'fp64' (got '" + s + "')");
}

struct PyMixer {
  PatternPtr h;
  std::shared_ptr<Mixer> m;
  std::string precision;
  bool cuda = false;                                                     // device='cuda'
  std::shared_ptr<DevicePlans> plans = std::make_shared<DevicePlans>();  // cuda: the device plans
};

ArrayView host_array(const pb::object& o, bool writable, const char* name, const PyMixer& pm) {
  const ArrayView v = array_view(o, writable, name);
  if (v.cuda)
    throw UsageError(std::string(name) +
                     " is on a CUDA device; this Mixer solves host (CPU) arrays (make it with device='cuda' "
                     "for CUDA tensors; its solve_adjoint is on the CPU only)");
  const int want = pm.m->precision() == Precision::Fp64 ? 8 : 4;
  if (v.itemsize != want)
    throw UsageError(std::string(name) + " must be " + (want == 8 ? "float64" : "float32") +
                     ": the Mixer was made with precision '" + pm.precision + "'");
  if (std::uint64_t(v.rows) != pm.m->n())
    throw UsageError(std::string(name) + " has " + std::to_string(v.rows) +
                     " rows but the pattern has n = " + std::to_string(pm.m->n()));
  return v;
}

/// out as given (checked against X), or a new numpy array of X's shape.
template <class T>
std::pair<T*, pb::object> output(const pb::object& out, const ArrayView& xv, const char* name,
                                 const PyMixer& pm) {
  if (out.is_none()) {
    pb::array_t<T> y =
        xv.ndim == 1 ? pb::array_t<T>({static_cast<pb::ssize_t>(xv.rows)})
                     : pb::array_t<T>({static_cast<pb::ssize_t>(xv.rows), static_cast<pb::ssize_t>(xv.cols)});
    return {static_cast<T*>(y.request(true).ptr), y};
  }
  const ArrayView yv = host_array(out, true, name, pm);
  if (yv.ndim != xv.ndim || yv.cols != xv.cols)
    throw UsageError(std::string(name) + " must have X's dtype and shape and be C-contiguous");
  const auto* x0 = static_cast<const char*>(xv.data);
  const auto* y0 = static_cast<const char*>(yv.data);
  const std::size_t bytes = std::size_t(xv.rows) * std::size_t(xv.cols) * sizeof(T);
  if (x0 < y0 + bytes && y0 < x0 + bytes)
    throw UsageError(std::string(name) + " must not overlap X (the solve is not in place)");
  return {static_cast<T*>(yv.data), pb::make_tuple(out, yv.owner)};
}

pb::dict info_of(const SolveInfo& s, const ArrayView& xv, const void* y) {
  pb::dict i;
  i["kernel"] = s.kernel;
  i["threads"] = s.threads;
  i["seconds"] = s.seconds;
  i["input"] = xv.kind;
  i["x_address"] = reinterpret_cast<std::uintptr_t>(xv.data);
  i["y_address"] = reinterpret_cast<std::uintptr_t>(y);
  return i;
}

template <class T>
pb::tuple solve_t(const PyMixer& pm, const ArrayView& xv, const pb::object& out, std::uint64_t seed,
                  int threads) {
  const std::size_t d = std::size_t(xv.cols);
  auto [y, y_obj] = output<T>(out, xv, "out", pm);
  auto m = pm.m;
  const T* x = static_cast<const T*>(xv.data);
  SolveInfo info;
  run_interruptible([m, x, y = y, d, seed, threads, &info](Job&) { info = m->solve(x, y, d, seed, threads); },
                    pb::none(), -1, {xv.owner, y_obj});
  return pb::make_tuple(out.is_none() ? y_obj : out, info_of(info, xv, y));
}

// device='cuda' and X on a CUDA device: the seeded solve with the Mixer's device plan (made by the first
// such call per d), from X to out on X's device, on torch's current stream; returns once Y is written.
template <class T>
pb::tuple solve_cuda_t(const PyMixer& pm, const ArrayView& xv, const pb::object& x, const pb::object& out,
                       std::uint64_t seed) {
  const std::size_t d = std::size_t(xv.cols);
  const ArrayView yv = cuda_out_view(xv, out);
  if (d % std::size_t(pm.m->heads()) != 0)
    throw UsageError("X has " + std::to_string(d) +
                     " columns, not a multiple of heads = " + std::to_string(pm.m->heads()));
  const auto info = gpu::device_info();
  if (!info.usable()) throw GpuRequired("X is a CUDA tensor, but no GPU is usable here (" + info.note + ")");
  void* stream = torch_stream_of(x, xv.device_id);
  std::shared_ptr<const SolveStructure> hold;
  gpu::SolveProblem prob;
  {
    pb::gil_scoped_release nogil;  // (after release() the Mixer plans again here)
    prob = seeded_problem<T>(*pm.m, d, seed, &hold);
  }
  bool plan_hit = false;
  const gpu::SolveRun r = planned_solve(*pm.plans, prob, xv.data, yv.data, stream, xv.device_id, &plan_hit);
  pb::dict i = device_run_info(r);
  i["plan_cached"] = plan_hit;
  i["weights_cached"] = r.coefs_reused;
  add_device_run_place(i, r, xv, yv);
  return pb::make_tuple(out, i);
}

pb::tuple solve(const PyMixer& pm, const pb::object& x, const pb::object& out, std::uint64_t seed,
                int threads) {
  check_threads(threads);
  if (pm.cuda) {
    const ArrayView xv = array_view(x, false, "X");
    if (xv.cuda) {
      const int want = pm.m->precision() == Precision::Fp64 ? 8 : 4;
      if (xv.itemsize != want)
        throw UsageError(std::string("X must be ") + (want == 8 ? "float64" : "float32") +
                         ": the Mixer was made with precision '" + pm.precision + "'");
      if (std::uint64_t(xv.rows) != pm.m->n())
        throw UsageError("X has " + std::to_string(xv.rows) +
                         " rows but the pattern has n = " + std::to_string(pm.m->n()));
      if (xv.cols < 1) throw UsageError("X needs at least one column");
      return want == 8 ? solve_cuda_t<double>(pm, xv, x, out, seed)
                       : solve_cuda_t<float>(pm, xv, x, out, seed);
    }
  }
  const ArrayView xv = host_array(x, false, "X", pm);
  if (xv.cols < 1) throw UsageError("X needs at least one column");
  return pm.m->precision() == Precision::Fp64 ? solve_t<double>(pm, xv, out, seed, threads)
                                              : solve_t<float>(pm, xv, out, seed, threads);
}

template <class T>
pb::tuple adjoint_t(const PyMixer& pm, const ArrayView& xv, const ArrayView& yv, const ArrayView& gv,
                    const pb::object& out, std::uint64_t seed, int threads) {
  const std::size_t d = std::size_t(xv.cols);
  auto [dx, dx_obj] = output<T>(out, gv, "out", pm);
  auto m = pm.m;
  const T* x = static_cast<const T*>(xv.data);
  const T* y = static_cast<const T*>(yv.data);
  const T* g = static_cast<const T*>(gv.data);
  SolveInfo info;
  run_interruptible([m, x, y, g, dx = dx, d, seed, threads,
                     &info](Job&) { info = m->solve_adjoint(x, y, g, d, seed, AdjointOut<T>{dx}, threads); },
                    pb::none(), -1, {xv.owner, yv.owner, gv.owner, dx_obj});
  return pb::make_tuple(out.is_none() ? dx_obj : out, info_of(info, gv, dx));
}

pb::tuple solve_adjoint(const PyMixer& pm, const pb::object& x, const pb::object& y, const pb::object& g,
                        const pb::object& out, std::uint64_t seed, int threads) {
  check_threads(threads);
  const ArrayView xv = host_array(x, false, "X", pm), yv = host_array(y, false, "Y", pm),
                  gv = host_array(g, false, "dY", pm);
  for (const ArrayView* v : {&yv, &gv})
    if (v->ndim != xv.ndim || v->cols != xv.cols) throw UsageError("X, Y and dY must have one shape (n, d)");
  if (xv.cols < 1) throw UsageError("X needs at least one column");
  return pm.m->precision() == Precision::Fp64 ? adjoint_t<double>(pm, xv, yv, gv, out, seed, threads)
                                              : adjoint_t<float>(pm, xv, yv, gv, out, seed, threads);
}

}  // namespace

void bind_mixer(pb::module_& m) {
  pb::class_<PyMixer>(m, "_Mixer")
      .def(pb::init([](const pb::object& pat, const pb::object& n, int heads, const std::string& precision,
                       const std::string& device, bool keep_weights) {
             if (device != "cpu" && device != "cuda")
               throw UsageError("device must be 'cpu' or 'cuda' (got '" + device + "')");
             const Precision prec = precision_of(precision);
             PyMixer pm;
             pm.cuda = device == "cuda";
             pm.h = pattern_from(pat, n);
             pm.precision = prec == Precision::Fp64 ? "fp64" : "fp32";
             {
               pb::gil_scoped_release nogil;
               pm.m = std::make_shared<Mixer>(pm.h->p,
                                              MixerOptions{heads, prec, MixerDevice::Cpu, keep_weights});
             }
             return pm;
           }),
           pb::arg("pattern"), pb::arg("n"), pb::arg("heads"), pb::arg("precision"), pb::arg("device"),
           pb::arg("keep_weights"))
      .def("solve", &solve, pb::arg("X"), pb::arg("out"), pb::arg("seed"), pb::arg("threads"))
      .def("solve_adjoint", &solve_adjoint, pb::arg("X"), pb::arg("Y"), pb::arg("dY"), pb::arg("out"),
           pb::arg("seed"), pb::arg("threads"))
      .def("release",
           [](PyMixer& pm) {
             pm.m->release();
             pm.plans->clear();
           })
      .def_property_readonly("device_bytes", [](const PyMixer& pm) { return pm.plans->bytes(); })
      .def_property_readonly("device", [](const PyMixer& pm) { return pm.cuda ? "cuda" : "cpu"; })
      .def_property_readonly("planned", [](const PyMixer& pm) { return pm.m->planned(); })
      .def_property_readonly("bytes", [](const PyMixer& pm) { return pm.m->bytes(); })
      .def_property_readonly("n", [](const PyMixer& pm) { return pm.m->n(); })
      .def_property_readonly("heads", [](const PyMixer& pm) { return pm.m->heads(); })
      .def_property_readonly("precision", [](const PyMixer& pm) { return pm.precision; })
      .def_property_readonly("spec", [](const PyMixer& pm) { return pm.m->spec(); });
  m.def("_mixer_cache_clear", &mixer_cache_clear, "Drops every Mixer that mixgraph.solve keeps.");
  m.def("_mixer_cache_info", [] {
    pb::dict d;
    d["entries"] = mixer_cache_entries();
    d["size"] = kMixerCacheSize;
    return d;
  });
}

}  // namespace mixgraph::py
