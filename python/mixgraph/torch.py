"""mixgraph.torch: the mixer Y = (I - B)^{-1} A X as a differentiable PyTorch operation (CPU and CUDA).

Importing this module needs PyTorch; ``import mixgraph`` does not::

    import torch
    import mixgraph
    from mixgraph.torch import mix, SparseMixer

    p = mixgraph.Pattern("pow2", 128)
    wb = torch.full((1, 7), 0.1, dtype=torch.float64, requires_grad=True)   # (heads, K_B) per offset
    X = torch.randn(4, 128, 16, dtype=torch.float64, requires_grad=True)   # (batch, T, d)
    Y = mix(p, X, weights_b=wb)             # A seeded as in mixgraph.solve; dY/dX and dY/dwb
    Y.square().sum().backward()

The backward pass is the adjoint solve Z = (I - B)^{-T} dY run by the same sparse engine on the reversed
sequence (docs/math.md, "Gradients"), then dX = A^T Z and the weight gradients <Z_i, X_j> / <Z_i, Y_j>
reduced to the layout each weight was given in: no autograd through a loop, no n x n buffer.

On torch >= 2.4 the operation is registered as the custom op ``mixgraph::mix`` (torch.library) with a fake
implementation, so ``torch.compile`` traces models that use it without graph breaks; on older torch it is a
``torch.autograd.Function``. Double backward is refused with a RuntimeError. CUDA tensors run on their
device for three families: per-channel gates (ssm-like patterns), per-offset weights (translation-invariant
patterns) and per-position weights (every pattern, cache-efficient and explicit ones included), the batch
as the columns of one device solve; seeded weights (weights_a or weights_b left out) are refused with a
UsageError (``X.cpu()``).
"""

# (no `from __future__ import annotations`: torch.library.custom_op reads the annotations as types)
from typing import Dict, List, Optional, Sequence, Tuple, Union

import torch

from . import Pattern, UsageError, _core
from . import _torch_cuda as _tc

__all__ = ["mix", "SparseMixer"]

#: dtypes mix takes, and the dtype it computes in (bfloat16 / float16 in float32, cast back)
_COMPUTE = {
    torch.float64: torch.float64,
    torch.float32: torch.float32,
    torch.bfloat16: torch.float32,
    torch.float16: torch.float32,
}

_DOUBLE_BACKWARD = (
    "mixgraph.torch.mix: double backward (a gradient of the gradient) is not supported; the backward "
    "pass is the adjoint solve, which is not itself differentiable"
)

# The op receives a pattern as (spec, n); the Pattern objects seen are kept here so that no call builds
# one again (an explicit pattern costs O(n + nnz) to build).
_PATTERNS: Dict[Tuple[str, int], Pattern] = {}


def _pattern_key(pattern: Union[Pattern, str], n: int) -> Tuple[str, int]:
    if isinstance(pattern, Pattern):
        key = (pattern.spec, int(pattern.n))
        _remember(key, pattern)
        return key
    if isinstance(pattern, str):
        return (pattern, int(n))
    raise UsageError(f"pattern must be a mixgraph.Pattern or a spec string (got {type(pattern).__name__})")


_MAX_PATTERNS = 64  # the oldest is dropped beyond this many (and built again if it comes back)


def _remember(key: Tuple[str, int], p: Pattern) -> None:
    if key not in _PATTERNS and len(_PATTERNS) >= _MAX_PATTERNS:
        del _PATTERNS[next(iter(_PATTERNS))]
    _PATTERNS.setdefault(key, p)


def _pattern(spec: str, n: int) -> Pattern:
    p = _PATTERNS.get((spec, n))
    if p is None:
        p = Pattern(spec, n)
        _remember((spec, n), p)
    return p


