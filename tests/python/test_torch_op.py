"""mixgraph.torch: the differentiable mixer against a dense torch reference built here from the documented
weight layouts (docs/formats.md, "Weight files"): per offset, per position, gates. The reference solves
(I - B) Y = A X with torch.linalg.solve_triangular and differentiates by torch's autograd; mixgraph's
backward is the adjoint solve. Also gradcheck, batches, dtypes, errors, a training loop whose loss falls,
torch.compile without graph breaks (torch >= 2.4) and the docs' training example."""

import doctest
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (python3-torch)")

import mixgraph  # noqa: E402
from mixgraph.torch import SparseMixer, mix  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
F64 = torch.float64


# ---- the reference: dense matrices from the pattern's reads and the layouts as documented ----


def reads(p):
    """(rows, cols) of A and of B in CSR order (reader i ascending, read j ascending), 0-indexed."""
    out = {"A": ([], []), "B": ([], [])}
    for i in range(1, p.n + 1):
        b, a = p.reads(i)
        for key, js in (("B", b), ("A", a)):
            out[key][0].extend([i - 1] * len(js))
            out[key][1].extend(int(j) - 1 for j in js)
    return {k: (torch.tensor(r, dtype=torch.long), torch.tensor(c, dtype=torch.long)) for k, (r, c) in out.items()}


def offsets(p, key):
    """A translation-invariant pattern's offsets of one matrix, ascending (i - j over its reads)."""
    r, c = reads(p)[key]
    return sorted(set((r - c).tolist()))


def values(p, key, w, h):
    """Head h's coefficient of every entry of matrix `key`, in CSR order, from (heads, K) or (heads, nnz)."""
    r, c = reads(p)[key]
    if w.shape[1] == r.numel():  # per position (also when K == nnz, as the loader reads it)
        return w[h]
    offs = offsets(p, key)
    k = torch.tensor([offs.index(o) for o in (r - c).tolist()], dtype=torch.long)
    return w[h, k]


def dense(p, key, vals, dtype):
    r, c = reads(p)[key]
    return torch.zeros(p.n, p.n, dtype=dtype).index_put((r, c), vals)


def seeded(p, key, seed):
    w = p._weights(seed)[key]
    ptr = torch.as_tensor(w["ptr"].astype(np.int64))
    rows = torch.repeat_interleave(torch.arange(p.n), ptr[1:] - ptr[:-1])
    m = torch.zeros(p.n, p.n, dtype=F64)
    m[rows, torch.as_tensor(w["idx"].astype(np.int64))] = torch.as_tensor(w["val"])
    return m


def reference(p, X, wa=None, wb=None, g=None, u=None, heads=None, seed=1):
    """Y = (I - B)^{-1} A X per head (or per channel with gates), differentiable; X (batch, n, d)."""
    n, d = p.n, X.shape[-1]
    eye = torch.eye(n, dtype=X.dtype)
    if g is not None or u is not None:  # per channel: B[i, i-1] = g[i], A[i, i] = u[i]
        Xc = X.transpose(1, 2).unsqueeze(-1)  # (batch, d, n, 1)
        B = torch.diag_embed(g[:, 1:, :].transpose(1, 2), offset=-1)
        AX = Xc if u is None else u.transpose(1, 2).unsqueeze(-1) * Xc
        Y = torch.linalg.solve_triangular(eye - B, AX, upper=False)
        return Y.squeeze(-1).transpose(1, 2)
    if heads is None:
        heads = wa.shape[0] if wa is not None else wb.shape[0] if wb is not None else 1
    dh = d // heads
    outs = []
    for h in range(heads):
        A = dense(p, "A", values(p, "A", wa, h), X.dtype) if wa is not None else seeded(p, "A", seed + h)
        B = dense(p, "B", values(p, "B", wb, h), X.dtype) if wb is not None else seeded(p, "B", seed + h)
        Xh = X[..., h * dh:(h + 1) * dh]
        outs.append(torch.linalg.solve_triangular(eye - B, A.to(X.dtype) @ Xh, upper=False))
    return torch.cat(outs, dim=-1)


