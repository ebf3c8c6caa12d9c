// mixgraph.torch's device solve (private): Y = (I - B)^{-1} A X on device addresses (torch's data_ptr()),
// the structure from host arrays, every coefficient in device memory (SolveMatrix::vals_on_device), queued
// on the caller's stream. The Python side checks shapes, dtypes, devices and contiguity first; the
// structure is checked here (it decides which addresses the kernels read), once: the structures of recent
// calls are kept with their device plans (gpu_plan.hpp), CSR arrays by identity (the array objects are
// held, and must not be changed in place), offsets by value, so a repeated call pays the kernel alone.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "device_plans.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/gpu_solve.hpp"
#include "mixgraph/solve.hpp"

namespace mixgraph::py {
namespace {

using DevU32 = pb::array_t<std::uint32_t, pb::array::c_style | pb::array::forcecast>;
using DevU64 = pb::array_t<std::uint64_t, pb::array::c_style | pb::array::forcecast>;

/// The host arrays of one matrix's structure, kept alive for the call.
struct DevMatrixArrays {
  DevU32 offsets, idx;
  DevU64 ptr;
};

/// One matrix from ("offset", offsets, table) — implicit offsets, a (heads, K) per-offset table on the
/// device — or ("csr", ptr, idx, values) — a (heads, nnz) table [h][e] on the device. `lower`: the
/// diagonal is allowed (A); B is strictly lower.
gpu::SolveMatrix dev_solve_matrix(const pb::tuple& t, std::uint32_t n, bool lower, DevMatrixArrays& keep,
                                  const char* name, bool check = true) {
  const std::string what = std::string("_solve_device: ") + name;
  if (t.size() < 3)
    throw UsageError(what + " must be ('offset', offsets, table) or ('csr', ptr, idx, values)");
  const std::string kind = t[0].cast<std::string>();
  gpu::SolveMatrix m;
  m.vals_on_device = true;
  if (kind == "offset" && t.size() == 3) {
    keep.offsets = t[1].cast<DevU32>();
    const std::uint32_t* o = keep.offsets.data();
    const std::size_t k = std::size_t(keep.offsets.size());
    for (std::size_t q = 0; q < (check ? k : 0); ++q)
      if ((q > 0 && o[q] <= o[q - 1]) || (!lower && o[q] == 0))
        throw UsageError(what + ": offsets must ascend (B's from 1)");
    m.implicit = true;
    m.offsets = o;
    m.k = std::uint32_t(k);
    m.gen = gpu::CoefGen::PerOffset;
    m.vals = reinterpret_cast<const void*>(t[2].cast<std::uintptr_t>());
    return m;
  }
  if (kind == "csr" && t.size() == 4) {
    keep.ptr = t[1].cast<DevU64>();
    keep.idx = t[2].cast<DevU32>();
    const std::uint64_t* p = keep.ptr.data();
    const std::uint32_t* j = keep.idx.data();
    if (std::size_t(keep.ptr.size()) != std::size_t(n) + 1 || p[0] != 0 ||
        p[n] != std::uint64_t(keep.idx.size()))
      throw UsageError(what + ": ptr must have n + 1 entries from 0 to len(idx)");
    for (std::uint32_t i = 0; i < (check ? n : 0); ++i) {
      if (p[i + 1] < p[i]) throw UsageError(what + ": ptr must not decrease");
      for (std::uint64_t e = p[i]; e < p[i + 1]; ++e)
        if (j[e] > i || (!lower && j[e] == i) || (e > p[i] && j[e] <= j[e - 1]))
          throw UsageError(what + ": row " + std::to_string(i) +
                           " must read earlier columns, ascending (A: the diagonal too)");
    }
    m.implicit = false;
    m.ptr = p;
    m.idx = j;
    m.gen = gpu::CoefGen::Values;
    m.vals = reinterpret_cast<const void*>(t[3].cast<std::uintptr_t>());
    m.hs = p[n];  // the canonical CSR layout [h][e]
    m.is = 1;
    m.ks = 0;
    return m;
  }
  throw UsageError(what + " must be ('offset', offsets, table) or ('csr', ptr, idx, values)");
}

/// A structure of recent calls (checked once) and its device plans. CSR arrays are matched by identity
/// (held here, so no other array takes their address), offsets by value.
struct KnownStructure {
  pb::object a1, a2, b1, b2;  // the tuples' structure items (CSR: ptr, idx; offsets: the array, None)
  std::string akind, bkind;
  std::vector<std::uint32_t> aoffs, boffs;
  std::uint32_t n = 0;
  std::shared_ptr<DevicePlans> plans = std::make_shared<DevicePlans>();
};
constexpr std::size_t kKnownStructures = 16;

std::list<KnownStructure>& known() {  // touched with the GIL held; never destroyed (module teardown order)
  static auto* k = new std::list<KnownStructure>();
  return *k;
}

bool same_matrix(const pb::tuple& t, const std::string& kind, const pb::object& s1, const pb::object& s2,
                 const std::vector<std::uint32_t>& offs) {
  if (t.size() < 3 || t[0].cast<std::string>() != kind) return false;
  if (kind == "csr") return t.size() == 4 && t[1].ptr() == s1.ptr() && t[2].ptr() == s2.ptr();
  const auto o = t[1].cast<DevU32>();  // (no copy for a uint32 array)
  return std::size_t(o.size()) == offs.size() && std::equal(offs.begin(), offs.end(), o.data());
}

/// The known structure of (a, b) on n rows, or null.
std::shared_ptr<DevicePlans> known_plans(std::uint32_t n, const pb::tuple& a, const pb::tuple& b) {
  auto& k = known();
  for (auto it = k.begin(); it != k.end(); ++it)
    if (it->n == n && same_matrix(a, it->akind, it->a1, it->a2, it->aoffs) &&
        same_matrix(b, it->bkind, it->b1, it->b2, it->boffs)) {
      k.splice(k.begin(), k, it);
      return k.front().plans;
    }
  return nullptr;
}

/// Keeps (a, b) as a checked structure with empty plans.
std::shared_ptr<DevicePlans> remember_structure(std::uint32_t n, const pb::tuple& a, const pb::tuple& b,
                                                const gpu::SolveProblem& p) {
  KnownStructure s;
  s.n = n;
  auto take = [](const pb::tuple& t, const gpu::SolveMatrix& m, std::string& kind, pb::object& s1,
                 pb::object& s2, std::vector<std::uint32_t>& offs) {
    kind = t[0].cast<std::string>();
    s1 = t[1];
    if (kind == "csr")
      s2 = t[2];
    else
      offs.assign(m.offsets, m.offsets + m.k);
  };
  take(a, p.a, s.akind, s.a1, s.a2, s.aoffs);
  take(b, p.b, s.bkind, s.b1, s.b2, s.boffs);
  auto& k = known();
  k.push_front(std::move(s));
  while (k.size() > kKnownStructures) k.pop_back();
  return k.front().plans;
}

std::string solve_device_call(std::uint32_t n, std::uint32_t d, std::uint32_t heads, bool fp64,
                              std::uintptr_t x, std::uintptr_t y, const pb::tuple& a, const pb::tuple& b,
                              std::uintptr_t stream, int device, bool wait) {
  if (n == 0 || d == 0 || heads == 0 || d % heads != 0)
    throw UsageError("_solve_device: n, d must be positive and d a multiple of heads");
  std::shared_ptr<DevicePlans> plans = known_plans(n, a, b);
  const bool check = !plans;  // the structure's O(n + nnz) check, once
  DevMatrixArrays ka, kb;
  gpu::SolveProblem p;
  p.n = n;
  p.d = d;
  p.heads = heads;
  p.fp64 = fp64;
  p.a = dev_solve_matrix(a, n, true, ka, "A", check);
  p.b = dev_solve_matrix(b, n, false, kb, "B", check);
  const auto info = gpu::device_info();
  if (!info.usable()) throw GpuRequired("no GPU is usable here (" + info.note + ")");
  if (!plans) plans = remember_structure(n, a, b, p);
  const gpu::SolveRun r =
      planned_solve(*plans, p, reinterpret_cast<const void*>(x), reinterpret_cast<void*>(y),
                    reinterpret_cast<void*>(stream), device, nullptr, wait);
  return r.kernel;
}

void device_plans_clear() {
  for (KnownStructure& s : known()) s.plans->clear();
  known().clear();
}

/// The solver's CSR structure of an explicit pattern (the order of per-position weights), or None for a
/// translation-invariant one (its offsets are in _mix_layout).
pb::object solve_structure_csr(const pb::object& pat) {
  const PatternPtr h = pattern_from(pat, pb::none());
  SolveStructure s;
  {
    pb::gil_scoped_release nogil;
    s = solve_structure(h->p);
  }
  if (s.implicit) return pb::none();
  pb::dict r;
  r["a_ptr"] = to_numpy(std::move(s.a.ptr));
  r["a_idx"] = to_numpy(std::move(s.a.idx));
  r["b_ptr"] = to_numpy(std::move(s.b.ptr));
  r["b_idx"] = to_numpy(std::move(s.b.idx));
  return r;
}

}  // namespace

void bind_solve_device(pb::module_& m) {
  m.def("_solve_device", &solve_device_call, pb::arg("n"), pb::arg("d"), pb::arg("heads"), pb::arg("fp64"),
        pb::arg("x"), pb::arg("y"), pb::arg("a"), pb::arg("b"), pb::arg("stream"), pb::arg("device"),
        pb::arg("wait") = true,
        "Y = (I - B)^{-1} A X on device addresses (x, y: n x d row-major), each matrix ('offset', offsets, "
        "table address) or ('csr', ptr, idx, values address) with its coefficients on the device; queued "
        "on `stream`, returns the kernel's name once Y is written (wait = False: once it is queued).");
  m.def("_device_plans_clear", &device_plans_clear,
        "Frees the device plans of _solve_device's recent structures (the next call plans again).");
  m.def("_solve_structure", &solve_structure_csr, pb::arg("pattern"),
        "The solver's CSR arrays (a_ptr, a_idx, b_ptr, b_idx) of an explicit pattern; None if implicit.");
}

}  // namespace mixgraph::py
