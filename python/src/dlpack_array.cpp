// Arrays from Python without a copy (dlpack_array.hpp). The DLPack structs are those of dlpack.h v0.8
// (the ABI every producer uses); the capsule protocol: a "dltensor" capsule is renamed "used_dltensor"
// by its consumer, which then calls the tensor's deleter when done.
#include "dlpack_array.hpp"

#include <pybind11/numpy.h>

#include <memory>

#include "mixgraph/error.hpp"

namespace mixgraph::py {
namespace {

struct DLDevice {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
constexpr std::int32_t kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13;
constexpr std::uint8_t kDLFloat = 2;

std::string shape_error(const char* what) {
  return std::string(what) + " must be n x d (or a vector of length n)";
}

ArrayView from_buffer(const pb::handle& obj, bool writable, const char* what, const char* kind) {
  auto view = std::make_unique<Py_buffer>();
  const int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
  if (PyObject_GetBuffer(obj.ptr(), view.get(), flags) != 0) {
    PyErr_Clear();
    if (PyObject_GetBuffer(obj.ptr(), view.get(), PyBUF_FULL_RO) == 0) {
      const bool ro = view->readonly;
      PyBuffer_Release(view.get());
      if (writable && ro) throw UsageError(std::string(what) + " is read-only");
    } else {
      PyErr_Clear();
    }
    throw UsageError(std::string(what) +
                     " must be C-contiguous (np.ascontiguousarray(X) makes a copy that is)");
  }
  // The exported buffer stays held until the owner capsule goes (with the GIL): the memory cannot move.
  Py_buffer* v = view.release();
  ArrayView a;
  a.owner = pb::capsule(v, [](void* p) {
    PyBuffer_Release(static_cast<Py_buffer*>(p));
    delete static_cast<Py_buffer*>(p);
  });
  a.kind = kind;
  a.data = v->buf;
  a.ndim = v->ndim;
  if (a.ndim != 1 && a.ndim != 2) throw UsageError(shape_error(what));
  a.rows = v->shape[0];
  a.cols = a.ndim == 2 ? v->shape[1] : 1;
  std::string format = v->format ? v->format : "B";
  if (!format.empty() && (format[0] == '<' || format[0] == '@' || format[0] == '='))
    format = format.substr(1);
  if (format == "d" && v->itemsize == 8)
    a.itemsize = 8;
  else if (format == "f" && v->itemsize == 4)
    a.itemsize = 4;
  else
    throw UsageError(std::string(what) + " must be float32 or float64 (got buffer format '" + format +
                     "'); X.astype(np.float32) makes a copy that is");
  return a;
}

ArrayView from_dlpack(const pb::handle& obj, bool writable, const char* what) {
  pb::object cap = obj.attr("__dlpack__")();
  if (!PyCapsule_IsValid(cap.ptr(), "dltensor"))
    throw UsageError(std::string(what) + ".__dlpack__() did not return a DLPack capsule");
  auto* mt = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  if (PyCapsule_SetName(cap.ptr(), "used_dltensor") != 0) throw pb::error_already_set();
  // From here the tensor is ours: the owner capsule calls its deleter (with the GIL, when Python frees it).
  pb::capsule owner(mt, [](void* p) {
    auto* m = static_cast<DLManagedTensor*>(p);
    if (m->deleter) m->deleter(m);
  });
  const DLTensor& t = mt->dl_tensor;
  ArrayView a;
  a.kind = "dlpack";
  a.owner = owner;
  const auto dev = t.device.device_type;
  if (dev == kDLCUDA || dev == kDLCUDAManaged)
    a.cuda = true;
  else if (dev != kDLCPU && dev != kDLCUDAHost)
    throw UsageError(std::string(what) + " is on a device mixgraph cannot read (DLPack device type " +
                     std::to_string(dev) + "); move it to the CPU first");
  a.device_id = t.device.device_id;
  if (t.ndim != 1 && t.ndim != 2) throw UsageError(shape_error(what));
  a.ndim = t.ndim;
  if (t.dtype.code != kDLFloat || t.dtype.lanes != 1 || (t.dtype.bits != 32 && t.dtype.bits != 64))
    throw UsageError(std::string(what) + " must be float32 or float64 (DLPack dtype code " +
                     std::to_string(t.dtype.code) + ", " + std::to_string(t.dtype.bits) +
                     " bits); X.float() or X.astype(np.float32) makes a copy that is");
  a.itemsize = t.dtype.bits / 8;
  a.rows = t.shape[0];
  a.cols = a.ndim == 2 ? t.shape[1] : 1;
  // NULL strides mean C-contiguous; otherwise check (size-1 dimensions may have any stride, and an array
  // without elements any strides at all: torch gives a (k, 0) tensor strides (1, 1))
  if (t.strides && a.rows * a.cols != 0) {
    const bool ok = a.ndim == 1
                        ? (a.rows <= 1 || t.strides[0] == 1)
                        : ((a.cols <= 1 || t.strides[1] == 1) && (a.rows <= 1 || t.strides[0] == a.cols));
    if (!ok)
      throw UsageError(
          std::string(what) +
          " must be C-contiguous (X.contiguous() / np.ascontiguousarray(X) makes a copy that is)");
  }
  a.data = static_cast<char*>(t.data) + t.byte_offset;
  (void)writable;  // DLPack has no read-only flag: producers export only what may be written
  return a;
}

}  // namespace

ArrayView array_view(const pb::handle& obj, bool writable, const char* what) {
  if (pb::isinstance<pb::array>(obj)) {
    const auto arr = pb::reinterpret_borrow<pb::array>(obj);
    if (!(arr.flags() & pb::array::c_style))
      throw UsageError(std::string(what) +
                       " must be C-contiguous (np.ascontiguousarray(X) makes a copy that is)");
    if (writable && !arr.writeable()) throw UsageError(std::string(what) + " is read-only");
    const auto dt = arr.dtype();
    if (dt.kind() != 'f' || (dt.itemsize() != 4 && dt.itemsize() != 8))
      throw UsageError(std::string(what) + " must be float32 or float64 (got dtype " +
                       pb::str(arr.dtype()).cast<std::string>() +
                       "); X.astype(np.float32) makes a copy that is");
    return from_buffer(obj, writable, what, "numpy");
  }
  if (pb::hasattr(obj, "__dlpack__")) return from_dlpack(obj, writable, what);
  if (PyObject_CheckBuffer(obj.ptr())) return from_buffer(obj, writable, what, "buffer");
  throw UsageError(std::string(what) +
                   " must be an array: a numpy array, a PyTorch tensor or any object with __dlpack__ or the "
                   "buffer protocol (float32 or float64, C-contiguous, n x d)");
}

ArrayView cuda_out_view(const ArrayView& xv, const pb::object& out) {
  if (out.is_none())
    throw UsageError("X is a CUDA array without empty_like: pass out= (a CUDA array of X's dtype and shape)");
  ArrayView yv = array_view(out, true, "out");
  if (!yv.cuda || yv.device_id != xv.device_id)
    throw UsageError("out must be on X's device (cuda:" + std::to_string(xv.device_id) + ")");
  if (yv.itemsize != xv.itemsize || yv.ndim != xv.ndim || yv.rows != xv.rows || yv.cols != xv.cols)
    throw UsageError("out must have X's dtype and shape and be C-contiguous");
  const auto* x0 = static_cast<const char*>(xv.data);
  const auto* y0 = static_cast<const char*>(yv.data);
  const std::size_t bytes = std::size_t(xv.rows) * std::size_t(xv.cols) * std::size_t(xv.itemsize);
  if (x0 < y0 + bytes && y0 < x0 + bytes)
    throw UsageError("out must not overlap X (the solve is not in place)");
  return yv;
}

}  // namespace mixgraph::py
