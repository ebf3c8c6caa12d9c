"""mixgraph.torch.mix on CUDA tensors: forward and every gradient against the CPU op (fp64), gradcheck,
streams, host synchronisation, torch.compile. Skipped, with the reason, where no CUDA device is usable."""
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (python3-torch)")

import mixgraph  # noqa: E402
from mixgraph.torch import SparseMixer, mix  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="no CUDA device is usable here: the CUDA path of mixgraph.torch.mix is "
                                "checked on a GPU machine")

F64 = torch.float64

# translation-invariant patterns with weights per offset (heads, K): the CUDA path's second family
OFFSET_FAMILIES = [("pow2", 64), ("sq1", 50), ("window:3", 40), ("window:2|dilated:2,3", 40),
                   ("window:2@B|ssm@A", 40), ("local:3", 40), ("ssm", 40), ("pow2", 300)]


def offset_weights(p, heads, gen, device="cpu"):
    lay = mixgraph.torch._layout(p.spec, p.n)
    ka, kb = len(lay["a_offsets"]), len(lay["b_offsets"])
    wa = torch.rand(heads, ka, generator=gen, dtype=F64) * 2 - 1
    wb = (torch.rand(heads, kb, generator=gen, dtype=F64) * 2 - 1) * (0.9 / max(kb, 1))
    return wa.to(device), wb.to(device)


def leaves(*ts):
    return [t.detach().clone().requires_grad_() for t in ts]


def compare(f, cpu_inputs, atol=1e-10):
    """f's output and gradients on CUDA equal the CPU op's (fp64)."""
    gen = torch.Generator().manual_seed(9)
    a = leaves(*cpu_inputs)
    b = [t.detach().cuda().requires_grad_() for t in cpu_inputs]
    Ya, Yb = f(*a), f(*b)
    R = torch.randn(Ya.shape, generator=gen, dtype=F64)
    assert Yb.is_cuda and Yb.shape == Ya.shape
    scale = max(Ya.abs().max().item(), 1.0)
    assert torch.allclose(Yb.cpu(), Ya, rtol=0, atol=atol * scale)
    ga = torch.autograd.grad((Ya * R).sum(), a)
    gb = torch.autograd.grad((Yb * R.cuda()).sum(), b)
    for x, y in zip(ga, gb):
        assert y.is_cuda and y.shape == x.shape
        scale = max(x.abs().max().item(), 1.0) if x.numel() else 1.0
        assert torch.allclose(y.cpu(), x, rtol=0, atol=atol * scale)


@pytest.mark.parametrize("spec,n", OFFSET_FAMILIES, ids=[f"{s}-{n}" for s, n in OFFSET_FAMILIES])
@pytest.mark.parametrize("heads,d", [(1, 8), (2, 8), (2, 6)])
def test_offset_weights_match_cpu(spec, n, heads, d):
    p = mixgraph.Pattern(spec, n)
    gen = torch.Generator().manual_seed(1)
    wa, wb = offset_weights(p, heads, gen)
    X = torch.randn(2, n, d, generator=gen, dtype=F64)
    compare(lambda X, wa, wb: mix(p, X, wa, wb), [X, wa, wb])


def test_gated_ssm_matches_cpu_with_data_dependent_gates():
    p = mixgraph.Pattern("ssm", 200)
    gen = torch.Generator().manual_seed(2)
    X = torch.randn(3, 200, 16, generator=gen, dtype=F64)
    Wg = torch.randn(16, 16, generator=gen, dtype=F64) / 4

    def f(X, Wg):
        g = 0.95 * torch.sigmoid(X @ Wg)
        return mix(p, X, gates=g, input_gates=1 - g)

    compare(f, [X, Wg])
    G = torch.rand(3, 200, 16, generator=gen, dtype=F64)
    compare(lambda X, G: mix(p, X, gates=G), [X, G])  # input gates 1
    X4 = torch.randn(2, 200, 4, 8, generator=gen, dtype=F64)  # (batch, T, heads, d_head)
    G4 = torch.rand(2, 200, 4, 8, generator=gen, dtype=F64)
    compare(lambda X, G: mix(p, X, gates=G, input_gates=G * 0.5), [X4, G4])


def test_offset_weight_gradients_past_the_kernel_s_offsets(monkeypatch):
    """More offsets than the one-kernel weight gradients take: the torch loop gives the same gradients."""
    monkeypatch.setattr(mixgraph._core, "_SHIFT_DOTS_MAX_OFFSETS", 2)
    p = mixgraph.Pattern("pow2", 100)
    gen = torch.Generator().manual_seed(13)
    wa, wb = offset_weights(p, 2, gen)
    X = torch.randn(2, 100, 8, generator=gen, dtype=F64)
    compare(lambda X, wa, wb: mix(p, X, wa, wb), [X, wa, wb])


