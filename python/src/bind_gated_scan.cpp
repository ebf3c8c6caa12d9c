// mixgraph.torch's CUDA kernels: the gated scan (gpu_gated_scan.hpp), dX = A^T Z of per-offset weights
// (gpu_shift_add.hpp) and the weight gradients per offset (gpu_shift_dots.hpp) and per entry
// (gpu_entry_dots.hpp). Private functions that take
// device addresses (torch's data_ptr()) and torch's current stream, queue the kernels and return; nothing
// waits for the device. The Python side checks shapes, dtypes, devices and contiguity first.
#include <pybind11/stl.h>

#include <cstdint>
#include <stdexcept>

#include "common.hpp"
#include "mixgraph/gpu_entry_dots.hpp"
#include "mixgraph/gpu_gated_scan.hpp"
#include "mixgraph/gpu_shift_add.hpp"
#include "mixgraph/gpu_shift_dots.hpp"

namespace mixgraph::py {

namespace {
void* ptr(std::uintptr_t a) {
  return reinterpret_cast<void*>(a);
}
void check(const std::string& err) {
  if (!err.empty()) throw std::runtime_error(err);
}
gpu::GatedScan shape(std::uint32_t batch, std::uint32_t n, std::uint32_t d, bool fp64) {
  gpu::GatedScan s;
  s.batch = batch, s.n = n, s.d = d, s.fp64 = fp64;
  return s;
}
}  // namespace

void bind_gated_scan(pb::module_& m) {
  m.def(
      "_gated_scan_workspace",
      [](std::uint32_t batch, std::uint32_t n, std::uint32_t d) {
        return gpu::gated_scan_workspace(shape(batch, n, d, false));
      },
      "Elements of workspace the gated scan needs for (batch, n, d).");
  m.def(
      "_gated_scan_forward",
      [](std::uint32_t batch, std::uint32_t n, std::uint32_t d, bool fp64, std::uintptr_t x, std::uintptr_t g,
         std::uintptr_t u, std::uintptr_t y, std::uintptr_t work, std::uintptr_t stream) {
        gpu::GatedScanForward a;
        a.x = ptr(x), a.g = ptr(g), a.u = ptr(u), a.y = ptr(y), a.work = ptr(work);
        check(gpu::gated_scan_forward(shape(batch, n, d, fp64), a, ptr(stream)));
      },
      "y[t] = g[t] y[t-1] + u[t] x[t] on device addresses (u = 0: none), queued on `stream`.");
  m.def(
      "_gated_scan_backward",
      [](std::uint32_t batch, std::uint32_t n, std::uint32_t d, bool fp64, std::uintptr_t dy,
         std::uintptr_t g, std::uintptr_t y, std::uintptr_t x, std::uintptr_t u, std::uintptr_t dx,
         std::uintptr_t dg, std::uintptr_t du, std::uintptr_t work, std::uintptr_t stream) {
        gpu::GatedScanBackward a;
        a.dy = ptr(dy), a.g = ptr(g), a.y = ptr(y), a.x = ptr(x), a.u = ptr(u);
        a.dx = ptr(dx), a.dg = ptr(dg), a.du = ptr(du), a.work = ptr(work);
        check(gpu::gated_scan_backward(shape(batch, n, d, fp64), a, ptr(stream)));
      },
      "The adjoint z[t] = dy[t] + g[t+1] z[t+1] and dx = u z, dg[t] = z[t] y[t-1], du = x z (address 0: "
      "not written), queued on `stream`.");
  // the same calls on host addresses: the CPU reference of the three passes (the stream is not used)
  m.def("_gated_scan_reference_forward",
        [](std::uint32_t batch, std::uint32_t n, std::uint32_t d, bool fp64, std::uintptr_t x,
           std::uintptr_t g, std::uintptr_t u, std::uintptr_t y, std::uintptr_t work, std::uintptr_t) {
          gpu::GatedScanForward a;
          a.x = ptr(x), a.g = ptr(g), a.u = ptr(u), a.y = ptr(y), a.work = ptr(work);
          check(gpu::gated_scan_reference_forward(shape(batch, n, d, fp64), a));
        });
  m.def("_gated_scan_reference_backward",
        [](std::uint32_t batch, std::uint32_t n, std::uint32_t d, bool fp64, std::uintptr_t dy,
           std::uintptr_t g, std::uintptr_t y, std::uintptr_t x, std::uintptr_t u, std::uintptr_t dx,
           std::uintptr_t dg, std::uintptr_t du, std::uintptr_t work, std::uintptr_t) {
          gpu::GatedScanBackward a;
          a.dy = ptr(dy), a.g = ptr(g), a.y = ptr(y), a.x = ptr(x), a.u = ptr(u);
          a.dx = ptr(dx), a.dg = ptr(dg), a.du = ptr(du), a.work = ptr(work);
          check(gpu::gated_scan_reference_backward(shape(batch, n, d, fp64), a));
        });
  m.def(
      "_shift_dots",
      [](std::uint32_t batch, std::uint32_t n, std::uint32_t d, bool fp64,
         const std::vector<std::uint32_t>& offs, std::uintptr_t z, std::uintptr_t v, std::uintptr_t part,
         std::uintptr_t stream, bool z_reversed) {
        gpu::ShiftDots s;
        s.batch = batch, s.n = n, s.d = d, s.fp64 = fp64, s.offsets = offs, s.z_reversed = z_reversed;
        check(gpu::shift_dots(s, ptr(z), ptr(v), static_cast<double*>(ptr(part)), ptr(stream)));
      },
      pybind11::arg("batch"), pybind11::arg("n"), pybind11::arg("d"), pybind11::arg("fp64"),
      pybind11::arg("offs"), pybind11::arg("z"), pybind11::arg("v"), pybind11::arg("part"),
      pybind11::arg("stream"), pybind11::arg("z_reversed") = false,
      "part[k, c] += sum_i z[i, c] v[i - offs[k], c] (part: K x d float64, zeroed by the caller; z's rows "
      "in reverse order with z_reversed), queued on `stream`.");
  m.attr("_SHIFT_DOTS_MAX_OFFSETS") = gpu::kShiftDotsMaxOffsets;
  auto add = [](bool device, std::uint32_t n, std::uint32_t d, std::uint32_t heads, bool fp64,
                const std::vector<std::uint32_t>& offs, bool z_reversed, std::uintptr_t table,
                std::uintptr_t z, std::uintptr_t out, std::uintptr_t stream) {
    gpu::ShiftAdd s;
    s.n = n, s.d = d, s.heads = heads, s.fp64 = fp64, s.offsets = offs, s.z_reversed = z_reversed;
    check(device ? gpu::shift_add(s, ptr(table), ptr(z), ptr(out), ptr(stream))
                 : gpu::shift_add_reference(s, ptr(table), ptr(z), ptr(out)));
  };
  m.def(
      "_shift_add",
      [add](std::uint32_t n, std::uint32_t d, std::uint32_t heads, bool fp64,
            const std::vector<std::uint32_t>& offs, bool z_reversed, std::uintptr_t table, std::uintptr_t z,
            std::uintptr_t out,
            std::uintptr_t stream) { add(true, n, d, heads, fp64, offs, z_reversed, table, z, out, stream); },
      "out[i, c] = sum_k table[h, k] z[i + offs[k], c] (h = c / (d / heads); z's rows in reverse order with "
      "z_reversed; zero table entries skipped; out written), queued on `stream`.");
  m.def(
      "_shift_add_reference",
      [add](std::uint32_t n, std::uint32_t d, std::uint32_t heads, bool fp64,
            const std::vector<std::uint32_t>& offs, bool z_reversed, std::uintptr_t table, std::uintptr_t z,
            std::uintptr_t out,
            std::uintptr_t) { add(false, n, d, heads, fp64, offs, z_reversed, table, z, out, 0); },
      "_shift_add on host addresses (the CPU reference; the stream is not used).");
  m.attr("_SHIFT_ADD_MAX_OFFSETS") = gpu::kShiftAddMaxOffsets;
  auto dots = [](bool device, std::uint32_t n, std::uint32_t batch, std::uint32_t heads, std::uint32_t dh,
                 std::uint64_t nnz, bool fp64, std::uintptr_t z, std::uintptr_t v, std::uintptr_t rows,
                 std::uintptr_t cols, std::uintptr_t out, std::uintptr_t stream) {
    gpu::EntryDots s;
    s.n = n, s.batch = batch, s.heads = heads, s.dh = dh, s.nnz = nnz, s.fp64 = fp64;
    const auto* r = static_cast<const std::int64_t*>(ptr(rows));
    const auto* c = static_cast<const std::int64_t*>(ptr(cols));
    auto* o = static_cast<double*>(ptr(out));
    check(device ? gpu::entry_dots(s, ptr(z), ptr(v), r, c, o, ptr(stream))
                 : gpu::entry_dots_reference(s, ptr(z), ptr(v), r, c, o));
  };
  m.def(
      "_entry_dots",
      [dots](std::uint32_t n, std::uint32_t batch, std::uint32_t heads, std::uint32_t dh, std::uint64_t nnz,
             bool fp64, std::uintptr_t z, std::uintptr_t v, std::uintptr_t rows, std::uintptr_t cols,
             std::uintptr_t out, std::uintptr_t stream) {
        dots(true, n, batch, heads, dh, nnz, fp64, z, v, rows, cols, out, stream);
      },
      "out[h, e] = sum over b, c of z[rows[e], (b heads + h) dh + c] v[cols[e], ...] (out: heads x nnz "
      "float64, written; rows, cols int64), queued on `stream`.");
  m.def(
      "_entry_dots_reference",
      [dots](std::uint32_t n, std::uint32_t batch, std::uint32_t heads, std::uint32_t dh, std::uint64_t nnz,
             bool fp64, std::uintptr_t z, std::uintptr_t v, std::uintptr_t rows, std::uintptr_t cols,
             std::uintptr_t out,
             std::uintptr_t) { dots(false, n, batch, heads, dh, nnz, fp64, z, v, rows, cols, out, 0); },
      "_entry_dots on host addresses (the CPU reference; the stream is not used).");
}

}  // namespace mixgraph::py
