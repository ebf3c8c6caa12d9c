"""mixgraph.torch on CUDA: the weight families of Y = (I - B)^{-1} A X solved on the device (private).

Batch as columns. Every sequence of a batch uses the same weights, so a batch (batch, T, d) is one solve of
T rows and batch * d columns: X is permuted to (T, batch, d) (one copy), column b d + c is sequence b's
column c, and head h of sequence b is head b heads + h of the solve, whose weight tables are the user's
repeated batch times on the device. One solve forward, one adjoint solve backward, no loop over the batch.

The adjoint. Backward needs Z = (I - B)^{-T} dY. With R the reversal of the rows, R Z = (I - R B^T R)^{-1}
R dY, and R B^T R is strictly lower again (entry (i, j) of B becomes (n-1-j, n-1-i)): the same forward
solver on the reversed sequence (the flip folded into the permuting copy). For translation-invariant
patterns R B^T R = B (Toeplitz), so the per-offset tables serve as they are; for explicit structures the
transposed structure and the permutation of its entries are built once per pattern on the host (cached),
and the weights are gathered into that order on the device. One solve gives Z (A = I); dX = A^T Z. For
explicit structures dX_j = sum over A's entries (i, j) of a Z_i is a gather and an index_add on the device
(cheaper than a second solve with A' = R A^T R: it reads Z once per entry of A, no solve's sequential
chunks); for per-offset weights dX_i = sum_k a_k Z_{i + o_k} is one shifted-sum kernel (gpu_shift_add.hpp)
that reads the reversed Z the adjoint solve wrote as it is and the table on the device, skipping zero
entries (A = a0 I reads Z once); past its limit of offsets (dense patterns), R A^T R = A (Toeplitz) and
R dX = A (R Z) is one pass of the solver with B empty. The
weight gradients are per-entry (or per-offset) dot products dA_e = <Z_row, X_col>, dB_e = <Z_row, Y_col>
summed over the batch and the head's columns.

Everything is queued on torch's current stream; no value goes to the host, and nothing waits for the
device (the device solve is called with wait = False: gpu_solve.hpp, SolveOptions::wait).
"""
from typing import Dict, List, Optional, Tuple

import numpy as np
import torch

from . import _core

# ---- the structures, once per pattern ----

_MAX_STRUCTS = 64
_STRUCTS: Dict[Tuple[str, int], dict] = {}


def _csr_of_offsets(offs: List[int], n: int):
    """The CSR (ptr, idx) of an implicit matrix, columns ascending in each row (offsets descending), and the
    offset index of each entry (weights per position of an implicit pattern are in this order)."""
    rows, cols, ks = [], [], []
    for k, o in enumerate(offs):
        if o < n:
            i = np.arange(o, n, dtype=np.int64)
            rows.append(i)
            cols.append(i - o)
            ks.append(np.full(i.size, k, dtype=np.int64))
    if not rows:
        return np.zeros(n + 1, np.uint64), np.zeros(0, np.uint32), np.zeros(0, np.int64)
    r, c, k = np.concatenate(rows), np.concatenate(cols), np.concatenate(ks)
    order = np.lexsort((c, r))
    return _ptr_of_rows(r[order], n), c[order].astype(np.uint32), k[order]


def _ptr_of_rows(rows: np.ndarray, n: int) -> np.ndarray:
    ptr = np.zeros(n + 1, dtype=np.uint64)
    ptr[1:] = np.cumsum(np.bincount(rows, minlength=n))
    return ptr


def _rows_of_ptr(ptr: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(ptr.size - 1, dtype=np.int64), np.diff(ptr.astype(np.int64)))


def reversed_transpose(ptr: np.ndarray, idx: np.ndarray, n: int):
    """R M^T R of a strictly lower CSR matrix M (R: the reversal of n rows): entry e = (i, j) goes to
    (n-1-j, n-1-i). Returns (ptr, idx, perm): the new CSR (columns ascending in each row) and, for each of
    its entries, the index of the entry of M it came from."""
    rows = _rows_of_ptr(ptr)
    new_r = n - 1 - idx.astype(np.int64)
    new_c = n - 1 - rows
    perm = np.lexsort((new_c, new_r))
    return _ptr_of_rows(new_r[perm], n), new_c[perm].astype(np.uint32), perm.astype(np.int64)