def _host(t: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    return None if t is None else t.detach()


# ---- the two halves, on plain tensors (no autograd) ----


def _forward_impl(X, wa, wb, g, u, spec, n, batch, heads, seed, threads):
    if X.is_cuda:
        return _cuda_forward(X, wa, wb, g, u, spec, n, batch, heads, seed)
    Y = torch.empty_like(X)
    _core._mix(_pattern(spec, n), X.detach(), Y, batch, heads, seed, threads, _host(wa), _host(wb), _host(g),
               _host(u))
    return Y


def _backward_impl(dY, X, Y, wa, wb, g, u, spec, n, batch, heads, seed, threads, needs):
    if X.is_cuda:
        grads = _cuda_backward(dY.contiguous(), X, Y, wa, wb, g, u, spec, n, batch, heads, seed, needs)
        return [X.new_empty(0) if gr is None else gr.to(t.dtype)
                for gr, t in zip(grads, (X, wa, wb, g, u))]

    def grad_like(t, need):
        return torch.empty(t.shape, dtype=X.dtype) if (need and t is not None) else None

    dX = torch.empty_like(X) if needs[0] else None
    dA, dB = grad_like(wa, needs[1]), grad_like(wb, needs[2])
    dG, dU = grad_like(g, needs[3]), grad_like(u, needs[4])
    _core._mix_backward(_pattern(spec, n), X.detach(), Y.detach(), dY.detach().contiguous(), batch, heads, seed,
                        threads, _host(wa), _host(wb), _host(g), _host(u), dX, dA, dB, dG, dU)
    ins = (X, wa, wb, g, u)
    out = []
    for grad, t in zip((dX, dA, dB, dG, dU), ins):  # each gradient in its input's dtype
        out.append(X.new_empty(0) if grad is None else grad.to(t.dtype))
    return out



# ---- CUDA: the device solve (forward and adjoint), the rest in torch ops on the same stream ----
#
# Three families run on CUDA. Per-channel gates (ssm-like patterns: B reads i - 1, A the diagonal): the gated
# scan kernels (gpu_gated_scan.hpp), one scan for the whole batch forward, and backward the adjoint scan
# z[t] = dy[t] + g[t+1] z[t+1] walked backwards in place, which writes dX, dG and dU in the same pass; on
# torch's current stream, with no host synchronisation. Per-offset weights (heads, K) of translation-invariant
# patterns, and per-position weights (heads, nnz) of any pattern (mixed with per-offset ones on
# translation-invariant patterns): the device solve with the tables read on the device, the batch as columns
# of one solve, and the adjoint solve on the reversed sequence (_torch_cuda.py says how); the weight
# gradients by shift_dots (gpu_shift_dots.hpp) or per-entry dot products; dX of per-offset weights by
# shift_add (gpu_shift_add.hpp).

_CUDA_FAMILIES = ("per-channel gates on ssm-like patterns (gates=, input_gates=), per-offset weights_a and "
                  "weights_b (heads, K) on translation-invariant patterns, and per-position weights_a and "
                  "weights_b (heads, nnz) on any pattern (both weights given)")


def _compiling() -> bool:
    """True while torch.compile traces (torch >= 2.1; older versions have no compiler to trace with)."""
    f = getattr(getattr(torch, "compiler", None), "is_compiling", None)
    return bool(f is not None and f())


def _cuda_check(spec: str, n: int, X, wa, wb, g, u, heads: int) -> None:
    """Refuses, before any work, what the CUDA path does not take. While torch.compile traces, the checks
    that read the pattern's layout (a call into the compiled module, which would break the graph) are left
    to the op itself, which makes them again when it runs (_cuda_forward)."""
    for t, name in ((wa, "weights_a"), (wb, "weights_b"), (g, "gates"), (u, "input_gates")):
        if t is not None and t.device != X.device:
            raise UsageError(f"{name} is on {t.device} but X is on {X.device}: give every tensor on X's device")
    if _compiling():
        return
    lay = _layout(spec, n)
    if g is not None or u is not None:
        if g is None:
            raise UsageError("on CUDA, input_gates need gates too (give gates=)")
        if wa is not None or wb is not None:
            raise UsageError("on CUDA, gates take no weights_a / weights_b (move the tensors with .cpu())")
        if not (lay["implicit"] and lay["b_offsets"] == [1] and lay["a_offsets"] == [0]):
            raise UsageError(f"gates on CUDA need a first-order pattern with a diagonal A (ssm); '{spec}' is not "
                             "one (move the tensors with .cpu())")
        return
    if _weight_kinds(lay, wa, wb, heads) is None:
        raise UsageError(f"mixgraph.torch.mix on CUDA takes {_CUDA_FAMILIES}; '{spec}' with these weights is "
                         "not one (move the tensors with .cpu() for the other families)")


def _weight_kinds(lay: dict, wa, wb, heads: int):
    """(A per offset?, B per offset?) as the CPU op reads the shapes ((heads, nnz) per position first, then
    (heads, K) per offset on translation-invariant patterns), or None where the CUDA path takes neither
    (a weight left out: seeded)."""
    if wa is None or wb is None:
        return None
    kinds = []
    for w, offs, nnz in ((wa, lay["a_offsets"], lay["nnz_A"]), (wb, lay["b_offsets"], lay["nnz_B"])):
        if tuple(w.shape) == (heads, nnz):
            kinds.append(False)
        elif lay["implicit"] and tuple(w.shape) == (heads, len(offs)):
            kinds.append(True)
        else:
            return None
    return tuple(kinds)


def _detached(*ts):
    return [None if t is None else t.detach() for t in ts]


def _addr(t) -> int:
    return 0 if t is None else t.data_ptr()


def _on_device(X, fn):
    """fn(stream address) with X's device current (the kernels launch on the current device); fn(0) for a
    CPU X (the kernels' host reference)."""
    if not X.is_cuda:
        return fn(0)
    if X.device.index == torch.cuda.current_device():
        return fn(torch.cuda.current_stream(X.device).cuda_stream)
    with torch.cuda.device(X.device):
        return fn(torch.cuda.current_stream(X.device).cuda_stream)


def _gated_forward(X, g, u, n, batch, scan=None):
    """y[t] = g[t] y[t-1] + u[t] x[t] per channel, the whole batch in one scan (rows (batch * n, d))."""
    d = X.shape[1]
    Y = torch.empty_like(X)
    work = torch.empty(_core._gated_scan_workspace(batch, n, d), dtype=X.dtype, device=X.device)
    scan = scan or _core._gated_scan_forward
    _on_device(X, lambda st: scan(batch, n, d, X.dtype == torch.float64, X.data_ptr(), g.data_ptr(), _addr(u),
                                  Y.data_ptr(), work.data_ptr(), st))
    return Y


def _gated_backward(dY, X, Y, g, u, n, batch, needs, scan=None):
    """The adjoint scan z[t] = dy[t] + g[t+1] z[t+1] run backwards in place, writing dX = u z,
    dG[t] = z[t] y[t-1] and dU = x z in the same pass (one scan for the batch, no reversed copies)."""
    d = X.shape[1]
    dX = torch.empty_like(X) if needs[0] else None
    dG = torch.empty_like(X) if needs[3] else None
    dU = torch.empty_like(X) if (needs[4] and u is not None) else None
    if dX is None and dG is None and dU is None:
        return [None] * 5
    work = torch.empty(_core._gated_scan_workspace(batch, n, d), dtype=X.dtype, device=X.device)
    scan = scan or _core._gated_scan_backward
    _on_device(X, lambda st: scan(
        batch, n, d, X.dtype == torch.float64, dY.data_ptr(), g.data_ptr(), Y.data_ptr(), X.data_ptr(),
        _addr(u), _addr(dX), _addr(dG), _addr(dU), work.data_ptr(), st))
    return [dX, None, None, dG, dU]


def _cuda_forward(X, wa, wb, g, u, spec, n, batch, heads, seed, solve=None):
    """The CUDA forward; solve: the device solve (_torch_cuda.device_solve), or its dense reference for tests
    of this logic on the CPU."""
    _cuda_check(spec, n, X, wa, wb, g, u, heads)  # again: a compiled model's trace skipped the layout checks
    X, wa, wb, g, u = _detached(X, wa, wb, g, u)  # (DLPack exports no tensor that requires grad)
    if g is not None:
        return _gated_forward(X, g.to(X.dtype).contiguous(), None if u is None else u.to(X.dtype).contiguous(),
                              n, batch)
    lay = _layout(spec, n)
    kinds = _weight_kinds(lay, wa, wb, heads)
    st = _cuda_struct(spec, n, lay)
    solve = solve or _tc.device_solve
    if kinds == (True, True):
        return _tc.offset_forward(X, wa, wb, st, n, batch, heads, solve, _on_device)
    return _tc.position_forward(X, wa, wb, st, n, batch, heads, kinds, solve, _on_device)


def _cuda_struct(spec: str, n: int, lay: dict) -> dict:
    """The host structure of the CUDA weight families (_torch_cuda.structure, cached per pattern)."""
    return _tc.structure(spec, n, lay, lambda: _core._solve_structure(_pattern(spec, n)))


def _shift_dot(Z, V, o: int, heads: int):
    """Per head: sum over the batch, i >= o and the head's columns of Z[:, i] * V[:, i - o] ((heads,))."""
    batch, n, d = Z.shape
    if o >= n:
        return Z.new_zeros(heads)
    if batch == 1 and heads == 1:  # contiguous slices: one dot product, no temporary
        return torch.dot(Z[0, o:].reshape(-1), V[0, :n - o].reshape(-1)).reshape(1)
    return (Z[:, o:] * V[:, :n - o]).sum(dim=(0, 1)).view(heads, d // heads).sum(dim=1)


def _shift_dots(Z, V, offs, heads: int, z_reversed: bool = False):
    """(heads, K) float64: per head, sum over the batch, i >= o_k and the head's columns of Z[:, i] V[:, i - o_k],
    all offsets in one kernel (partial sums per column in float64, then per head); a torch loop past its
    limit. z_reversed: Z holds each sequence's rows in reverse order."""
    batch, n, d = Z.shape
    if not offs:
        return Z.new_zeros(heads, 0, dtype=torch.float64)
    if len(offs) > _core._SHIFT_DOTS_MAX_OFFSETS or batch * -(-n // 4096) > 65535:  # (the grid's rows)
        Zn = Z.flip(1) if z_reversed else Z
        return torch.stack([_shift_dot(Zn, V, o, heads) for o in offs], dim=1).double()
    part = torch.zeros(len(offs), d, dtype=torch.float64, device=Z.device)
    _on_device(Z, lambda st: _core._shift_dots(batch, n, d, Z.dtype == torch.float64, [int(o) for o in offs],
                                               Z.data_ptr(), V.data_ptr(), part.data_ptr(), st, z_reversed))
    return part.view(len(offs), heads, d // heads).sum(dim=2).t().contiguous()


def _shift_add(Z, tab, offs, heads: int, z_reversed: bool):
    """(n, D): out_i = sum_k tab[h, k] Z_{i + o_k} over head h's columns, in one kernel on Z's device
    (gpu_shift_add.hpp: the table read there, zero entries skipped); Z (n, D) contiguous, tab (heads, K)."""
    n, D = Z.shape
    tab = tab.to(Z.dtype).contiguous()
    out = torch.empty_like(Z)
    _on_device(Z, lambda st: _core._shift_add(n, D, heads, Z.dtype == torch.float64, [int(o) for o in offs],
                                              z_reversed, tab.data_ptr(), Z.data_ptr(), out.data_ptr(), st))
    return out


def _cuda_backward(dY, X, Y, wa, wb, g, u, spec, n, batch, heads, seed, needs, solve=None, shift_dots=None,
                   shift_add=None):
    """The CUDA backward; solve, shift_dots and shift_add: the device kernels, or references for tests on the
    CPU."""
    dY, X, Y, wa, wb, g, u = _detached(dY, X, Y, wa, wb, g, u)
    if g is not None:
        return _gated_backward(dY, X, Y, g.to(X.dtype).contiguous(),
                               None if u is None else u.to(X.dtype).contiguous(), n, batch, needs)
    lay = _layout(spec, n)
    kinds = _weight_kinds(lay, wa, wb, heads)
    st = _cuda_struct(spec, n, lay)
    solve = solve or _tc.device_solve
    if kinds == (True, True):
        return _tc.offset_backward(dY, X, Y, wa, wb, st, n, batch, heads, needs, solve, _on_device,
                                   shift_dots or _shift_dots, shift_add or _shift_add)
    return _tc.position_backward(dY, X, Y, wa, wb, st, n, batch, heads, kinds, needs, solve, _on_device)


def _grads_out(grads, needs):
    return tuple(gr if nd else None for gr, nd in zip(grads, needs))


if hasattr(torch.library, "custom_op") and hasattr(torch.library, "register_autograd"):  # torch >= 2.4

    @torch.library.custom_op("mixgraph::mix", mutates_args=())
    def _mix_op(X: torch.Tensor, wa: Optional[torch.Tensor], wb: Optional[torch.Tensor],
                g: Optional[torch.Tensor], u: Optional[torch.Tensor], spec: str, n: int, batch: int, heads: int,
                seed: int, threads: int) -> torch.Tensor:
        return _forward_impl(X, wa, wb, g, u, spec, n, batch, heads, seed, threads)

    @_mix_op.register_fake
    def _mix_fake(X, wa, wb, g, u, spec, n, batch, heads, seed, threads):
        return torch.empty_like(X)

    @torch.library.custom_op("mixgraph::mix_backward", mutates_args=())
    def _mix_backward_op(dY: torch.Tensor, X: torch.Tensor, Y: torch.Tensor, wa: Optional[torch.Tensor],
                         wb: Optional[torch.Tensor], g: Optional[torch.Tensor], u: Optional[torch.Tensor],
                         spec: str, n: int, batch: int, heads: int, seed: int, threads: int,
                         needs: List[bool]) -> List[torch.Tensor]:
        return _backward_impl(dY, X, Y, wa, wb, g, u, spec, n, batch, heads, seed, threads, needs)

    @_mix_backward_op.register_fake
    def _mix_backward_fake(dY, X, Y, wa, wb, g, u, spec, n, batch, heads, seed, threads, needs):
        ins = (X, wa, wb, g, u)
        return [t.new_empty(t.shape) if (nd and t is not None) else X.new_empty(0) for t, nd in zip(ins, needs)]

    def _mix_setup(ctx, inputs, output):
        X, wa, wb, g, u, spec, n, batch, heads, seed, threads = inputs
        ctx.save_for_backward(X, output, wa, wb, g, u)
        ctx.args = (spec, n, batch, heads, seed, threads)

    def _mix_grad(ctx, dY):
        X, Y, wa, wb, g, u = ctx.saved_tensors
        needs = [bool(b) for b in ctx.needs_input_grad[:5]]
        grads = _mix_backward_op(dY, X, Y, wa, wb, g, u, *ctx.args, needs)
        return _grads_out(grads, needs) + (None,) * 6

    def _refuse_double(ctx, *grads):
        raise RuntimeError(_DOUBLE_BACKWARD)

    torch.library.register_autograd("mixgraph::mix", _mix_grad, setup_context=_mix_setup)
    torch.library.register_autograd("mixgraph::mix_backward", _refuse_double,
                                    setup_context=lambda ctx, inputs, output: None)

    def _apply(X, wa, wb, g, u, spec, n, batch, heads, seed, threads):
        return _mix_op(X, wa, wb, g, u, spec, n, batch, heads, seed, threads)

    CUSTOM_OP = True

else:  # older torch: the same two halves as autograd Functions

    class _MixBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, dY, X, Y, wa, wb, g, u, args, needs):
            return tuple(_backward_impl(dY, X, Y, wa, wb, g, u, *args, needs))

        @staticmethod
        def backward(ctx, *grads):
            raise RuntimeError(_DOUBLE_BACKWARD)

    class _Mix(torch.autograd.Function):
        @staticmethod
        def forward(ctx, X, wa, wb, g, u, spec, n, batch, heads, seed, threads):
            Y = _forward_impl(X, wa, wb, g, u, spec, n, batch, heads, seed, threads)
            ctx.save_for_backward(X, Y, wa, wb, g, u)
            ctx.args = (spec, n, batch, heads, seed, threads)
            return Y

        @staticmethod
        def backward(ctx, dY):
            X, Y, wa, wb, g, u = ctx.saved_tensors
            needs = [bool(b) for b in ctx.needs_input_grad[:5]]
            grads = _MixBackward.apply(dY, X, Y, wa, wb, g, u, ctx.args, needs)
            return _grads_out(grads, needs) + (None,) * 6

    def _apply(X, wa, wb, g, u, spec, n, batch, heads, seed, threads):
        return _Mix.apply(X, wa, wb, g, u, spec, n, batch, heads, seed, threads)

    CUSTOM_OP = False


# ---- the public functions ----


def _check_tensor(t, name: str) -> None:
    if not isinstance(t, torch.Tensor):
        raise UsageError(f"{name} must be a torch.Tensor (got {type(t).__name__})")
    if t.dtype not in _COMPUTE:
        raise UsageError(f"{name} must be float64, float32, bfloat16 or float16 (got {t.dtype})")
    if t.device.type not in ("cpu", "cuda"):
        raise UsageError(f"{name} is on {t.device}: mixgraph.torch.mix runs on the CPU and on CUDA devices; "
                         "move the tensors with .cpu()")


def _mix(spec: str, n: int, X: torch.Tensor, wa, wb, g, u, heads: Optional[int], seed: int,
         threads: int) -> torch.Tensor:
    _check_tensor(X, "X")
    if X.dim() not in (2, 3, 4):
        raise UsageError(f"X must be (T, d), (batch, T, d) or (batch, T, heads, d_head); got shape {tuple(X.shape)}")
    shape = X.shape
    if X.dim() == 4:
        if heads is not None and heads != shape[2]:
            raise UsageError(f"heads = {heads} but X is (batch, T, heads, d_head) with {shape[2]} heads")
        heads = int(shape[2])
    T = shape[0] if X.dim() == 2 else shape[1]
    batch = 1 if X.dim() == 2 else int(shape[0])
    d = int(shape[-1]) if X.dim() < 4 else int(shape[2] * shape[3])
    if T != n:
        raise UsageError(f"X has T = {T} positions but the pattern has n = {n}")
    if batch == 0 or d == 0:
        raise UsageError(f"X must have at least one sequence and one column (shape {tuple(shape)})")
    gated = g is not None or u is not None
    for t, name in ((wa, "weights_a"), (wb, "weights_b")):
        if t is not None:
            _check_tensor(t, name)
            if t.dim() != 2:
                raise UsageError(f"{name} must be 2-D: (heads, K) per offset or (heads, nnz) per position "
                                 f"(got shape {tuple(t.shape)})")
    for t, name in ((g, "gates"), (u, "input_gates")):
        if t is not None:
            _check_tensor(t, name)
            if t.shape != shape:
                raise UsageError(f"{name} must have X's shape {tuple(shape)} (got {tuple(t.shape)})")
    if gated:
        if heads is not None and heads not in (1, d) and X.dim() != 4:
            raise UsageError(f"gates make every column its own head: heads must be d = {d} (or left out)")
        heads = d
    elif heads is None:
        heads = int(wa.shape[0]) if wa is not None else int(wb.shape[0]) if wb is not None else 1
    if heads < 1 or d % heads != 0:
        raise UsageError(f"d = {d} columns are not a multiple of heads = {heads}")
    ct = _COMPUTE[X.dtype]
    if X.is_cuda:
        _cuda_check(spec, n, X, wa, wb, g, u, heads)
    else:
        for t, name in ((wa, "weights_a"), (wb, "weights_b"), (g, "gates"), (u, "input_gates")):
            if t is not None and t.device.type != "cpu":
                raise UsageError(f"{name} is on {t.device} but X is on the CPU: give every tensor on X's device")

    def prep(t):  # compute dtype, (batch * T, d) rows, contiguous: differentiable steps
        return None if t is None else t.to(ct).reshape(batch * n, d).contiguous()

    def prep_w(t):
        return None if t is None else t.to(ct).contiguous()

    Y = _apply(prep(X), prep_w(wa), prep_w(wb), prep(g), prep(u), spec, n, batch, heads, int(seed), int(threads))
    return Y.reshape(shape).to(X.dtype)


def mix(pattern: Union[Pattern, str], X: torch.Tensor, weights_a: Optional[torch.Tensor] = None,
        weights_b: Optional[torch.Tensor] = None, gates: Optional[torch.Tensor] = None,
        input_gates: Optional[torch.Tensor] = None, *, heads: Optional[int] = None, seed: int = 1,
        threads: int = 0) -> torch.Tensor:
    """Y = (I - B)^{-1} A X along the T axis, differentiable in X and in every weight tensor given.

    pattern: a mixgraph.Pattern on n = T positions (or a spec string; n is then X's T). X: (T, d),
    (batch, T, d) or (batch, T, heads, d_head), float64 / float32 (computed in that precision) or bfloat16 /
    float16 (computed in float32 and cast back), on the CPU or, for gates and for weights_a and weights_b
    both given, on a CUDA device (every tensor on X's device). One call solves the whole batch; every
    sequence uses the same weights (gates: its own rows). Head h owns columns h*d/heads .. (h+1)*d/heads - 1.

    The weights have mixgraph.solve's layouts (docs/formats.md, "Weight files"): weights_a / weights_b
    (heads, K) one coefficient per offset (translation-invariant patterns; offsets ascending, A's starting
    with 0) or (heads, nnz) per position (the reads in CSR order); a matrix left out is mixgraph.solve's
    seeded one (``seed``), a constant. gates / input_gates (``ssm``-like patterns: B reads i - 1, A the
    diagonal): X's shape, y[t] = gates[t] * y[t-1] + input_gates[t] * x[t] per channel (input_gates default
    1; gates[..., 0, :] is not used); they may be computed from X (data-dependent gates). Every column is
    then its own head. heads: the number of heads (default: the weights' rows, d with gates, 1 otherwise;
    X's third axis when X is 4-D).

    The gradient of each weight has the weight's own layout and dtype. Work: O(batch d (nnz_A + nnz_B))
    forward and about twice that backward; memory O(batch n d) (Y is kept for the backward). threads: OpenMP
    threads (0: all cores); the results do not depend on it. Raises mixgraph.UsageError (a ValueError) for
    shapes, dtypes or devices it does not take, before any work.
    """
    n = pattern.n if isinstance(pattern, Pattern) else (X.shape[-3] if X.dim() == 4 else X.shape[-2])
    spec, n = _pattern_key(pattern, n)
    return _mix(spec, n, X, weights_a, weights_b, gates, input_gates, heads, seed, threads)


_LAYOUTS: Dict[Tuple[str, int], dict] = {}


def _layout(spec: str, n: int) -> dict:
    """_core._mix_layout of the pattern, kept per (spec, n) (read-only: callers do not change it)."""
    lay = _LAYOUTS.get((spec, n))
    if lay is None:
        lay = _core._mix_layout(_pattern(spec, n))
        if len(_LAYOUTS) >= _MAX_PATTERNS:
            del _LAYOUTS[next(iter(_LAYOUTS))]
        _LAYOUTS[(spec, n)] = lay
    return lay


class SparseMixer(torch.nn.Module):
    """A token-mixing layer Y = (I - B)^{-1} A X on a mixgraph pattern, with learnable weights.

    SparseMixer(pattern, d, heads=1, weights="offset", rho=0.9, threads=0, dtype=torch.float32)

    pattern: a mixgraph.Pattern (its n is the sequence length T the layer takes). Input (T, d) or
    (batch, T, d); output of the same shape. weights:

    - ``"offset"``: parameters ``weight_a`` (heads, K_A) and ``weight_b`` (heads, K_B), one coefficient per
      offset and head (translation-invariant patterns);
    - ``"position"``: ``weight_a`` (heads, nnz_A) and ``weight_b`` (heads, nnz_B), one per entry and head;
    - ``"gates"``: data-dependent per-channel gates for ``ssm``-like patterns (HGRN style): a
      ``torch.nn.Linear(d, d)`` ``gate_proj``, gates = rho * sigmoid(gate_proj(x_t)), input gates
      1 - gates, so y_t = g_t y_{t-1} + (1 - g_t) x_t per channel (heads is ignored: every channel is its
      own head).

    Initialisation (torch's generator: ``torch.manual_seed`` makes it repeatable): every coefficient starts
    uniform in [-1, 1], then each row of B is scaled so that the sum of |beta_ij| over the row is rho < 1,
    and each row of A so that the sum of |alpha_ij| is 1. Then ||B||_inf <= rho, so
    ||(I - B)^{-1}||_inf <= 1 / (1 - rho) (a Neumann series), and ||Y||_inf <= ||X||_inf / (1 - rho): the
    solve is well conditioned at any length. With gates, |beta| = g_t < rho by construction, at every step
    of training. Training may move the other two layouts' weights past rho; the solve stays defined (I - B
    is unit triangular) but its conditioning is the model's to keep.
    """

    def __init__(self, pattern: Pattern, d: int, heads: int = 1, weights: str = "offset", *, rho: float = 0.9,
                 threads: int = 0, dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        if not isinstance(pattern, Pattern):
            raise UsageError(f"pattern must be a mixgraph.Pattern (got {type(pattern).__name__})")
        if not 0 <= rho < 1:
            raise UsageError(f"rho must be in [0, 1) (got {rho})")
        if d < 1 or heads < 1 or d % heads != 0:
            raise UsageError(f"d = {d} must be a positive multiple of heads = {heads}")
        self.spec, self.n = _pattern_key(pattern, pattern.n)
        self.d, self.heads, self.kind, self.rho, self.threads = d, heads, weights, rho, threads
        lay = _layout(self.spec, self.n)
        if weights == "offset":
            if not lay["implicit"]:
                raise UsageError(f"weights='offset' needs a translation-invariant pattern; '{self.spec}' is "
                                 "not one (use weights='position')")
            self.weight_a = torch.nn.Parameter(self._per_offset(len(lay["a_offsets"]), 1.0, dtype))
            self.weight_b = torch.nn.Parameter(self._per_offset(len(lay["b_offsets"]), rho, dtype))
        elif weights == "position":
            rows_a, rows_b = self._rows(pattern, lay)
            self.weight_a = torch.nn.Parameter(self._per_position(rows_a, 1.0, dtype))
            self.weight_b = torch.nn.Parameter(self._per_position(rows_b, rho, dtype))
        elif weights == "gates":
            if not (lay["implicit"] and lay["b_offsets"] == [1] and lay["a_offsets"] == [0]):
                raise UsageError(f"weights='gates' needs a first-order pattern with a diagonal A (ssm); "
                                 f"'{self.spec}' is not one")
            self.gate_proj = torch.nn.Linear(d, d, dtype=dtype)
        else:
            raise UsageError(f"weights must be 'offset', 'position' or 'gates' (got {weights!r})")

    def _per_offset(self, K: int, total: float, dtype) -> torch.Tensor:
        w = torch.rand(self.heads, K, dtype=torch.float64) * 2 - 1
        norm = w.abs().sum(dim=1, keepdim=True).clamp_min(1e-300)
        return (w * (total / norm)).to(dtype)

    def _per_position(self, rows: torch.Tensor, total: float, dtype) -> torch.Tensor:
        w = torch.rand(self.heads, rows.numel(), dtype=torch.float64) * 2 - 1
        sums = torch.zeros(self.heads, self.n, dtype=torch.float64).index_add_(1, rows, w.abs())
        return (w * (total / sums[:, rows].clamp_min(1e-300))).to(dtype)

    def _rows(self, pattern: Pattern, lay: dict) -> Tuple[torch.Tensor, torch.Tensor]:
        """The reader row of each entry, in CSR order, for A and for B."""
        if lay["implicit"]:
            i = torch.arange(self.n)

            def rows(offs: Sequence[int]) -> torch.Tensor:
                counts = sum((i >= o).long() for o in offs) if offs else torch.zeros(self.n, dtype=torch.long)
                return torch.repeat_interleave(i, counts)

            return rows(lay["a_offsets"]), rows(lay["b_offsets"])
        csr = pattern._weights(1)

        def rows_of(m) -> torch.Tensor:
            ptr = torch.as_tensor(m["ptr"].astype("int64"))
            return torch.repeat_interleave(torch.arange(self.n), ptr[1:] - ptr[:-1])

        return rows_of(csr["A"]), rows_of(csr["B"])

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        if self.kind == "gates":
            g = self.rho * torch.sigmoid(self.gate_proj(X))
            return _mix(self.spec, self.n, X, None, None, g, 1 - g, None, 1, self.threads)
        return _mix(self.spec, self.n, X, self.weight_a, self.weight_b, None, None, self.heads, 1, self.threads)

    def extra_repr(self) -> str:
        return (f"pattern='{self.spec}', n={self.n}, d={self.d}, heads={self.heads}, weights='{self.kind}', "
                f"rho={self.rho}")