def big(t):
    """max(|t|) and 1: the scale of an absolute tolerance (1 for an empty tensor)."""
    return max(t.abs().max().item() if t.numel() else 0.0, 1.0)


# ---- cases: every family, with the weight layouts it takes ----

FAMILIES = [
    ("pow2", 16, "offset"),
    ("sq1", 14, "offset"),
    ("pow2+cache", 16, "position"),
    ("sq1+cache", 14, "position"),
    ("window:3", 12, "offset"),
    ("dilated:2,2", 12, "position"),
    ("window:2|dilated:2,3", 12, "offset"),
    ("pow2|sink:2", 12, "position"),
    ("window:2@B|ssm@A", 12, "offset"),
    ("sq1|block:3@A", 12, "position"),
    ("sink:2", 10, "position"),
    ("bigbird:2,1,2", 12, "position"),
    ("block:3", 10, "position"),
    ("local:3", 10, "offset"),
    ("attention", 8, "position"),
    ("ssm", 10, "offset"),
]


def make_weights(p, layout, heads, gen, dtype=F64):
    """(heads, K) or (heads, nnz) weights with B's row sums of |beta| at most 0.9."""
    r = reads(p)

    def one(key, scale):
        cols = len(offsets(p, key)) if layout == "offset" else r[key][0].numel()
        w = (torch.rand(heads, cols, generator=gen, dtype=F64) * 2 - 1) * scale
        return w.to(dtype).requires_grad_()

    most = max([int((r["B"][0] == i).sum()) for i in range(p.n)] + [1])
    return one("A", 1.0), one("B", 0.9 / most)


