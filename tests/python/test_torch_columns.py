"""The CUDA path of mixgraph.torch.mix without a GPU: its logic (batch as columns, the weight tables repeated
per sequence, the adjoint structure R B^T R and its permutation, dX = A^T Z, the per-entry and per-offset
weight gradients) run on CPU tensors with the device solve replaced by a dense reference
(_torch_cuda.reference_solve), against the CPU op's forward and autograd gradients (fp64)."""
import zlib

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (python3-torch)")

import mixgraph  # noqa: E402
import mixgraph.torch as mt  # noqa: E402
from mixgraph import _torch_cuda as tc  # noqa: E402

F64 = torch.float64

PATTERNS = [("pow2", 24), ("sink:4|pow2", 20), ("pow2+cache", 24), ("sq1+cache", 30), ("window:3", 16),
            ("local:4", 18), ("attention", 9), ("ssm", 12), ("dense", 40)]  # dense: 39 offsets


def weights(p, heads, kind_a, kind_b, gen):
    lay = mt._layout(p.spec, p.n)

    def one(kind, offs, nnz, scale):  # rows of B sum to about scale / 2 in absolute value
        k, per_row = (len(offs), max(1, len(offs))) if kind == "offset" else (nnz, max(1.0, nnz / p.n))
        return (torch.rand(heads, k, generator=gen, dtype=F64) * 2 - 1) * scale / per_row

    return one(kind_a, lay["a_offsets"], lay["nnz_A"], 1.0), one(kind_b, lay["b_offsets"], lay["nnz_B"], 0.9)


def cases():
    out = []
    for spec, n in PATTERNS:
        implicit = mixgraph.torch._layout(spec, n)["implicit"]
        kinds = [("position", "position")] + ([("offset", "offset"), ("offset", "position")] if implicit else [])
        for ka, kb in kinds:
            for batch, heads in ((1, 1), (3, 2)):
                out.append((spec, n, ka, kb, batch, heads))
    return out


def loop_shift_dots(Z, V, offs, H, z_reversed=False):
    """shift_dots as a torch loop (the kernel needs a GPU)."""
    if z_reversed:
        Z = Z.flip(1)
    return torch.stack([mt._shift_dot(Z, V, o, H) for o in offs], dim=1).double() if offs else \
        Z.new_zeros(H, 0, dtype=F64)


def columns_op(p, X, wa, wb, heads):
    """mix's CUDA logic on the CPU: forward and backward with the reference solve, as the custom op runs
    them (rows (batch * n, d))."""
    batch, n, d = X.shape

    class Op(torch.autograd.Function):
        @staticmethod
        def forward(ctx, X, wa, wb):
            Y = mt._cuda_forward(X.reshape(batch * n, d), wa, wb, None, None, p.spec, n, batch, heads, 1,
                                 solve=tc.reference_solve)
            ctx.save_for_backward(X, Y, wa, wb)
            return Y.view(batch, n, d)

        @staticmethod
        def backward(ctx, dY):
            X, Y, wa, wb = ctx.saved_tensors

            g = mt._cuda_backward(dY.reshape(batch * n, d).contiguous(), X.reshape(batch * n, d), Y, wa, wb, None,
                                  None, p.spec, n, batch, heads, 1, [True, True, True, False, False],
                                  solve=tc.reference_solve, shift_dots=loop_shift_dots,
                                  shift_add=tc.reference_shift_add)
            return g[0].view(batch, n, d), g[1], g[2]

    return Op.apply(X, wa, wb)


@pytest.mark.parametrize("spec,n,ka,kb,batch,heads", cases(),
                         ids=[f"{c[0]}-{c[2]}-{c[3]}-b{c[4]}h{c[5]}" for c in cases()])
def test_columns_logic_matches_cpu_op(spec, n, ka, kb, batch, heads):
    p = mixgraph.Pattern(spec, n)
    gen = torch.Generator().manual_seed(zlib.crc32(f"{spec}{ka}{kb}{batch}".encode()))
    wa, wb = weights(p, heads, ka, kb, gen)
    d = 4 * heads
    X = torch.randn(batch, n, d, generator=gen, dtype=F64)
    R = torch.randn(batch, n, d, generator=gen, dtype=F64)
    ref = [t.clone().requires_grad_() for t in (X, wa, wb)]
    got = [t.clone().requires_grad_() for t in (X, wa, wb)]
    Yr = mt.mix(p, ref[0], ref[1], ref[2], heads=heads)
    Yg = columns_op(p, got[0], got[1], got[2], heads)
    assert torch.allclose(Yg, Yr, rtol=0, atol=1e-11 * max(1.0, Yr.abs().max().item()))
    gr = torch.autograd.grad((Yr * R).sum(), ref)
    gg = torch.autograd.grad((Yg * R).sum(), got)
    for a, b in zip(gr, gg):
        assert b.shape == a.shape and b.dtype == a.dtype
        scale = max(1.0, a.abs().max().item()) if a.numel() else 1.0
        assert torch.allclose(b, a, rtol=0, atol=1e-10 * scale)


