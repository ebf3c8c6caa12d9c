// The two halves of mixgraph.torch's differentiable mixer (python/mixgraph/torch.py), private to it:
// _mix (Y = (I - B)^{-1} A X) and _mix_backward (solve_adjoint.hpp), for a batch of sequences stacked as
// rows, with the user's weights in the layouts of mixgraph.solve. Arrays are read and written in place
// (dlpack_array.hpp). Small calls run on the calling thread with the GIL released: a training step makes
// many of them, and a worker thread per call would start a new OpenMP team each time. Calls of more than
// about 0.05 to 0.25 s of work (kWorkerMin values per thread) run on a worker thread that Ctrl-C stops, as
// mixgraph.solve does (interrupt.hpp): shorter ones end within a second of Ctrl-C by themselves.
#include <omp.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common.hpp"
#include "dlpack_array.hpp"
#include "interrupt.hpp"
#include "mixer_cache.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/mixer.hpp"
#include "mixgraph/solve.hpp"
#include "mixgraph/solve_adjoint.hpp"
#include "mixgraph/weight_files.hpp"

namespace mixgraph::py {
namespace {

std::string str(const char* s) {
  return std::string(s);
}

/// Values read per call and per thread (batch * d * (n + nnz) / threads) from which a call runs on a worker
/// thread that Ctrl-C stops: 0.05 to 0.25 s of work (1 to 5 ns a value), so that the start of the thread
/// and of its OpenMP team (about 20 us a thread) costs at most a few percent, on 128 threads too.
constexpr double kWorkerMin = 5e7;

/// Runs f() (returning the kernel's name) with the GIL released: on this thread when `work` values are read
/// on `threads` threads (0: all; below kWorkerMin a thread), else on a worker thread that Ctrl-C stops within
/// a second (interrupt.hpp), with `keep` (the arrays f reads and writes) held until it ends.
template <class F>
std::string run_sized(double work, int threads, F f, std::vector<pb::object> keep) {
  if (work < kWorkerMin * (threads > 0 ? threads : omp_get_max_threads())) {
    pb::gil_scoped_release nogil;
    return f();
  }
  auto out = std::make_shared<std::string>();
  run_interruptible([f, out](Job&) { *out = f(); }, pb::none(), -1, std::move(keep));
  return *out;
}

/// v without its owner, which goes to keep: a copy that a worker thread may hold and drop without the GIL.
ArrayView bare(ArrayView v, std::vector<pb::object>& keep) {
  keep.push_back(std::move(v.owner));
  v.owner = pb::object();
  return v;
}
std::optional<ArrayView> bare(std::optional<ArrayView> v, std::vector<pb::object>& keep) {
  if (v) v = bare(std::move(*v), keep);
  return v;
}

/// n + nnz of a pattern's A and B, without building anything (O(1)).
double pattern_size(const Pattern& p) {
  if (p.translation_invariant()) return double(p.n) * double(1 + p.b_offsets.size() + p.a_offsets.size());
  return double(p.n) + double(p.b.nnz()) + double(p.a.nnz());
}

ArrayView host(const pb::object& o, bool writable, const char* name) {
  ArrayView v = array_view(o, writable, name);
  if (v.cuda)
    throw UsageError(str(name) + " is on a CUDA device; this entry point takes host (CPU) arrays only");
  return v;
}

std::optional<ArrayView> maybe(const pb::object& o, bool writable, const char* name) {
  if (o.is_none()) return std::nullopt;
  return host(o, writable, name);
}

/// The batch, n, d and inputs of one call, checked.
struct Batch {
  PatternPtr h;
  std::size_t batch = 1, n = 0, d = 0;
  int heads = 1, threads = 0;
  std::uint64_t seed = 1;
  int itemsize = 8;
  std::optional<ArrayView> wa, wb, gates, ugates;
  bool gated() const { return gates || ugates; }
  std::size_t slab() const { return n * d; }  // values of one sequence
};

void check_rows(const ArrayView& v, const Batch& b, const char* name, bool same_dtype) {
  if (v.ndim != 2 || std::size_t(v.rows) != b.batch * b.n || std::size_t(v.cols) != b.d)
    throw UsageError(str(name) + " must be (batch * n, d) = (" + std::to_string(b.batch * b.n) + ", " +
                     std::to_string(b.d) + ")");
  if (same_dtype && v.itemsize != b.itemsize)
    throw UsageError(str(name) + " must have X's dtype (" + (b.itemsize == 8 ? "float64" : "float32") + ")");
}

Batch batch_of(const pb::object& pat, const ArrayView& xv, std::size_t batch, int heads, std::uint64_t seed,
               int threads, const pb::object& wa, const pb::object& wb, const pb::object& g,
               const pb::object& u) {
  Batch b;
  b.h = pattern_from(pat, pb::none());
  b.batch = batch;
  b.n = b.h->p.n;
  if (batch < 1) throw UsageError("batch must be >= 1");
  if (threads < 0) throw UsageError("threads must be >= 0 (0 = all cores)");
  if (xv.ndim != 2 || xv.cols < 1 || std::size_t(xv.rows) != batch * b.n)
    throw UsageError("X must be (batch * n, d) with n = " + std::to_string(b.n) + " and d >= 1");
  b.d = std::size_t(xv.cols);
  b.itemsize = xv.itemsize;
  b.heads = heads;
  b.seed = seed;
  b.threads = threads;
  b.wa = maybe(wa, false, "weights_a");
  b.wb = maybe(wb, false, "weights_b");
  b.gates = maybe(g, false, "gates");
  b.ugates = maybe(u, false, "input_gates");
  if (b.gated() && std::size_t(heads) != b.d)
    throw UsageError("gates make every column its own head: heads must be d = " + std::to_string(b.d));
  if (heads < 1 || b.d % std::size_t(heads) != 0)
    throw UsageError("d = " + std::to_string(b.d) + " is not a multiple of heads = " + std::to_string(heads));
  for (auto [v, name] : {std::pair{&b.wa, "weights_a"}, std::pair{&b.wb, "weights_b"}})
    if (*v && (*v)->ndim != 2)
      throw UsageError(str(name) + " must be a 2-D array (heads, K) or (heads, nnz)");
  if (b.gates) check_rows(*b.gates, b, "gates", false);
  if (b.ugates) check_rows(*b.ugates, b, "input_gates", false);
  return b;
}

/// b without the owners of its arrays (moved to keep), as bare() for one array.
Batch bare(Batch b, std::vector<pb::object>& keep) {
  for (auto* v : {&b.wa, &b.wb, &b.gates, &b.ugates}) *v = bare(std::move(*v), keep);
  return b;
}

WeightArray weight_array_of(const ArrayView& v, const char* name, std::size_t row0 = 0,
                            std::size_t rows = 0) {
  WeightArray w;
  w.rows = rows ? rows : std::uint64_t(v.rows);
  w.cols = std::uint64_t(v.cols);
  w.fp64 = v.itemsize == 8;
  w.data = static_cast<const char*>(v.data) + row0 * w.cols * std::size_t(v.itemsize);
  w.name = name;
  return w;
}

/// The coefficients for sequence k of the batch (the gates are per sequence, the rest shared) on the Mixer's
/// structure (nothing of the structure is rebuilt per call).
template <class T>
OwnedCoefs<T> coefs_for(const Batch& b, const Mixer& m, const SolveStructure& s, std::size_t k) {
  WeightArrays w;
  if (b.wa) w.a = weight_array_of(*b.wa, "weights_a");
  if (b.wb) w.b = weight_array_of(*b.wb, "weights_b");
  if (b.gates) w.gates = weight_array_of(*b.gates, "gates", k * b.n, b.n);
  if (b.ugates) w.input_gates = weight_array_of(*b.ugates, "input_gates", k * b.n, b.n);
  return coefs_from_arrays<T>(s, b.h->p.spec, m.seeded<T>(b.seed), w);
}

/// The Mixer of this batch's pattern, heads and dtype (mixgraph.solve's cache; GIL held).
std::shared_ptr<const Mixer> mixer_of(const Batch& b) {
  return mixer_for(b.h, b.heads, b.itemsize == 8 ? Precision::Fp64 : Precision::Fp32);
}

template <class T>
std::string forward(const Batch& b, const Mixer& m, const ArrayView& xv, const ArrayView& yv) {
  const std::shared_ptr<const SolveStructure> s = m.structure();
  std::optional<OwnedCoefs<T>> shared;
  std::string kernel;
  for (std::size_t k = 0; k < b.batch; ++k) {
    if (!shared || b.gated()) shared = coefs_for<T>(b, m, *s, k);
    const T* x = static_cast<const T*>(xv.data) + k * b.slab();
    T* y = static_cast<T*>(yv.data) + k * b.slab();
    kernel = m.solve(x, y, b.d, shared->c, b.threads).kernel;
  }
  return kernel;
}

/// Where one matrix's gradient goes: nowhere, the user's weights (summed over the batch) or gate rows.
struct Target {
  std::optional<ArrayView> out;
  bool rows = false;  // gates / input gates: (batch * n, d), one slab per sequence
};

template <class T>
std::string backward(const Batch& b, const Mixer& m, const ArrayView& xv, const ArrayView& yv,
                     const ArrayView& gv, const std::optional<ArrayView>& dx, const Target& ta,
                     const Target& tb) {
  const std::shared_ptr<const SolveStructure> s = m.structure();
  std::optional<OwnedCoefs<T>> w;
  std::vector<T> da, db;  // in the solver's layout
  std::string kernel;
  for (std::size_t k = 0; k < b.batch; ++k) {
    if (!w || b.gated()) w = coefs_for<T>(b, m, *s, k);
    if (ta.out && (k == 0 || ta.rows)) da.assign(w->a.size(), T(0));
    if (tb.out && (k == 0 || tb.rows)) db.assign(w->b.size(), T(0));
    const std::size_t off = k * b.slab();
    AdjointOut<T> o;
    o.dx = dx ? static_cast<T*>(dx->data) + off : nullptr;
    o.da = ta.out ? da.data() : nullptr;
    o.db = tb.out ? db.data() : nullptr;
    kernel = m.solve_adjoint(static_cast<const T*>(xv.data) + off, static_cast<const T*>(yv.data) + off,
                             static_cast<const T*>(gv.data) + off, b.d, w->c, o, b.threads)
                 .kernel;
    if (ta.rows) to_gate_rows(pos_t(b.n), b.d, da.data(), static_cast<T*>(ta.out->data) + off);
    if (tb.rows) to_gate_rows(pos_t(b.n), b.d, db.data(), static_cast<T*>(tb.out->data) + off);
  }
  auto to_user = [&](bool is_a, const Target& t, const std::vector<T>& acc) {
    if (!t.out || t.rows) return;
    T* out = static_cast<T*>(t.out->data);
    if ((is_a ? w->c.a_source : w->c.b_source) == CoefSource::PerOffset)
      std::copy(acc.begin(), acc.end(), out);
    else
      to_per_position(*s, is_a, b.heads, acc.data(), out);
  };
  to_user(true, ta, da);
  to_user(false, tb, db);
  return kernel;
}

std::string mix(const pb::object& pat, const pb::object& x, const pb::object& out, std::size_t batch,
                int heads, std::uint64_t seed, int threads, const pb::object& wa, const pb::object& wb,
                const pb::object& g, const pb::object& u) {
  const ArrayView xv = host(x, false, "X");
  const Batch b = batch_of(pat, xv, batch, heads, seed, threads, wa, wb, g, u);
  const ArrayView yv = host(out, true, "out");
  check_rows(yv, b, "out", true);
  const std::shared_ptr<const Mixer> m = mixer_of(b);
  const double work = double(b.batch) * double(b.d) * pattern_size(b.h->p);
  std::vector<pb::object> keep{pat, x, out, wa, wb, g, u};
  auto f = [b = bare(b, keep), m, xv = bare(xv, keep), yv = bare(yv, keep)] {
    return b.itemsize == 8 ? forward<double>(b, *m, xv, yv) : forward<float>(b, *m, xv, yv);
  };
  return run_sized(work, b.threads, f, std::move(keep));
}

std::string mix_backward(const pb::object& pat, const pb::object& x, const pb::object& y, const pb::object& g,
                         std::size_t batch, int heads, std::uint64_t seed, int threads, const pb::object& wa,
                         const pb::object& wb, const pb::object& gates, const pb::object& ugates,
                         const pb::object& dx, const pb::object& da, const pb::object& db,
                         const pb::object& dg, const pb::object& du) {
  const ArrayView xv = host(x, false, "X");
  const Batch b = batch_of(pat, xv, batch, heads, seed, threads, wa, wb, gates, ugates);
  const ArrayView yv = host(y, false, "Y"), gv = host(g, false, "dY");
  check_rows(yv, b, "Y", true);
  check_rows(gv, b, "dY", true);
  const std::optional<ArrayView> dxv = maybe(dx, true, "dX");
  if (dxv) check_rows(*dxv, b, "dX", true);
  // each gradient asked for must have its input's shape and X's dtype
  auto target = [&](const pb::object& o, const std::optional<ArrayView>& in, const char* name, bool rows) {
    Target t;
    t.rows = rows;
    if (o.is_none()) return t;
    if (!in) throw UsageError(str(name) + " was asked for without its input");
    t.out = host(o, true, name);
    if (t.out->ndim != in->ndim || t.out->rows != in->rows || t.out->cols != in->cols)
      throw UsageError(str(name) + " must have its input's shape");
    if (t.out->itemsize != b.itemsize)
      throw UsageError(str(name) + " must have X's dtype (" + (b.itemsize == 8 ? "float64" : "float32") +
                       ")");
    return t;
  };
  const Target ta =
      !du.is_none() ? target(du, b.ugates, "d_input_gates", true) : target(da, b.wa, "dA", false);
  const Target tb = !dg.is_none() ? target(dg, b.gates, "d_gates", true) : target(db, b.wb, "dB", false);
  if (ta.out && !da.is_none() && !du.is_none()) throw UsageError("dA and d_input_gates are the same matrix");
  if (tb.out && !db.is_none() && !dg.is_none()) throw UsageError("dB and d_gates are the same matrix");
  const std::shared_ptr<const Mixer> m = mixer_of(b);
  const double work = double(b.batch) * double(b.d) * pattern_size(b.h->p);
  std::vector<pb::object> keep{pat, x, y, g, wa, wb, gates, ugates, dx, da, db, dg, du};
  const Target bta{bare(ta.out, keep), ta.rows}, btb{bare(tb.out, keep), tb.rows};
  auto f = [b = bare(b, keep), m, xv = bare(xv, keep), yv = bare(yv, keep), gv = bare(gv, keep),
            dxv = bare(dxv, keep), bta, btb] {
    return b.itemsize == 8 ? backward<double>(b, *m, xv, yv, gv, dxv, bta, btb)
                           : backward<float>(b, *m, xv, yv, gv, dxv, bta, btb);
  };
  return run_sized(work, b.threads, f, std::move(keep));
}

/// The solver's view of a pattern: which weight shapes it takes.
pb::dict layout(const pb::object& pat) {
  const PatternPtr h = pattern_from(pat, pb::none());
  SolveStructure s;
  {
    pb::gil_scoped_release nogil;
    s = solve_structure(h->p);
  }
  pb::dict r;
  r["implicit"] = s.implicit;
  r["a_offsets"] = std::vector<pos_t>(s.a_offsets);
  r["b_offsets"] = std::vector<pos_t>(s.b_offsets);
  r["nnz_A"] = s.nnz_a;
  r["nnz_B"] = s.nnz_b;
  r["n"] = s.n;
  return r;
}

}  // namespace

void bind_adjoint(pb::module_& m) {
  m.def("_mix", &mix, pb::arg("pattern"), pb::arg("X"), pb::arg("out"), pb::arg("batch"), pb::arg("heads"),
        pb::arg("seed"), pb::arg("threads"), pb::arg("weights_a"), pb::arg("weights_b"), pb::arg("gates"),
        pb::arg("input_gates"),
        "Y = (I - B)^{-1} A X for each of `batch` sequences stacked as rows of X (batch * n, d), into out; "
        "the weights of mixgraph.solve (gates per sequence, the rest shared). Returns the kernel's name.");
  m.def("_mix_backward", &mix_backward, pb::arg("pattern"), pb::arg("X"), pb::arg("Y"), pb::arg("dY"),
        pb::arg("batch"), pb::arg("heads"), pb::arg("seed"), pb::arg("threads"), pb::arg("weights_a"),
        pb::arg("weights_b"), pb::arg("gates"), pb::arg("input_gates"), pb::arg("dX"), pb::arg("dA"),
        pb::arg("dB"), pb::arg("d_gates"), pb::arg("d_input_gates"),
        "The adjoint of _mix: writes dX, and dA / dB (summed over the batch, in the layout of weights_a / "
        "weights_b) or d_gates / d_input_gates (per sequence), where given. Returns the kernel's name.");
  m.def("_mix_layout", &layout, pb::arg("pattern"),
        "The solver's structure of a pattern: implicit, a_offsets, b_offsets (0-indexed offsets, ascending), "
        "nnz_A, nnz_B, n.");
}

}  // namespace mixgraph::py
