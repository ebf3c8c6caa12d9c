"""mixgraph.Mixer: a solve's structure planned once, then many solves (the C++ mixgraph::Mixer)."""

import numbers

from . import _args
from . import _core
from ._core import ArgumentTypeError


def _like(X):
    from . import _like as like  # the helper of mixgraph.solve: Y of X's kind (torch.empty_like, ...)

    return like(X)


def _array(X, name):
    if X is None or isinstance(X, (str, bytes, numbers.Number)):
        raise ArgumentTypeError(f"{name} must be an array (numpy, torch or any DLPack / buffer object), not "
                                f"{type(X).__name__}")
    return X


class Mixer:
    """Y = (I - B)^{-1} A X planned once for a pattern, heads and precision, then solved many times.

    ``Mixer(pattern, n=None, *, heads=1, precision="fp32", device="cpu")`` builds what depends only on the
    structure (the pattern's solver form: implicit offsets or CSR; on the first ``solve_adjoint`` the
    transposed structure of the backward pass) and keeps it, so every ``solve`` pays the kernel alone.
    pattern: a Pattern or a spec (with n). precision: 'fp32' or 'fp64' (X must have that dtype). device:
    'cpu' (host arrays), or 'cuda': ``solve`` takes CUDA tensors too (X and Y stay on X's device, on torch's
    current stream) with a device plan made by the first such call per d and kept (the structure on the
    device and the GPU planner's choices: a repeated solve pays the coefficients and the kernel alone;
    ``device_bytes`` says how much GPU memory the plans hold; ``solve_adjoint`` stays on the CPU). The
    weights are the seeded ones of ``mixgraph.solve`` (head h uses seed + h), made by the kernel where it
    uses them: nothing per nonzero is stored, so a solve's working memory is O(threads x tile) beside X and
    Y. ``keep_weights=True`` stores every coefficient of the last seed instead (O(heads (n K + nnz)) values,
    held until another seed or ``release()``) and reads them in later calls: faster repeated solves, most at
    small d and for patterns with many reads per row, at that memory (the same bits either way).

    ``solve(X, *, seed=1, threads=0, out=None, info=False)``: the same bits as ``mixgraph.solve(pattern, X,
    heads=heads, seed=seed)``; X as there (numpy, torch CPU tensor, DLPack or buffer object, read in
    place); Y of X's kind, or ``out`` written in place. ``solve_adjoint(X, Y, dY, *, seed=1, threads=0,
    out=None, info=False)``: dL/dX = A^T (I - B)^{-T} dY for the forward solve's X and Y. Both release
    the GIL; Ctrl-C stops them within a second. Calls from several threads at once are safe.
    ``release()`` frees the plan and the device plans (``planned`` becomes False, ``bytes`` and
    ``device_bytes`` 0); the next call plans again.
    """

    def __init__(self, pattern, n=None, *, heads=1, precision="fp32", device="cpu", keep_weights=False):
        pattern = _args.spec(pattern)
        heads = _args.integer(heads, "heads", 1, 2**31 - 1)
        precision, device = _args.text(precision, "precision"), _args.text(device, "device")
        self._m = _core._Mixer(pattern, n, heads, precision, device, _args.flag(keep_weights, "keep_weights"))

    def solve(self, X, *, seed=1, threads=0, out=None, info=False):
        """Y = (I - B)^{-1} A X with the seeded weights of seed (see the class)."""
        X = _array(X, "X")
        seed, threads, info = _args.seed(seed), _args.threads(threads), _args.flag(info, "info")
        if out is None and not _is_numpy(X) and hasattr(X, "__dlpack__"):
            out = _like(X)
        y, meta = self._m.solve(X, out, seed, threads)
        return (y, meta) if info else y

    def solve_adjoint(self, X, Y, dY, *, seed=1, threads=0, out=None, info=False):
        """dL/dX = A^T (I - B)^{-T} dY for the forward solve's X and Y (see the class)."""
        X, Y, dY = _array(X, "X"), _array(Y, "Y"), _array(dY, "dY")
        seed, threads, info = _args.seed(seed), _args.threads(threads), _args.flag(info, "info")
        if out is None and not _is_numpy(dY) and hasattr(dY, "__dlpack__"):
            out = _like(dY)
        dx, meta = self._m.solve_adjoint(X, Y, dY, out, seed, threads)
        return (dx, meta) if info else dx

    def release(self):
        """Frees the plan (and the device plans, GPU memory included); the next call builds it again."""
        self._m.release()

    @property
    def device(self):
        """'cpu' or 'cuda' (as made)."""
        return self._m.device

    @property
    def device_bytes(self):
        """GPU memory the device plans hold now (device='cuda'; 0 before the first CUDA solve and after
        release())."""
        return self._m.device_bytes

    @property
    def planned(self):
        """Whether the plan is held now."""
        return self._m.planned

    @property
    def bytes(self):
        """Bytes the plan holds now (0 after release())."""
        return self._m.bytes

    @property
    def n(self):
        """The pattern's n."""
        return self._m.n

    @property
    def heads(self):
        """The heads (d a multiple of them)."""
        return self._m.heads

    @property
    def precision(self):
        """'fp32' or 'fp64'."""
        return self._m.precision

    @property
    def spec(self):
        """The pattern's spec."""
        return self._m.spec

    def __repr__(self):
        return f"Mixer({self.spec!r}, n={self.n}, heads={self.heads}, precision={self.precision!r})"


def _is_numpy(X):
    import numpy as np

    return isinstance(X, np.ndarray)


def clear_mixer_cache():
    """Drops the Mixers that ``mixgraph.solve`` keeps (the 8 most recently used plans, keyed by pattern spec,
    n, heads, precision and device) and the device plans of solves on CUDA tensors (``mixgraph.solve``'s and
    ``mixgraph.torch``'s), freeing their memory, GPU memory included; the next solve plans again."""
    _core._mixer_cache_clear()
    _core._device_plans_clear()


def mixer_cache_info():
    """{'entries': Mixers kept now, 'size': the most kept (8)} for ``mixgraph.solve``'s cache."""
    return dict(_core._mixer_cache_info())
