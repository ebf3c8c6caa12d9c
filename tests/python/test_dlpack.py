"""mixgraph.solve with DLPack tensors (numpy's own __dlpack__, PyTorch when installed) and buffer-protocol
objects: the same Y as the numpy path, X read in its own memory (the address the solve read), Y of X's
kind, and CUDA tensors solved on their device (GpuRequired without a GPU) instead of a host round trip."""

import array
import ctypes
import sys

import numpy as np
import pytest

import mixgraph


class DLOnly:
    """Exposes an array through __dlpack__ alone (no buffer protocol, no numpy type)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def reference(p, X, heads=1):
    return mixgraph.solve(p, np.ascontiguousarray(X), heads=heads)


def test_numpy_dlpack_no_copy():
    p = mixgraph.Pattern("sq1+cache", 700)
    X = np.random.default_rng(2).standard_normal((700, 8)).astype(np.float32)
    before = sys.getrefcount(X)
    Y, info = mixgraph.solve(p, DLOnly(X), heads=2, info=True)
    assert info["input"] == "dlpack"
    assert info["x_address"] == X.ctypes.data  # read in place
    assert isinstance(Y, np.ndarray) and Y.dtype == np.float32
    assert np.array_equal(Y, reference(p, X, heads=2))
    out = np.zeros_like(X)
    Y2, info2 = mixgraph.solve(p, DLOnly(X), heads=2, out=DLOnly(out), info=True)
    assert info2["y_address"] == out.ctypes.data and np.array_equal(out, Y)
    del Y2
    assert sys.getrefcount(X) == before  # the DLPack tensor was released (its deleter ran)


def test_numpy_path_reads_in_place():
    p = mixgraph.Pattern("pow2", 256)
    X = np.ones((256, 4))
    out = np.empty_like(X)
    _, info = mixgraph.solve(p, X, out=out, info=True)
    assert info["input"] == "numpy" and info["x_address"] == X.ctypes.data
    assert info["y_address"] == out.ctypes.data


def test_buffer_protocol():
    p = mixgraph.Pattern("fib", 50)
    x = array.array("d", np.linspace(0, 1, 50))
    y, info = mixgraph.solve(p, x, info=True)
    assert info["input"] == "buffer"
    assert np.array_equal(y, reference(p, np.array(x)))
    m = memoryview(np.arange(100, dtype=np.float32).reshape(50, 2))
    assert np.array_equal(mixgraph.solve(p, m), reference(p, np.asarray(m)))


def test_dlpack_rejects_what_it_cannot_read():
    p = mixgraph.Pattern("pow2", 64)
    with pytest.raises(mixgraph.UsageError, match="float32 or float64"):
        mixgraph.solve(p, DLOnly(np.ones((64, 2), dtype=np.int32)))
    with pytest.raises(mixgraph.UsageError, match="C-contiguous"):
        mixgraph.solve(p, DLOnly(np.ones((2, 64)).T))
    with pytest.raises(mixgraph.UsageError, match="rows"):
        mixgraph.solve(p, DLOnly(np.ones((63, 2))))
    with pytest.raises(mixgraph.UsageError, match="must be an array"):
        mixgraph.solve(p, [[1.0]] * 64)


# A DLPack capsule made by hand (ctypes), on a CUDA device: tests the CUDA path without a GPU.
class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32), ("dtype", _DType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Managed))
_Managed._fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]


class FakeCuda:
    """Claims to be a float32 n x d tensor on CUDA device 0 (data never read)."""

    def __init__(self, n, d):
        self.shape = (ctypes.c_int64 * 2)(n, d)
        self.deleted = 0
        self.deleter = _DELETER(self._delete)
        self.m = _Managed(_Tensor(None, _Device(2, 0), 2, _DType(2, 32, 1), self.shape, None, 0), None,
                          self.deleter)

    def _delete(self, _):
        self.deleted += 1

    def __dlpack__(self, stream=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.m), b"dltensor", None)

    def __dlpack_device__(self):
        return (2, 0)


def test_cuda_tensor_is_refused_without_a_host_copy():
    # without a GPU: GpuRequired; with one: this fake has no empty_like and no out=, so a usage error
    # (before its null data pointer is touched); never a copy to the host
    x = FakeCuda(64, 4)
    with pytest.raises((mixgraph.GpuRequired, mixgraph.UsageError), match="CUDA") as e:
        mixgraph.solve(mixgraph.Pattern("pow2", 64), x)
    assert x.deleted == 1  # the consumed tensor was handed back
    # no weight keyword was given, so the refusal must not be about weights or gates
    assert "weights" not in str(e.value) and "gates" not in str(e.value), str(e.value)


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (python3-torch)")
    p = mixgraph.Pattern("sq1", 300)
    X = torch.randn(300, 6, dtype=torch.float64)
    Y, info = mixgraph.solve(p, X, heads=3, info=True)
    assert isinstance(Y, torch.Tensor) and Y.dtype == torch.float64 and Y.shape == X.shape
    assert info["x_address"] == X.data_ptr() and info["y_address"] == Y.data_ptr()
    assert np.array_equal(Y.numpy(), reference(p, X.numpy(), heads=3))
    out = torch.empty(300, 6, dtype=torch.float32)
    Y32 = mixgraph.solve(p, X.float(), heads=3, out=out)
    assert Y32 is out
    np.testing.assert_allclose(out.numpy(), Y.numpy(), rtol=1e-3, atol=1e-4)
    with pytest.raises(mixgraph.UsageError, match="C-contiguous"):
        mixgraph.solve(p, torch.randn(6, 300).T)


def test_torch_cuda_tensor():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (python3-torch)")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: the CUDA-tensor path is tested with a hand-made DLPack capsule above")
    # solved on X's device (the device-pointer entry point), Y a CUDA tensor there, against the CPU solve
    for spec, n, d, heads, dtype in [("pow2", 4096, 64, 2, torch.float32), ("ssm", 5000, 256, 256, torch.float32),
                                     ("sq1", 3000, 16, 1, torch.float64)]:
        p = mixgraph.Pattern(spec, n)
        X = torch.randn(n, d, device="cuda", dtype=dtype)
        Y, info = mixgraph.solve(p, X, heads=heads, info=True)
        assert isinstance(Y, torch.Tensor) and Y.is_cuda and Y.device == X.device
        assert Y.dtype == X.dtype and Y.shape == X.shape
        assert info["x_address"] == X.data_ptr() and info["y_address"] == Y.data_ptr()
        assert "gpu" in info["kernel"]
        ref = mixgraph.solve(p, X.cpu().double().numpy(), heads=heads)
        got = Y.cpu().double().numpy()
        rel = np.linalg.norm(got - ref) / np.linalg.norm(ref)
        assert rel <= (1e-5 if dtype == torch.float32 else 1e-12), (spec, rel, info["kernel"])
        out = torch.empty_like(X)
        got2, info2 = mixgraph.solve(p, X, heads=heads, out=out, info=True)
        assert got2 is out
        # the same weights again: the device's seeded weights are reused, with the same bytes of Y
        assert info2["weights_cached"] is True and torch.equal(out, Y), info2
        _, info3 = mixgraph.solve(p, X, heads=heads, seed=7, out=out, info=True)
        assert info3["weights_cached"] is False  # another seed: written again
        assert not torch.equal(out, Y)


def _gated_reference(X, G, U=None):
    """y[i, c] = G[i, c] y[i-1, c] + U[i, c] X[i, c] in float64 (U = 1 when not given): the per-channel
    gates as the CLI's --gates / --input-gates read them."""
    n, d = X.shape
    U = np.ones((n, d)) if U is None else U
    Y = np.zeros((n, d))
    prev = np.zeros(d)
    for i in range(n):
        prev = U[i] * X[i] + (G[i] * prev if i > 0 else 0)
        Y[i] = prev
    return Y


