#pragma once
// Arrays from Python without a copy: numpy arrays and other buffer-protocol objects (PEP 3118), and any
// object with __dlpack__ (PyTorch tensors, numpy >= 1.22, CuPy, JAX): a pointer, dtype, shape and device.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

namespace mixgraph::py {

namespace pb = pybind11;

struct ArrayView {
  void* data = nullptr;
  int itemsize = 0;  ///< 4 (float32) or 8 (float64)
  int ndim = 0;      ///< 1 or 2
  std::int64_t rows = 0, cols = 1;
  bool cuda = false;  ///< memory on a CUDA device (DLPack kDLCUDA / kDLCUDAManaged)
  int device_id = 0;
  std::string kind;  ///< "numpy", "dlpack" or "buffer"
  pb::object owner;  ///< keeps the memory alive (the array, or a capsule that releases the DLPack tensor)
};

/// X or out as an ArrayView: float32/float64, C-contiguous, 1-D or 2-D. `writable`: refused when the
/// buffer is read-only. UsageError (with what to do) for anything else. `what` names the argument.
ArrayView array_view(const pb::handle& obj, bool writable, const char* what);

/// The `out` of a solve of the CUDA array xv: a writable CUDA array on xv's device with its dtype and shape,
/// C-contiguous, not overlapping X. UsageError naming what is wrong (out missing included: a CUDA X has no
/// empty_like here).
ArrayView cuda_out_view(const ArrayView& xv, const pb::object& out);

}  // namespace mixgraph::py
