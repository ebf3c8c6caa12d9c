// mixgraph.solve: Y = (I - B)^{-1} A X on the CPU, X and Y numpy arrays read and written in place.
#include <pybind11/stl.h>

#include "common.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/solve.hpp"

namespace mixgraph::py {
namespace {

template <class T>
pb::tuple run(PatternHolder& h, const pb::buffer_info& xb, pb::object out, int heads, std::uint64_t seed,
              int threads, std::uint64_t mem_limit) {
  const Pattern& p = h.p;
  const std::size_t d = static_cast<std::size_t>(xb.ndim == 1 ? 1 : xb.shape[1]);
  pb::array_t<T> y;
  if (out.is_none()) {
    check_memory(mixer_weights_bytes(p, heads, sizeof(T)) + std::uint64_t(p.n) * d * sizeof(T), mem_limit,
                 "solve weights and Y for " + p.spec + " at n = " + std::to_string(p.n));
    if (xb.ndim == 1)
      y = pb::array_t<T>({static_cast<pb::ssize_t>(p.n)});
    else
      y = pb::array_t<T>({static_cast<pb::ssize_t>(p.n), static_cast<pb::ssize_t>(d)});
  } else {
    check_memory(mixer_weights_bytes(p, heads, sizeof(T)), mem_limit,
                 "solve weights for " + p.spec + " at n = " + std::to_string(p.n));
    if (!pb::isinstance<pb::array_t<T, 0>>(out))
      throw UsageError(std::string("out must be a numpy array of X's dtype (") +
                       (sizeof(T) == 8 ? "float64" : "float32") + ")");
    y = out.cast<pb::array_t<T, 0>>();
    const pb::buffer_info yb = y.request(true);
    if (yb.format != xb.format || yb.ndim != xb.ndim || yb.shape != xb.shape || yb.strides != xb.strides)
      throw UsageError("out must have X's dtype and shape and be C-contiguous");
    const auto* x0 = static_cast<const char*>(xb.ptr);
    const auto* y0 = static_cast<const char*>(yb.ptr);
    const std::size_t bytes = std::size_t(p.n) * d * sizeof(T);
    if (x0 < y0 + bytes && y0 < x0 + bytes)
      throw UsageError("out must not overlap X (the solve is not in place)");
  }
  T* yp = static_cast<T*>(y.request(true).ptr);
  const T* xp = static_cast<const T*>(xb.ptr);
  std::shared_ptr<const MixerWeights<T>> w;
  const bool cached =
      h.weights && h.weights_heads == heads && h.weights_seed == seed && h.weights_value_bytes == sizeof(T);
  if (cached) {
    w = std::static_pointer_cast<const MixerWeights<T>>(h.weights);
  } else {
    h.weights.reset();  // free the old weights before building new ones
    pb::gil_scoped_release release;
    w = std::make_shared<const MixerWeights<T>>(make_mixer_weights<T>(p, heads, seed));
  }
  h.weights = w;
  h.weights_heads = heads;
  h.weights_seed = seed;
  h.weights_value_bytes = sizeof(T);
  SolveInfo info;
  {
    pb::gil_scoped_release release;
    info = solve_mixer(*w, xp, yp, d, threads);
  }
  pb::dict i;
  i["kernel"] = info.kernel;
  i["threads"] = info.threads;
  i["seconds"] = info.seconds;
  i["precision"] = sizeof(T) == 8 ? "fp64" : "fp32";
  i["d"] = d;
  i["heads"] = heads;
  i["weights_cached"] = cached;
  return pb::make_tuple(y, i);
}

pb::tuple solve(const pb::object& pat, const pb::object& x, int heads, std::uint64_t seed, int threads,
                const pb::object& out, const pb::object& mem) {
  const PatternPtr h = pattern_from(pat, pb::none());
  if (heads < 1) throw UsageError("heads must be >= 1");
  if (threads < 0) throw UsageError("threads must be >= 0 (0 = all cores)");
  if (!pb::isinstance<pb::array>(x))
    throw UsageError("X must be a numpy array (float32 or float64, C-contiguous, n x d)");
  const auto arr = pb::reinterpret_borrow<pb::array>(x);
  if (!(arr.flags() & pb::array::c_style))
    throw UsageError("X must be C-contiguous (np.ascontiguousarray(X) makes a copy that is)");
  const pb::buffer_info xb = arr.request();
  if (xb.ndim != 1 && xb.ndim != 2) throw UsageError("X must be n x d (or a vector of length n)");
  if (static_cast<std::uint64_t>(xb.shape[0]) != h->p.n)
    throw UsageError("X has " + std::to_string(xb.shape[0]) +
                     " rows but the pattern has n = " + std::to_string(h->p.n));
  const std::size_t d = static_cast<std::size_t>(xb.ndim == 1 ? 1 : xb.shape[1]);
  if (d == 0) throw UsageError("X needs at least one column");
  if (d % std::size_t(heads) != 0)
    throw UsageError("X has " + std::to_string(d) +
                     " columns, not a multiple of heads = " + std::to_string(heads));
  const std::uint64_t lim = mem_limit_from(mem);
  if (xb.format == pb::format_descriptor<double>::format() && xb.itemsize == 8)
    return run<double>(*h, xb, out, heads, seed, threads, lim);
  if (xb.format == pb::format_descriptor<float>::format() && xb.itemsize == 4)
    return run<float>(*h, xb, out, heads, seed, threads, lim);
  throw UsageError("X must be float32 or float64 (got dtype " + pb::str(arr.dtype()).cast<std::string>() +
                   "); X.astype(np.float32) makes a copy that is");
}

}  // namespace

void bind_solve(pb::module_& m) {
  m.def("_solve", &solve, pb::arg("pattern"), pb::arg("X"), pb::arg("heads") = 1, pb::arg("seed") = 1,
        pb::arg("threads") = 0, pb::arg("out") = pb::none(), pb::arg("mem_limit") = pb::none());
}

}  // namespace mixgraph::py