class _Structure(dict):
    """The host arrays of a pattern's CUDA weight families. Always there: the offsets (a_offs, b_offs),
    the identity's CSR (eye_ptr, eye_idx) and the device copies (on). Made on first use and then kept
    (the per-offset path of a long translation-invariant pattern never needs them): for A and B the CSR
    (a_ptr, a_idx, b_ptr, b_idx) in the order of weights per position, each entry's row, column and
    offset index (a_rows, a_cols, a_k, ...; the offset index None for explicit patterns), and the adjoint
    structure of B (bt_ptr, bt_idx, reversed_transpose) with its permutation (bt_perm)."""

    def __init__(self, n: int, lay: dict, csr_of_pattern):
        super().__init__(a_offs=np.asarray(lay["a_offsets"], dtype=np.uint32),
                         b_offs=np.asarray(lay["b_offsets"], dtype=np.uint32),
                         eye_ptr=np.arange(n + 1, dtype=np.uint64), eye_idx=np.arange(n, dtype=np.uint32), on={})
        self._n, self._lay, self._csr_of_pattern = n, lay, csr_of_pattern

    def __missing__(self, key):
        if "a_ptr" in self or key not in _CSR_KEYS:
            raise KeyError(key)
        n, lay = self._n, self._lay
        if lay["implicit"]:
            a_ptr, a_idx, a_k = _csr_of_offsets(lay["a_offsets"], n)
            b_ptr, b_idx, b_k = _csr_of_offsets(lay["b_offsets"], n)
        else:
            c = self._csr_of_pattern()
            a_ptr, a_idx = c["a_ptr"].astype(np.uint64), c["a_idx"].astype(np.uint32)
            b_ptr, b_idx = c["b_ptr"].astype(np.uint64), c["b_idx"].astype(np.uint32)
            a_k = b_k = None
        bt_ptr, bt_idx, bt_perm = reversed_transpose(b_ptr, b_idx, n)
        self.update(a_ptr=a_ptr, a_idx=a_idx, b_ptr=b_ptr, b_idx=b_idx, bt_ptr=bt_ptr, bt_idx=bt_idx,
                    a_rows=torch.from_numpy(_rows_of_ptr(a_ptr)), a_cols=torch.from_numpy(a_idx.astype(np.int64)),
                    b_rows=torch.from_numpy(_rows_of_ptr(b_ptr)), b_cols=torch.from_numpy(b_idx.astype(np.int64)),
                    bt_perm=torch.from_numpy(bt_perm), a_k=None if a_k is None else torch.from_numpy(a_k),
                    b_k=None if b_k is None else torch.from_numpy(b_k))
        return self[key]


_CSR_KEYS = frozenset(("a_ptr", "a_idx", "b_ptr", "b_idx", "bt_ptr", "bt_idx", "a_rows", "a_cols", "b_rows",
                       "b_cols", "bt_perm", "a_k", "b_k"))


def structure(spec: str, n: int, lay: dict, csr_of_pattern) -> dict:
    """The host arrays of the CUDA weight families of a pattern (_Structure), cached per (spec, n)."""
    key = (spec, n)
    s = _STRUCTS.get(key)
    if s is None:
        s = _Structure(n, lay, csr_of_pattern)
        if len(_STRUCTS) >= _MAX_STRUCTS:
            del _STRUCTS[next(iter(_STRUCTS))]
        _STRUCTS[key] = s
    return s


def on_device(s: dict, name: str, device) -> torch.Tensor:
    """s[name] (an index tensor) on `device`, copied there once."""
    key = (name, str(device))
    t = s["on"].get(key)
    if t is None:
        t = s[name].to(device)
        s["on"][key] = t
    return t


# ---- batch as columns ----


def to_columns(t: torch.Tensor, batch: int, n: int, d: int, reverse: bool = False) -> torch.Tensor:
    """(batch * n, d) rows -> (n, batch * d) columns, contiguous (column b d + c: sequence b's column c);
    the rows reversed when `reverse`."""
    v = t.view(batch, n, d).transpose(0, 1)
    if reverse:
        v = v.flip(0)
    return v.reshape(n, batch * d).contiguous()


