// mixgraph._core: the compiled half of the `mixgraph` Python package (python/mixgraph/__init__.py
// re-exports it). Errors of the library become Python exceptions by kind.
#include "analysis_call.hpp"
#include "common.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"

namespace mixgraph::py {

void bind_adjoint(pb::module_& m);       // bind_adjoint.cpp: mixgraph.torch's private halves
void bind_gated_scan(pb::module_& m);    // bind_gated_scan.cpp: mixgraph.torch's CUDA gated scan
void bind_solve_device(pb::module_& m);  // bind_solve_device.cpp: mixgraph.torch's device solve
void bind_mixer(pb::module_& m);         // bind_mixer.cpp: mixgraph.Mixer and the cache behind mixgraph.solve
void bind_analysis(pb::module_& m);      // bind_analysis.cpp: validate, verify, sweeps, ranks

namespace {
PyObject* g_base = nullptr;
PyObject* g_usage = nullptr;
PyObject* g_input = nullptr;
PyObject* g_memory = nullptr;
PyObject* g_runtime = nullptr;
PyObject* g_gpu = nullptr;
PyObject* g_argtype = nullptr;
PyObject* g_missing = nullptr;

PyObject* make_exc(pb::module_& m, const char* name, const char* doc, pb::tuple bases) {
  const std::string full = std::string("mixgraph.") + name;
  PyObject* e = PyErr_NewExceptionWithDoc(full.c_str(), doc, bases.ptr(), nullptr);
  if (!e) throw pb::error_already_set();
  m.add_object(name, pb::handle(e));
  return e;
}
}  // namespace

void bind_errors(pb::module_& m) {
  auto B = [](std::initializer_list<PyObject*> l) {
    pb::tuple t(l.size());
    std::size_t k = 0;
    for (PyObject* o : l) t[k++] = pb::reinterpret_borrow<pb::object>(o);
    return t;
  };
  g_base = make_exc(m, "MixgraphError", "Base class of every error mixgraph raises (the CLI's message).",
                    B({PyExc_Exception}));
  g_usage = make_exc(m, "UsageError",
                     "Bad arguments: unknown pattern, malformed spec or expression, n out of range (the "
                     "CLI's exit code 2). A ValueError.",
                     B({g_base, PyExc_ValueError}));
  g_input = make_exc(m, "InputError",
                     "Bad input data: a malformed or non-triangular .mtx file, NaN/inf weights (the CLI's "
                     "exit code 3). A ValueError.",
                     B({g_base, PyExc_ValueError}));
  g_argtype = make_exc(m, "ArgumentTypeError",
                       "An argument of the wrong type (a number where a spec belongs, text where an int "
                       "belongs). A UsageError and a TypeError.",
                       B({g_usage, PyExc_TypeError}));
  g_missing = make_exc(m, "InputFileNotFound",
                       "An input file that does not exist. An InputError and a FileNotFoundError.",
                       B({g_input, PyExc_FileNotFoundError}));
  g_memory = make_exc(m, "MemoryRefused",
                      "Work refused before allocating: the estimate is above the memory limit (physical "
                      "memory unless mem_limit is given). A MemoryError.",
                      B({g_base, PyExc_MemoryError}));
  g_runtime = make_exc(m, "RuntimeFailure",
                       "A runtime failure: a feature not built in (e.g. expr: without muParser), I/O "
                       "failure (the CLI's exit code 1). A RuntimeError.",
                       B({g_base, PyExc_RuntimeError}));
  g_gpu = make_exc(m, "GpuRequired", "A GPU was required and none is present (the CLI's exit code 4).",
                   B({g_runtime}));
  pb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const MemoryRefused& e) {
      PyErr_SetString(g_memory, e.what());
    } catch (const ArgumentTypeError& e) {
      PyErr_SetString(g_argtype, e.what());
    } catch (const UsageError& e) {
      PyErr_SetString(g_usage, e.what());
    } catch (const MissingInputFile& e) {
      PyErr_SetString(g_missing, e.what());
    } catch (const InputError& e) {
      PyErr_SetString(g_input, e.what());
    } catch (const GpuRequired& e) {
      PyErr_SetString(g_gpu, e.what());
    } catch (const Error& e) {
      PyErr_SetString(g_runtime, e.what());
    } catch (const pb::cast_error& e) {  // a value the binding could not convert: a type error of the caller
      PyErr_SetString(
          g_argtype, (std::string("an argument has the wrong type or is out of range: ") + e.what()).c_str());
    }
  });
}

}  // namespace mixgraph::py

PYBIND11_MODULE(_core, m) {
  m.doc() = "The compiled core of the mixgraph package (use `import mixgraph`).";
  m.attr("__version__") = MIXGRAPH_VERSION;
  m.attr("UNREACHABLE") = std::uint64_t{mixgraph::UNREACHABLE};
  mixgraph::py::bind_errors(m);
  mixgraph::py::bind_pattern(m);
  mixgraph::py::bind_distances(m);
  mixgraph::py::bind_congestion(m);
  mixgraph::py::bind_ranks(m);
  mixgraph::py::bind_solve(m);
  mixgraph::py::bind_adjoint(m);
  mixgraph::py::bind_mixer(m);
  mixgraph::py::bind_gated_scan(m);
  mixgraph::py::bind_solve_device(m);
  mixgraph::py::bind_analysis(m);
  mixgraph::py::bind_gallery(m);
  mixgraph::py::bind_stack(m);
  mixgraph::py::bind_report(m);
  mixgraph::py::bind_interrupt(m);
}