def test_reversed_transpose_is_r_bt_r():
    rng = np.random.default_rng(4)
    n = 13
    M = np.tril(rng.random((n, n)) < 0.4, -1) * rng.standard_normal((n, n))
    rows, cols = np.nonzero(M)  # row-major: columns ascending in each row
    ptr = np.zeros(n + 1, np.uint64)
    ptr[1:] = np.cumsum(np.bincount(rows, minlength=n))
    vals = M[rows, cols]
    tptr, tidx, perm = tc.reversed_transpose(ptr, cols.astype(np.uint32), n)
    T = np.zeros((n, n))
    trows = np.repeat(np.arange(n), np.diff(tptr.astype(np.int64)))
    T[trows, tidx] = vals[perm]
    assert np.array_equal(T, M.T[::-1, ::-1])
    assert all(np.all(np.diff(tidx[tptr[i]:tptr[i + 1]].astype(np.int64)) > 0) for i in range(n))
    assert np.all(tidx < trows)


def test_columns_round_trip_and_reversal():
    X = torch.arange(2 * 5 * 3, dtype=F64).view(10, 3)
    C = tc.to_columns(X, 2, 5, 3)
    assert C.shape == (5, 6) and C.is_contiguous()
    assert torch.equal(C[:, 3:], X.view(2, 5, 3)[1])
    assert torch.equal(tc.from_columns(C, 2, 5, 3), X)
    Cr = tc.to_columns(X, 2, 5, 3, reverse=True)
    assert torch.equal(Cr, C.flip(0)) and torch.equal(tc.from_columns(Cr, 2, 5, 3, reverse=True), X)


def test_cuda_check_takes_the_families_and_refuses_seeded():
    p = mixgraph.Pattern("pow2+cache", 16)
    lay = mt._layout(p.spec, p.n)
    assert mt._weight_kinds(lay, torch.zeros(2, lay["nnz_A"]), torch.zeros(2, lay["nnz_B"]), 2) == (False, False)
    assert mt._weight_kinds(lay, None, torch.zeros(2, lay["nnz_B"]), 2) is None
    assert mt._weight_kinds(lay, torch.zeros(2, 1), torch.zeros(2, lay["nnz_B"]), 2) is None  # not implicit
    q = mixgraph.Pattern("pow2", 16)
    lay = mt._layout(q.spec, q.n)
    ka, kb = len(lay["a_offsets"]), len(lay["b_offsets"])
    assert mt._weight_kinds(lay, torch.zeros(1, ka), torch.zeros(1, kb), 1) == (True, True)
    assert mt._weight_kinds(lay, torch.zeros(1, ka), torch.zeros(1, lay["nnz_B"]), 1) == (True, False)
    assert mt._weight_kinds(lay, torch.zeros(1, ka + 1), torch.zeros(1, kb), 1) is None


def test_entry_dots_match_the_kernel_reference():
    """The torch form of the per-entry gradients against the CUDA kernel's CPU reference (same arguments)."""
    gen = torch.Generator().manual_seed(5)
    n, batch, heads, dh = 11, 3, 2, 4
    Z = torch.randn(n, batch * heads * dh, generator=gen, dtype=F64)
    V = torch.randn(n, batch * heads * dh, generator=gen, dtype=F64)
    rows = torch.randint(0, n, (40,), generator=gen)
    cols = torch.randint(0, n, (40,), generator=gen)
    got = tc.entry_dots(Z, V, rows, cols, batch, heads)
    for dt in (F64, torch.float32):
        z, v = Z.to(dt), V.to(dt)
        ref = torch.empty(heads, 40, dtype=F64)
        mixgraph._core._entry_dots_reference(n, batch, heads, dh, 40, dt == F64, z.data_ptr(), v.data_ptr(),
                                             rows.data_ptr(), cols.data_ptr(), ref.data_ptr(), 0)
        want = tc.entry_dots(z, v, rows, cols, batch, heads)
        assert torch.allclose(want, ref, rtol=0, atol=1e-12)
    assert torch.allclose(got, tc.entry_dots(Z, V, rows, cols, batch, heads), rtol=0, atol=0)
    bad = rows.clone()
    bad[3] = n
    with pytest.raises(RuntimeError, match="outside"):
        mixgraph._core._entry_dots_reference(n, batch, heads, dh, 40, True, Z.data_ptr(), V.data_ptr(),
                                             bad.data_ptr(), cols.data_ptr(), ref.data_ptr(), 0)