@pytest.mark.parametrize("spec,n,layout", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_gradcheck(spec, n, layout):
    p = mixgraph.Pattern(spec, n)
    gen = torch.Generator().manual_seed(1)
    wa, wb = make_weights(p, layout, 2, gen)
    X = torch.randn(2, n, 4, generator=gen, dtype=F64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda X, wa, wb: mix(p, X, wa, wb), (X, wa, wb))


@pytest.mark.parametrize("spec,n,layout", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_forward_and_gradients_match_dense_reference(spec, n, layout):
    p = mixgraph.Pattern(spec, n)
    gen = torch.Generator().manual_seed(2)
    wa, wb = make_weights(p, layout, 2, gen)
    X = torch.randn(3, n, 6, generator=gen, dtype=F64, requires_grad=True)
    R = torch.randn(3, n, 6, generator=gen, dtype=F64)
    Y = mix(p, X, wa, wb)
    Yr = reference(p, X, wa, wb)
    assert torch.allclose(Y, Yr, rtol=0, atol=1e-10 * Yr.abs().max().item())
    got = torch.autograd.grad((Y * R).sum(), (X, wa, wb))
    ref = torch.autograd.grad((Yr * R).sum(), (X, wa, wb))
    for name, a, b in zip(("X", "weights_a", "weights_b"), got, ref):
        assert a.shape == b.shape and a.dtype == b.dtype, name
        assert torch.allclose(a, b, rtol=0, atol=1e-10 * big(b)), name


@pytest.mark.parametrize("spec", ["pow2", "sq1+cache", "bigbird:2,1,2"])
def test_seeded_matrix_is_mixgraph_solve_s_and_a_constant(spec):
    """A matrix left out is mixgraph.solve's seeded one: the forward equals solve's, and gradients flow to
    X and to the matrix given."""
    p = mixgraph.Pattern(spec, 12)
    gen = torch.Generator().manual_seed(3)
    _, wb = make_weights(p, "position", 2, gen)
    X = torch.randn(12, 4, generator=gen, dtype=F64, requires_grad=True)
    Y0 = mix(p, X.detach(), heads=2, seed=5)
    assert torch.equal(Y0, torch.as_tensor(mixgraph.solve(p, X.detach().numpy(), heads=2, seed=5)))
    R = torch.randn(12, 4, generator=gen, dtype=F64)
    Y = mix(p, X, weights_b=wb, seed=5)
    Yr = reference(p, X.unsqueeze(0), None, wb, heads=2, seed=5)[0]
    assert torch.allclose(Y, Yr, rtol=0, atol=1e-12)
    got = torch.autograd.grad((Y * R).sum(), (X, wb))
    ref = torch.autograd.grad((Yr * R).sum(), (X, wb))
    for a, b in zip(got, ref):
        assert torch.allclose(a, b, rtol=0, atol=1e-10)
    assert torch.autograd.gradcheck(lambda X, wb: mix(p, X, weights_b=wb, seed=5), (X, wb))


def gates_from(X, Wg, Wu):
    """Data-dependent gates as gated recurrences compute them from the input (HGRN / Mamba style)."""
    return 0.9 * torch.sigmoid(X @ Wg), torch.tanh(X @ Wu)


def test_ssm_data_dependent_gates_gradcheck_and_dense():
    p = mixgraph.Pattern("ssm", 9)
    gen = torch.Generator().manual_seed(4)
    X = torch.randn(2, 9, 3, generator=gen, dtype=F64, requires_grad=True)
    Wg = torch.randn(3, 3, generator=gen, dtype=F64, requires_grad=True)
    Wu = torch.randn(3, 3, generator=gen, dtype=F64, requires_grad=True)

    def f(X, Wg, Wu):
        g, u = gates_from(X, Wg, Wu)
        return mix(p, X, gates=g, input_gates=u)

    assert torch.autograd.gradcheck(f, (X, Wg, Wu))
    R = torch.randn(2, 9, 3, generator=gen, dtype=F64)
    Y = f(X, Wg, Wu)
    g, u = gates_from(X, Wg, Wu)
    Yr = reference(p, X, g=g, u=u)
    assert torch.allclose(Y, Yr, rtol=0, atol=1e-12)
    got = torch.autograd.grad((Y * R).sum(), (X, Wg, Wu))
    ref = torch.autograd.grad((Yr * R).sum(), (X, Wg, Wu))
    for a, b in zip(got, ref):
        assert torch.allclose(a, b, rtol=0, atol=1e-10 * big(b))
    # gates alone: y_t = g_t y_{t-1} + x_t
    G = torch.rand(2, 9, 3, generator=gen, dtype=F64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda X, G: mix(p, X, gates=G), (X, G))
    Y = mix(p, X, gates=G)
    assert torch.allclose(Y, reference(p, X, g=G), rtol=0, atol=1e-12)


def test_gates_with_weights_a_per_offset():
    """gates= for B with weights_a= for A (K_A = 1: the diagonal, one coefficient per channel)."""
    p = mixgraph.Pattern("ssm", 8)
    gen = torch.Generator().manual_seed(5)
    X = torch.randn(1, 8, 3, generator=gen, dtype=F64, requires_grad=True)
    G = torch.rand(1, 8, 3, generator=gen, dtype=F64, requires_grad=True)
    wa = torch.randn(3, 1, generator=gen, dtype=F64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda X, G, wa: mix(p, X, weights_a=wa, gates=G), (X, G, wa))
    U = wa[:, 0].expand(1, 8, 3)
    assert torch.allclose(mix(p, X, weights_a=wa, gates=G), reference(p, X, g=G, u=U), atol=1e-12)


def test_zero_size_b_weights():
    """Patterns without B reads take (heads, 0) B weights (and their empty gradient)."""
    for spec in ("attention", "local:3"):
        p = mixgraph.Pattern(spec, 8)
        lay = mixgraph._core._mix_layout(p)
        assert lay["nnz_B"] == 0
        X = torch.randn(8, 4, dtype=F64, requires_grad=True)
        wa = torch.rand(2, lay["nnz_A"], dtype=F64, requires_grad=True)
        wb = torch.zeros(2, 0, dtype=F64, requires_grad=True)
        Y = mix(p, X, wa, wb)
        Y.sum().backward()
        assert wb.grad.shape == (2, 0) and X.grad.shape == X.shape and wa.grad.shape == wa.shape
        assert torch.allclose(Y, mix(p, X, wa), atol=0)


def test_batched_shapes_are_one_call_and_agree():
    p = mixgraph.Pattern("sq1", 20)
    gen = torch.Generator().manual_seed(6)
    wa, wb = make_weights(p, "offset", 2, gen)
    X = torch.randn(3, 20, 8, generator=gen, dtype=F64, requires_grad=True)
    Y = mix(p, X, wa, wb)
    for b in range(3):
        assert torch.equal(Y[b], mix(p, X[b], wa, wb))
    X4 = X.detach().reshape(3, 20, 2, 4).requires_grad_()
    Y4 = mix(p, X4, wa, wb)
    assert Y4.shape == (3, 20, 2, 4) and torch.equal(Y4.reshape(3, 20, 8), Y)
    R = torch.randn(3, 20, 8, generator=gen, dtype=F64)
    g3 = torch.autograd.grad((Y * R).sum(), (X, wa, wb))
    g4 = torch.autograd.grad((Y4 * R.reshape(3, 20, 2, 4)).sum(), (X4, wa, wb))
    assert torch.equal(g3[0].reshape(3, 20, 2, 4), g4[0])
    assert torch.allclose(g3[1], g4[1], atol=1e-12) and torch.allclose(g3[2], g4[2], atol=1e-12)
    # the weight gradient of a batch is the sum over its sequences
    per = [torch.autograd.grad((mix(p, X[b], wa, wb) * R[b]).sum(), (wa, wb)) for b in range(3)]
    assert torch.allclose(sum(q[1] for q in per), g3[2], atol=1e-12)


def test_non_contiguous_inputs_and_threads():
    p = mixgraph.Pattern("pow2", 16)
    gen = torch.Generator().manual_seed(7)
    wa, wb = make_weights(p, "offset", 1, gen)
    Xt = torch.randn(4, 16, generator=gen, dtype=F64).t()  # (16, 4), strided
    assert not Xt.is_contiguous()
    assert torch.equal(mix(p, Xt, wa, wb), mix(p, Xt.contiguous(), wa, wb))
    assert torch.equal(mix(p, Xt, wa, wb, threads=1), mix(p, Xt, wa, wb, threads=2))


def test_float32_and_half_precisions():
    p = mixgraph.Pattern("pow2", 32)
    gen = torch.Generator().manual_seed(8)
    wa, wb = make_weights(p, "offset", 2, gen)
    X = torch.randn(2, 32, 8, generator=gen, dtype=F64)
    Y64 = mix(p, X, wa, wb)
    for dt, tol in ((torch.float32, 1e-5), (torch.bfloat16, 3e-2), (torch.float16, 3e-3)):
        Xd = X.to(dt).requires_grad_()
        wad, wbd = wa.detach().to(dt).requires_grad_(), wb.detach().to(dt).requires_grad_()
        Y = mix(p, Xd, wad, wbd)
        assert Y.dtype == dt
        assert (Y.double() - Y64).abs().max() <= tol * Y64.abs().max() * 4, dt
        Y.float().sum().backward()
        assert Xd.grad.dtype == dt and wad.grad.dtype == dt and wbd.grad.dtype == dt
        gx = torch.autograd.grad(mix(p, X.requires_grad_(), wa, wb).sum(), X)[0]
        assert (Xd.grad.double() - gx).abs().max() <= tol * gx.abs().max() * 4, dt
        X = X.detach()


def test_clear_errors():
    p = mixgraph.Pattern("pow2", 16)
    X = torch.randn(16, 4, dtype=F64)
    with pytest.raises(mixgraph.UsageError, match="T = 15 positions but the pattern has n = 16"):
        mix(p, X[:15])
    with pytest.raises(mixgraph.UsageError, match="must be float64, float32, bfloat16 or float16"):
        mix(p, X.long())
    with pytest.raises(mixgraph.UsageError, match="runs on the CPU"):
        mix(p, torch.empty(16, 4, device="meta"))
    with pytest.raises(mixgraph.UsageError, match=r"X must be \(T, d\)"):
        mix(p, X.reshape(-1))
    with pytest.raises(mixgraph.UsageError, match="not a multiple of heads"):
        mix(p, X, heads=3)
    with pytest.raises(mixgraph.InputError, match="fits neither"):
        mix(p, X, weights_b=torch.ones(1, 3, dtype=F64))
    with pytest.raises(mixgraph.UsageError, match="must be 2-D"):
        mix(p, X, weights_b=torch.ones(5, dtype=F64))
    with pytest.raises(mixgraph.UsageError, match="first-order pattern"):
        mix(p, X, gates=torch.rand(16, 4, dtype=F64))
    with pytest.raises(mixgraph.UsageError, match="must have X's shape"):
        mix(mixgraph.Pattern("ssm", 16), X, gates=torch.rand(16, 3, dtype=F64))
    with pytest.raises(mixgraph.UsageError, match="must be a torch.Tensor"):
        mix(p, X.numpy())
    with pytest.raises(mixgraph.UsageError, match="translation-invariant"):
        SparseMixer(mixgraph.Pattern("pow2+cache", 16), 4)
    with pytest.raises(mixgraph.UsageError, match="rho"):
        SparseMixer(p, 4, rho=1.0)


def test_double_backward_is_refused():
    p = mixgraph.Pattern("sq1", 10)
    X = torch.randn(10, 2, dtype=F64, requires_grad=True)
    wb = torch.full((1, len(offsets(p, "B"))), 0.1, dtype=F64, requires_grad=True)
    (gx,) = torch.autograd.grad(mix(p, X, weights_b=wb).square().sum(), X, create_graph=True)
    with pytest.raises(RuntimeError, match="double backward"):
        gx.sum().backward()


def test_sparse_mixer_initialisation_bounds_the_inverse():
    torch.manual_seed(0)
    for spec, kind in (("pow2", "offset"), ("sq1+cache", "position"), ("window:4", "position")):
        p = mixgraph.Pattern(spec, 40)
        m = SparseMixer(p, 8, heads=2, weights=kind, rho=0.8, dtype=F64)
        for h in range(2):
            B = dense(p, "B", values(p, "B", m.weight_b.detach(), h), F64)
            A = dense(p, "A", values(p, "A", m.weight_a.detach(), h), F64)
            assert B.abs().sum(1).max() <= 0.8 + 1e-12 and A.abs().sum(1).max() <= 1 + 1e-12
            inv = torch.linalg.inv(torch.eye(40, dtype=F64) - B)
            assert inv.abs().sum(1).max() <= 1 / (1 - 0.8) + 1e-9
        assert m(torch.randn(3, 40, 8, dtype=F64)).shape == (3, 40, 8)


def test_training_loop_loss_falls():
    """A student SparseMixer learns a teacher mixer's map on the same pattern: the loss falls 10x."""
    torch.manual_seed(1)
    p = mixgraph.Pattern("pow2", 64)
    teacher = SparseMixer(p, 8, heads=2, weights="offset", rho=0.7)
    student = SparseMixer(p, 8, heads=2, weights="offset", rho=0.1)
    X = torch.randn(16, 64, 8)
    with torch.no_grad():
        target = teacher(X)
    opt = torch.optim.Adam(student.parameters(), lr=0.05)
    losses = []
    for _ in range(60):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(student(X), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0] / 10, losses[::10]


def test_gated_mixer_trains():
    torch.manual_seed(2)
    p = mixgraph.Pattern("ssm", 32)
    model = torch.nn.Sequential(SparseMixer(p, 6, weights="gates"), torch.nn.Linear(6, 1))
    X = torch.randn(8, 32, 6)
    target = X.cumsum(1)[..., :1] * 0.1  # a running sum: long memory helps
    opt = torch.optim.Adam(model.parameters(), lr=0.03)
    first = None
    for _ in range(40):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(X), target)
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    assert loss.item() < first / 2


def has_custom_op():
    import mixgraph.torch as mt

    return mt.CUSTOM_OP and hasattr(torch, "compile")


@pytest.mark.skipif(not has_custom_op(),
                    reason=f"torch {torch.__version__} has no torch.library.custom_op / torch.compile (needs >= 2.4): "
                    "the op is a plain autograd.Function here")
def test_torch_compile_two_layers_without_graph_break():
    torch.manual_seed(3)
    p = mixgraph.Pattern("pow2", 32)
    model = torch.nn.Sequential(SparseMixer(p, 8, heads=2), torch.nn.GELU(), SparseMixer(p, 8, heads=2))
    X = torch.randn(4, 32, 8, requires_grad=True)
    Y = model(X)
    Y.square().sum().backward()
    eager = [q.grad.clone() for q in model.parameters()]
    model.zero_grad()
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True)  # fullgraph: a graph break raises
    Yc = compiled(X)
    Yc.square().sum().backward()
    assert torch.allclose(Yc, Y, atol=1e-6)
    for e, q in zip(eager, model.parameters()):
        assert torch.allclose(e, q.grad, atol=1e-5)
    import mixgraph.torch as mt  # the registered op passes torch's own consistency checks

    Xd = torch.randn(2 * 32, 8, dtype=F64, requires_grad=True)
    wb = torch.full((2, 5), 0.1, dtype=F64, requires_grad=True)
    torch.library.opcheck(mt._mix_op, (Xd, None, wb, None, None, "pow2", 32, 2, 2, 1, 0))