def from_columns(t: torch.Tensor, batch: int, n: int, d: int, reverse: bool = False) -> torch.Tensor:
    """The inverse of to_columns: (n, batch * d) -> (batch * n, d), contiguous."""
    v = t.view(n, batch, d)
    if reverse:
        v = v.flip(0)
    return v.transpose(0, 1).reshape(batch * n, d).contiguous()


def device_solve(Xc: torch.Tensor, heads: int, a: tuple, b: tuple, stream_of) -> torch.Tensor:
    """Yc = (I - B)^{-1} A Xc on Xc's device: Xc (n, D) contiguous, `heads` heads of D / heads columns; a, b
    ('offset', offsets, table (heads, K)) or ('csr', ptr, idx, values (heads, nnz)), tables on the device."""
    n, D = Xc.shape
    Y = torch.empty_like(Xc)

    def addr(m):  # the table's device address (the kernels read it as a contiguous array of X's dtype)
        tab = m[-1]
        if not (tab.is_contiguous() and tab.dtype == Xc.dtype and tab.device == Xc.device):
            raise RuntimeError("internal error: a weight table is not a contiguous array of X's dtype and device")
        return m[:-1] + (tab.data_ptr(),)

    stream_of(Xc, lambda st: _core._solve_device(n, D, heads, Xc.dtype == torch.float64, Xc.data_ptr(),
                                                 Y.data_ptr(), addr(a), addr(b), st, Xc.device.index, False))
    return Y


def reference_solve(Xc: torch.Tensor, heads: int, a: tuple, b: tuple, stream_of=None) -> torch.Tensor:
    """device_solve's arithmetic with dense torch matrices, per head (any device; for tests)."""
    n, D = Xc.shape
    dh = D // heads

    def dense(m, lower_ok):
        M = Xc.new_zeros(heads, n, n)
        if m[0] == "offset":
            for k, o in enumerate(m[1].tolist()):
                if o < n:
                    i = torch.arange(o, n)
                    M[:, i, i - o] = m[2][:, k:k + 1].to(M.dtype).expand(heads, i.numel())
        else:
            rows = torch.from_numpy(_rows_of_ptr(m[1]))
            cols = torch.from_numpy(m[2].astype(np.int64))
            assert bool((cols < rows).all()) or (lower_ok and bool((cols <= rows).all()))
            M[:, rows, cols] = m[3].to(M.dtype)
        return M

    A, B = dense(a, True), dense(b, False)
    eye = torch.eye(n, dtype=Xc.dtype, device=Xc.device)
    out = torch.empty_like(Xc)
    for h in range(heads):
        cols = slice(h * dh, (h + 1) * dh)
        out[:, cols] = torch.linalg.solve_triangular(eye - B[h], A[h] @ Xc[:, cols], upper=False)
    return out


# ---- the two families of weight tables ----


def repeat(w: torch.Tensor, batch: int) -> torch.Tensor:
    """(heads, K) -> (batch * heads, K): the solve's heads are (sequence, head) pairs."""
    return w.repeat(batch, 1).contiguous() if batch > 1 else w.contiguous()