def test_torch_cuda_gates():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (python3-torch)")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: gates= reads CUDA tensors in place")
    n = 3000
    p = mixgraph.Pattern("ssm", n)
    for d, dtype, with_u in [(64, torch.float32, False), (5, torch.float64, False), (40, torch.float64, True),
                             (64, torch.float32, True)]:
        X = torch.randn(n, d, device="cuda", dtype=dtype)
        G = 0.05 + 0.9 * torch.rand(n, d, device="cuda", dtype=dtype)
        U = torch.randn(n, d, device="cuda", dtype=dtype) if with_u else None
        Y = torch.empty_like(X)
        got, info = mixgraph.solve(p, X, gates=G, input_gates=U, out=Y, info=True)
        assert got is Y and info["heads"] == d and info["gates"] is True and info["input_gates"] is with_u
        assert "gpu-scan1" in info["kernel"], info["kernel"]
        ref = _gated_reference(X.cpu().double().numpy(), G.cpu().double().numpy(),
                               None if U is None else U.cpu().double().numpy())
        rel = np.linalg.norm(Y.cpu().double().numpy() - ref) / np.linalg.norm(ref)
        assert rel <= (1e-5 if dtype == torch.float32 else 1e-12), (d, rel, info["kernel"])
        # heads=d said explicitly: the same bytes; a repeat reuses the device's copy of A (all ones or U)
        Y2, info2 = mixgraph.solve(p, X, gates=G, input_gates=U, heads=d, info=True)
        assert torch.equal(Y2, Y)
        if not with_u:
            assert info2["weights_cached"] is True, info2
        # the same keywords with X and the gates on the host: the CPU solve of the same mixer
        Yh = mixgraph.solve(p, X.cpu().numpy(), gates=G.cpu().numpy(),
                            input_gates=None if U is None else U.cpu().numpy())
        relh = np.linalg.norm(Yh - Y.cpu().numpy()) / np.linalg.norm(Yh)
        assert relh <= (1e-5 if dtype == torch.float32 else 1e-12), (d, relh)
    X = torch.randn(n, 8, device="cuda")
    G = torch.rand(n, 8, device="cuda")
    bad = [
        (dict(gates=G.cpu()), "CUDA"),
        (dict(gates=G.double()), "dtype and shape"),
        (dict(gates=G[:, :4].contiguous()), "dtype and shape"),
        (dict(gates=G, heads=2), "heads must be 8"),
    ]
    for kw, msg in bad:
        with pytest.raises(mixgraph.UsageError, match=msg):
            mixgraph.solve(p, X, **kw)
    with pytest.raises(mixgraph.UsageError, match="first-order"):
        mixgraph.solve(mixgraph.Pattern("pow2", n), X, gates=G)
    with pytest.raises(mixgraph.UsageError, match="input_gates must be a CUDA"):
        mixgraph.solve(p, X, gates=G, input_gates=G.cpu())
    with pytest.raises(mixgraph.UsageError, match="host weights need X on the host"):
        mixgraph.solve(p, X, weights_b=np.ones((8, 1)))