def test_device_solve_checks_the_structure_first():
    """_solve_device refuses a structure that is not lower (B: strictly) with a UsageError before it looks
    for a GPU; a good one then needs a GPU (GpuRequired here when none is usable)."""
    n = 4
    eye = ("csr", np.arange(n + 1, dtype=np.uint64), np.arange(n, dtype=np.uint32), 0)
    upper = ("csr", np.array([0, 1, 1, 1, 1], np.uint64), np.array([2], np.uint32), 0)
    diag = ("csr", np.arange(n + 1, dtype=np.uint64), np.arange(n, dtype=np.uint32), 0)
    for b in (upper, diag):  # B reads a later row, or its own
        with pytest.raises(mixgraph.UsageError, match="row 0 must read earlier columns"):
            mixgraph._core._solve_device(n, 2, 1, True, 0, 0, eye, b, 0, 0)
    with pytest.raises(mixgraph.UsageError, match="offsets must ascend"):
        mixgraph._core._solve_device(n, 2, 1, True, 0, 0, eye, ("offset", np.array([2, 1], np.uint32), 0), 0, 0)
    if not torch.cuda.is_available():
        with pytest.raises(mixgraph.GpuRequired):
            mixgraph._core._solve_device(n, 2, 1, True, 0, 0, eye, ("offset", np.array([1], np.uint32), 0), 0, 0)


@pytest.mark.parametrize("spec", ["pow2", "pow2+cache"])
def test_a_batch_is_one_solve_forward_and_one_backward(spec):
    """The batch as columns: one device solve of batch * heads heads forward; backward one adjoint solve (dX
    of per-offset weights by the shifted-sum kernel, not a second solve)."""
    p = mixgraph.Pattern(spec, 20)
    gen = torch.Generator().manual_seed(8)
    lay = mt._layout(spec, 20)
    kind = "offset" if lay["implicit"] else "position"
    wa, wb = weights(p, 2, kind, kind, gen)
    calls = []

    def counting(Xc, heads, a, b, stream_of=None):
        calls.append((tuple(Xc.shape), heads))
        return tc.reference_solve(Xc, heads, a, b)

    batch, n, d = 5, 20, 6
    X = torch.randn(batch * n, d, generator=gen, dtype=F64)
    Y = mt._cuda_forward(X, wa, wb, None, None, spec, n, batch, 2, 1, solve=counting)
    assert calls == [((n, batch * d), batch * 2)]
    mt._cuda_backward(torch.ones_like(Y), X, Y, wa, wb, None, None, spec, n, batch, 2, 1,
                      [True, True, True, False, False], solve=counting, shift_dots=loop_shift_dots,
                      shift_add=tc.reference_shift_add)
    assert calls[1:] == [calls[0]]


@pytest.mark.parametrize("z_reversed", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_shift_add_torch_reference_matches_the_cpp_reference(z_reversed, dtype):
    """The two references of the shifted-sum kernel (torch ops here, plain C++ beside the kernel) agree,
    zero table entries and offsets past n included; the GPU test compares the kernel with the C++ one."""
    gen = torch.Generator().manual_seed(3)
    n, heads, dh = 37, 3, 5
    offs = [0, 1, 2, 4, 8, 16, 32, 40]
    Z = torch.randn(n, heads * dh, generator=gen, dtype=dtype)
    tab = torch.randn(heads, len(offs), generator=gen, dtype=dtype)
    tab[1, 2] = tab[0, 0] = 0
    want = tc.reference_shift_add(Z, tab, offs, heads, z_reversed)
    got = torch.empty_like(Z)
    mixgraph._core._shift_add_reference(n, heads * dh, heads, dtype == F64, offs, z_reversed, tab.data_ptr(),
                                  Z.data_ptr(), got.data_ptr(), 0)
    torch.testing.assert_close(got, want, rtol=1e-12 if dtype == F64 else 1e-5, atol=1e-12 if dtype == F64 else 1e-5)