@pytest.mark.parametrize("shape", [(3, 3000, 16), (2, 2500, 4, 6), (1, 5000, 7)],
                         ids=["batch3-d16", "heads4x6", "d7-odd"])
def test_gated_scan_spanning_many_segments_matches_cpu(shape):
    """The device scan over many segments of rows (and odd d: one column per thread) against the CPU op."""
    p = mixgraph.Pattern("ssm", shape[1])
    gen = torch.Generator().manual_seed(12)
    X = torch.randn(*shape, generator=gen, dtype=F64)
    G = torch.rand(*shape, generator=gen, dtype=F64) * 0.98
    U = torch.randn(*shape, generator=gen, dtype=F64)
    compare(lambda X, G, U: mix(p, X, gates=G, input_gates=U), [X, G, U])
    compare(lambda X, G: mix(p, X, gates=G), [X, G])


def test_gated_batch_is_one_scan_not_a_loop():
    """(batch, T, d) with gates: the forward launches the scan's three kernels once, not per sequence, and
    the backward one adjoint scan (no reversed copies)."""
    from torch.profiler import ProfilerActivity, profile

    p = mixgraph.Pattern("ssm", 512)
    X = torch.randn(6, 512, 32, device="cuda", requires_grad=True)
    G = (torch.rand(6, 512, 32, device="cuda") * 0.9).requires_grad_()
    mix(p, X, gates=G).sum().backward()  # warm up
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        mix(p, X, gates=G).sum().backward()
        torch.cuda.synchronize()
    names = [e.name for e in prof.events()]
    if not any("maps" in nm for nm in names):
        pytest.skip("the profiler recorded no kernels here (CUPTI)")
    assert sum("fwd_maps" in nm for nm in names) == 1
    assert sum("bwd_maps" in nm for nm in names) == 1
    assert not any("flip" in nm.lower() or "index" in nm.lower() for nm in names), names


def test_gradcheck_on_cuda():
    gen = torch.Generator().manual_seed(3)
    p = mixgraph.Pattern("pow2", 12)
    wa, wb = offset_weights(p, 2, gen)
    X = torch.randn(2, 12, 4, generator=gen, dtype=F64)
    ins = [t.cuda().requires_grad_() for t in (X, wa, wb)]
    assert torch.autograd.gradcheck(lambda X, wa, wb: mix(p, X, wa, wb), ins)
    q = mixgraph.Pattern("ssm", 10)
    X = torch.randn(2, 10, 3, generator=gen, dtype=F64).cuda().requires_grad_()
    G = torch.rand(2, 10, 3, generator=gen, dtype=F64).cuda().requires_grad_()
    U = torch.rand(2, 10, 3, generator=gen, dtype=F64).cuda().requires_grad_()
    assert torch.autograd.gradcheck(lambda X, G, U: mix(q, X, gates=G, input_gates=U), (X, G, U))


def test_float32_and_half_on_cuda():
    gen = torch.Generator().manual_seed(5)
    p = mixgraph.Pattern("ssm", 256)
    X = torch.randn(1, 256, 64, generator=gen, dtype=F64)
    G = torch.rand(1, 256, 64, generator=gen, dtype=F64) * 0.9
    for dt, tol in ((torch.float32, 1e-5), (torch.bfloat16, 1e-2)):
        Xt, Gt = X.to(dt), G.to(dt)
        Yref = mix(p, Xt.double(), gates=Gt.double())  # the same rounded inputs, in fp64 on the CPU
        Y = mix(p, Xt.cuda(), gates=Gt.cuda())
        assert Y.dtype == dt and Y.is_cuda
        assert (Y.double().cpu() - Yref).abs().max().item() <= tol * Yref.abs().max().item()


def test_runs_on_the_current_stream():
    gen = torch.Generator().manual_seed(6)
    p = mixgraph.Pattern("ssm", 4096)
    X = torch.randn(1, 4096, 256, generator=gen).cuda()
    G = (torch.rand(1, 4096, 256, generator=gen) * 0.9).cuda()
    R = torch.randn(1, 4096, 256, generator=gen).cuda()
    Xa, Ga = X.clone().requires_grad_(), G.clone().requires_grad_()
    Ya = mix(p, Xa, gates=Ga)
    (Ya * R).sum().backward()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        Xb, Gb = (X * 1).requires_grad_(), (G * 1).requires_grad_()  # written on s, just before the op
        Yb = mix(p, Xb, gates=Gb)
        (Yb * R).sum().backward()
    torch.cuda.current_stream().wait_stream(s)
    assert torch.equal(Ya, Yb) and torch.equal(Xa.grad, Xb.grad) and torch.equal(Ga.grad, Gb.grad)