def test_import_mixgraph_does_not_need_torch():
    code = "import sys, mixgraph; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, check=True)
    assert out.stdout.strip() == "False"


def test_docs_training_example_runs():
    """docs/python.md's "Training" section is a doctest: every output it shows is compared."""
    text = (ROOT / "docs" / "python.md").read_text()
    m = re.search(r"^## Training\n(.*?)(?=^## )", text, re.S | re.M)
    assert m, "docs/python.md has no Training section"
    section = re.sub(r"^    ", "", m.group(1), flags=re.M)
    test = doctest.DocTestParser().get_doctest(section, {}, "python.md Training", "docs/python.md", 0)
    assert len(test.examples) >= 8
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0


@pytest.mark.parametrize("with_u", [False, True])
def test_cuda_gated_halves_through_the_kernels_host_reference(with_u):
    """The CUDA path's gated halves (argument order, workspace, outputs) driven on the CPU through the host
    reference of the device kernels' three passes, against the CPU op's forward and gradients."""
    import mixgraph.torch as mt
    from mixgraph import _core

    gen = torch.Generator().manual_seed(21)
    B, n, d = 3, 700, 6  # several segments of rows per sequence
    p = mixgraph.Pattern("ssm", n)
    X = torch.randn(B, n, d, generator=gen, dtype=torch.float64, requires_grad=True)
    G = (torch.rand(B, n, d, generator=gen, dtype=torch.float64) * 0.95).requires_grad_()
    U = torch.randn(B, n, d, generator=gen, dtype=torch.float64).requires_grad_()
    R = torch.randn(B, n, d, generator=gen, dtype=torch.float64)
    Y = mix(p, X, gates=G, input_gates=U if with_u else None)
    ins = (X, G, U) if with_u else (X, G)
    ref = torch.autograd.grad((Y * R).sum(), ins)
    rows = lambda t: t.detach().reshape(B * n, d).contiguous()  # noqa: E731
    u = rows(U) if with_u else None
    Yh = mt._gated_forward(rows(X), rows(G), u, n, B, scan=_core._gated_scan_reference_forward)
    assert torch.allclose(Yh.view(B, n, d), Y.detach(), rtol=0, atol=1e-12)
    grads = mt._gated_backward(rows(R), rows(X), Yh, rows(G), u, n, B, [True, False, False, True, with_u],
                               scan=_core._gated_scan_reference_backward)
    got = [grads[0], grads[3]] + ([grads[4]] if with_u else [])
    for a, b in zip(ref, got):
        assert torch.allclose(b.view(B, n, d), a, rtol=0, atol=1e-12)