def entry_dots(Zc: torch.Tensor, Vc: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor, batch: int,
               heads: int, stream_of=None) -> torch.Tensor:
    """(heads, nnz) float64: for each entry e and head h, the sum over the batch and the head's columns of
    Z[rows_e] * V[cols_e] (Zc, Vc contiguous columns (n, batch d); rows, cols int64 on their device). On CUDA
    one kernel (gpu_entry_dots.hpp: products and sums in double); elsewhere torch ops in float64, in blocks
    of entries so that the temporary stays below about 32 MB."""
    nnz = rows.numel()
    n, D = Zc.shape
    if Zc.is_cuda and stream_of is not None:
        out = torch.empty(heads, nnz, dtype=torch.float64, device=Zc.device)
        if nnz:
            stream_of(Zc, lambda st: _core._entry_dots(n, batch, heads, D // (batch * heads), nnz,
                                                       Zc.dtype == torch.float64, Zc.data_ptr(), Vc.data_ptr(),
                                                       rows.data_ptr(), cols.data_ptr(), out.data_ptr(), st))
        return out
    out = torch.empty(heads, nnz, dtype=torch.float64, device=Zc.device)
    step = max(1, (1 << 22) // max(D, 1))
    for e0 in range(0, nnz, step):
        e1 = min(nnz, e0 + step)
        prod = Zc.index_select(0, rows[e0:e1]).double() * Vc.index_select(0, cols[e0:e1]).double()
        out[:, e0:e1] = prod.view(e1 - e0, batch, heads, D // (batch * heads)).sum(dim=(1, 3)).t()
    return out


def offset_forward(X, wa, wb, s, n, batch, heads, solve, stream_of):
    d = X.shape[1]
    Xc = to_columns(X, batch, n, d)
    a = ("offset", s["a_offs"], repeat(wa, batch))
    b = ("offset", s["b_offs"], repeat(wb, batch))
    return from_columns(solve(Xc, batch * heads, a, b, stream_of), batch, n, d)


def offset_backward(dY, X, Y, wa, wb, s, n, batch, heads, needs, solve, stream_of, shift_dots, shift_add):
    """The per-offset family's gradients: one adjoint solve (R B^T R = B) leaving R Z, then dX = A^T Z by the
    shifted-sum kernel and the weight gradients by shift_dots ((1, n, D) arrays, batch * heads heads; summed
    over the batch), both reading R Z as it is (no flip of Z)."""
    d = X.shape[1]
    D, H = batch * d, batch * heads
    dYr = to_columns(dY, batch, n, d, reverse=True)
    ones = torch.ones(H, 1, dtype=X.dtype, device=X.device)
    Zr = solve(dYr, H, ("offset", np.zeros(1, np.uint32), ones), ("offset", s["b_offs"], repeat(wb, batch)),
               stream_of)  # R Z: the rows of Z in reverse order, (n, D)
    a_offs, b_offs = s["a_offs"].tolist(), s["b_offs"].tolist()
    dX = dA = dB = None
    if needs[0]:
        if len(a_offs) <= _core._SHIFT_ADD_MAX_OFFSETS:
            # dX_i = sum_k a_k Z_{i + o_k}: one kernel over R Z, zero table entries skipped
            dX = from_columns(shift_add(Zr, repeat(wa, batch), a_offs, H, True), batch, n, d)
        else:
            # A is Toeplitz, so R A^T R = A and R dX = A (R Z): one pass of the solver with B empty (the A
            # gather of a forward solve), not one shifted add per offset (n of them for attention)
            none = ("offset", np.zeros(0, np.uint32), torch.zeros(H, 0, dtype=X.dtype, device=X.device))
            dXr = solve(Zr, H, ("offset", s["a_offs"], repeat(wa, batch)), none, stream_of)
            dX = from_columns(dXr, batch, n, d, reverse=True)

    def dots(V, offs, which, w):
        """Per head and offset: sum over the batch, the head's columns and i of Z_i V_{i - o}. Up to the
        shift_dots kernel's limit of offsets in one pass of it; past it (dense patterns: n - 1 offsets) the
        per-entry kernel over the implicit structure, then summed per offset."""
        Vc = to_columns(V, batch, n, d)
        if len(offs) <= _core._SHIFT_DOTS_MAX_OFFSETS:
            g = shift_dots(Zr.view(1, n, D), Vc.view(1, n, D), offs, H, z_reversed=True)
            return g.view(batch, heads, -1).sum(dim=0).to(w.dtype)
        k = on_device(s, which + "_k", X.device)
        g = entry_dots(Zr.flip(0), Vc, on_device(s, which + "_rows", X.device),
                       on_device(s, which + "_cols", X.device), batch, heads, stream_of)
        return _reduce(g, w, k, True)

    if needs[1]:
        dA = dots(X, a_offs, "a", wa)
    if needs[2]:
        dB = dots(Y, b_offs, "b", wb)
    return [dX, dA, dB, None, None]


def reference_shift_add(Z: torch.Tensor, tab: torch.Tensor, offs: List[int], heads: int,
                        z_reversed: bool) -> torch.Tensor:
    """The shifted-sum kernel's arithmetic in torch ops (any device; for tests): out (n, D), out_i = sum_k
    tab[h, k] Z_{i + o_k} over the columns of head h (Z's rows in reverse order when z_reversed)."""
    n, D = Z.shape
    if z_reversed:
        Z = Z.flip(0)
    out = torch.zeros_like(Z)
    w = tab.to(Z.dtype).repeat_interleave(D // heads, dim=0)  # (D, K): each column's head's row
    for k, o in enumerate(offs):
        if o < n:
            out[:n - o] += Z[o:] * w[:, k]
    return out


def as_position(w: torch.Tensor, k: Optional[torch.Tensor], per_offset: bool) -> torch.Tensor:
    """A weight table in the order of weights per position: per offset (heads, K) expanded through each
    entry's offset index k (implicit patterns), per position as it is."""
    return w.index_select(1, k) if per_offset else w


def position_forward(X, wa, wb, s, n, batch, heads, kinds, solve, stream_of):
    d = X.shape[1]
    dev = X.device
    va = as_position(wa, None if s["a_k"] is None else on_device(s, "a_k", dev), kinds[0])
    vb = as_position(wb, None if s["b_k"] is None else on_device(s, "b_k", dev), kinds[1])
    Xc = to_columns(X, batch, n, d)
    a = ("csr", s["a_ptr"], s["a_idx"], repeat(va, batch))
    b = ("csr", s["b_ptr"], s["b_idx"], repeat(vb, batch))
    return from_columns(solve(Xc, batch * heads, a, b, stream_of), batch, n, d)


def _reduce(g: torch.Tensor, w: torch.Tensor, k: Optional[torch.Tensor], per_offset: bool) -> torch.Tensor:
    """A per-position gradient (heads, nnz) float64 into w's layout (per offset: summed over each offset's
    entries) and dtype."""
    if per_offset:
        g = torch.zeros(w.shape, dtype=g.dtype, device=g.device).index_add_(1, k, g)
    return g.to(w.dtype)


def position_backward(dY, X, Y, wa, wb, s, n, batch, heads, kinds, needs, solve, stream_of):
    """The position family's gradients: one adjoint solve with the structure R B^T R (values gathered by the
    cached permutation), dX = A^T Z by a gather and an index_add, dA / dB per entry (entry_dots)."""
    d = X.shape[1]
    D, H = batch * d, batch * heads
    dev = X.device
    a_k = None if s["a_k"] is None else on_device(s, "a_k", dev)
    b_k = None if s["b_k"] is None else on_device(s, "b_k", dev)
    va, vb = as_position(wa, a_k, kinds[0]), as_position(wb, b_k, kinds[1])
    dYr = to_columns(dY, batch, n, d, reverse=True)
    ones = torch.ones(H, n, dtype=X.dtype, device=dev)
    bt = repeat(vb.index_select(1, on_device(s, "bt_perm", dev)), batch)
    Zr = solve(dYr, H, ("csr", s["eye_ptr"], s["eye_idx"], ones), ("csr", s["bt_ptr"], s["bt_idx"], bt), stream_of)
    Zc = Zr.flip(0)  # natural order (n, D)
    a_rows, a_cols = on_device(s, "a_rows", dev), on_device(s, "a_cols", dev)
    dX = dA = dB = None
    if needs[0]:  # dX[j] = sum over A's entries e = (i, j) of a_e Z[i], per head
        nnz = a_rows.numel()
        dXc = torch.zeros_like(Zc)
        if nnz:
            coef = va.t().to(Zc.dtype).reshape(nnz, 1, heads, 1)
            src = (Zc.index_select(0, a_rows).view(nnz, batch, heads, d // heads) * coef).view(nnz, D)
            dXc.index_add_(0, a_cols, src)
        dX = from_columns(dXc, batch, n, d)
    if needs[1]:
        g = entry_dots(Zc, to_columns(X, batch, n, d), a_rows, a_cols, batch, heads, stream_of)
        dA = _reduce(g, wa, a_k, kinds[0])
    if needs[2]:
        g = entry_dots(Zc, to_columns(Y, batch, n, d), on_device(s, "b_rows", dev), on_device(s, "b_cols", dev),
                       batch, heads, stream_of)
        dB = _reduce(g, wb, b_k, kinds[1])
    return [dX, dA, dB, None, None]