def test_gated_path_makes_no_torch_host_synchronisation():
    p = mixgraph.Pattern("ssm", 1024)
    X = torch.randn(2, 1024, 32, device="cuda", requires_grad=True)
    W = torch.randn(32, 32, device="cuda", requires_grad=True)
    R = torch.randn(2, 1024, 32, device="cuda")
    mix(p, X, gates=torch.sigmoid(X @ W)).sum().backward()  # warm up (workspace, pattern)
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")  # any synchronising torch call raises
    try:
        g = 0.9 * torch.sigmoid(X @ W)
        Y = mix(p, X, gates=g, input_gates=1 - g)
        (Y * R).sum().backward()
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert X.grad is not None and W.grad is not None


def test_families_not_on_cuda_are_refused_clearly():
    p = mixgraph.Pattern("pow2+cache", 16)
    X = torch.randn(16, 4, device="cuda")
    nnz = mixgraph.torch._layout(p.spec, p.n)["nnz_B"]
    for kw in (dict(), dict(weights_b=torch.zeros(1, nnz, device="cuda"))):  # seeded A and B, seeded A
        with pytest.raises(mixgraph.UsageError, match="on CUDA takes per-channel gates"):
            mix(p, X, **kw)
    with pytest.raises(mixgraph.UsageError, match="on CUDA takes"):  # per offset on an explicit pattern
        mix(p, X, torch.ones(1, 1, device="cuda"), torch.zeros(1, nnz, device="cuda"))
    q = mixgraph.Pattern("pow2", 16)
    with pytest.raises(mixgraph.UsageError, match="on CUDA takes"):  # seeded A: not on CUDA
        mix(q, X, weights_b=torch.zeros(1, 4, device="cuda"))
    with pytest.raises(mixgraph.UsageError, match="is on cpu but X is on cuda"):
        mix(q, X, torch.ones(1, 1), torch.zeros(1, 4, device="cuda"))
    s = mixgraph.Pattern("ssm", 16)
    with pytest.raises(mixgraph.UsageError, match="gates take no weights_a"):
        mix(s, X, torch.ones(1, 1, device="cuda"), gates=torch.rand(16, 4, device="cuda"))
    with pytest.raises(mixgraph.UsageError, match="gates on CUDA need a first-order pattern"):
        mix(q, X, gates=torch.rand(16, 4, device="cuda"))


# weights per position (heads, nnz) in CSR order, on every family: the batch as columns of one solve, the
# adjoint with the reversed transposed structure, the per-entry weight gradients
POSITION_FAMILIES = [("pow2", 64), ("sink:4|pow2", 60), ("pow2+cache", 128), ("sq1+cache", 100),
                     ("window:3", 40), ("local:4", 40), ("attention", 24)]


def position_weights(p, heads, gen, device="cpu"):
    lay = mixgraph.torch._layout(p.spec, p.n)
    wa = (torch.rand(heads, lay["nnz_A"], generator=gen, dtype=F64) * 2 - 1) * 0.5
    wb = (torch.rand(heads, lay["nnz_B"], generator=gen, dtype=F64) * 2 - 1) * (0.9 * p.n / max(lay["nnz_B"], 1))
    return wa.to(device), wb.to(device)


@pytest.mark.parametrize("spec,n", POSITION_FAMILIES, ids=[f"{s}-{n}" for s, n in POSITION_FAMILIES])
@pytest.mark.parametrize("batch,heads", [(1, 1), (3, 2), (1, 2), (3, 1)])
def test_position_weights_match_cpu(spec, n, batch, heads):
    p = mixgraph.Pattern(spec, n)
    gen = torch.Generator().manual_seed(21)
    wa, wb = position_weights(p, heads, gen)
    X = torch.randn(batch, n, 8, generator=gen, dtype=F64)
    compare(lambda X, wa, wb: mix(p, X, wa, wb, heads=heads), [X, wa, wb])


@pytest.mark.parametrize("batch,heads", [(1, 1), (3, 2)])
def test_offset_weights_batch_as_columns_match_cpu(batch, heads):
    for spec, n in (("pow2", 128), ("window:3", 40), ("local:4", 40)):
        p = mixgraph.Pattern(spec, n)
        gen = torch.Generator().manual_seed(22)
        wa, wb = offset_weights(p, heads, gen)
        X = torch.randn(batch, n, 16, generator=gen, dtype=F64)
        compare(lambda X, wa, wb: mix(p, X, wa, wb), [X, wa, wb])
        lay = mixgraph.torch._layout(spec, n)  # one per offset, the other per position
        wbp = torch.rand(heads, lay["nnz_B"], generator=gen, dtype=F64) * 0.1
        compare(lambda X, wa, wb: mix(p, X, wa, wb), [X, wa, wbp])


def test_position_weights_float32_on_cuda():
    gen = torch.Generator().manual_seed(23)
    for spec, n in (("pow2+cache", 128), ("sq1+cache", 128)):
        p = mixgraph.Pattern(spec, n)
        wa, wb = position_weights(p, 4, gen)
        X = torch.randn(4, n, 64, generator=gen, dtype=F64)
        ins32 = [t.float() for t in (X, wa, wb)]
        ref = [t.double().requires_grad_() for t in ins32]  # the same rounded inputs, in fp64 on the CPU
        got = [t.cuda().requires_grad_() for t in ins32]
        Yr, Yg = mix(p, *ref), mix(p, *got)
        assert Yg.dtype == torch.float32
        assert (Yg.double().cpu() - Yr).abs().max().item() <= 1e-5 * max(1.0, Yr.abs().max().item())
        R = torch.randn(Yr.shape, generator=gen, dtype=F64)
        gr = torch.autograd.grad((Yr * R).sum(), ref)
        gg = torch.autograd.grad((Yg * R.float().cuda()).sum(), got)
        for a, b in zip(gr, gg):
            assert (b.double().cpu() - a).abs().max().item() <= 1e-4 * max(1.0, a.abs().max().item())


def test_position_training_step_matches_cpu():
    """One optimizer step of a two-layer model with cache-efficient mixers: the same parameters after it on
    CUDA as on the CPU (float64)."""
    torch.manual_seed(24)
    p = mixgraph.Pattern("pow2+cache", 128)
    model = torch.nn.Sequential(SparseMixer(p, 16, heads=2, weights="position", dtype=F64), torch.nn.Tanh(),
                                SparseMixer(p, 16, heads=2, weights="position", dtype=F64))
    gpu_model = __import__("copy").deepcopy(model).cuda()
    X = torch.randn(3, 128, 16, dtype=F64)
    for m, x in ((model, X), (gpu_model, X.cuda())):
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        m(x).square().mean().backward()
        opt.step()
    for a, b in zip(model.parameters(), gpu_model.parameters()):
        assert torch.allclose(b.detach().cpu(), a.detach(), rtol=0, atol=1e-10)


def test_weights_path_makes_no_torch_host_synchronisation():
    """The weight tables stay on the device: no .cpu() / .item() in the forward or the backward (the device
    solve's own wait at its end is a CUDA event, which torch's sync debug mode does not see)."""
    for spec, kind in (("pow2", "offset"), ("pow2+cache", "position")):
        p = mixgraph.Pattern(spec, 128)
        layer = SparseMixer(p, 32, heads=2, weights=kind).cuda()
        X = torch.randn(4, 128, 32, device="cuda", requires_grad=True)
        layer(X).sum().backward()  # warm up (structures, index tensors on the device)
        torch.cuda.synchronize()
        torch.cuda.set_sync_debug_mode("error")
        try:
            layer(X).square().sum().backward()
        finally:
            torch.cuda.set_sync_debug_mode("default")
        assert layer.weight_a.grad is not None and layer.weight_b.grad is not None


def test_gated_mixer_module_on_cuda_and_torch_compile():
    import mixgraph.torch as mt

    torch.manual_seed(7)
    p = mixgraph.Pattern("ssm", 256)
    model = torch.nn.Sequential(SparseMixer(p, 32, weights="gates"), torch.nn.GELU(),
                                SparseMixer(p, 32, weights="gates")).cuda()
    X = torch.randn(2, 256, 32, device="cuda", requires_grad=True)
    Y = model(X)
    Y.square().sum().backward()
    eager = [q.grad.clone() for q in model.parameters()]
    cpu = [m.cpu() for m in model]
    model_cpu = torch.nn.Sequential(*cpu)
    Xc = X.detach().cpu().requires_grad_()
    Yc = model_cpu(Xc)
    assert torch.allclose(Y.cpu(), Yc, atol=1e-4)
    model.cuda()
    if not (mt.CUSTOM_OP and hasattr(torch, "compile")):
        pytest.skip(f"torch {torch.__version__}: no torch.library.custom_op / torch.compile")
    model.zero_grad()
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True)  # fullgraph: a graph break raises
    Yk = compiled(X)
    Yk.square().sum().backward()
    assert torch.allclose(Yk, Y, atol=1e-5)
    for e, q in zip(eager, model.parameters()):
        assert torch.allclose(e, q.grad, atol=1e-4)
