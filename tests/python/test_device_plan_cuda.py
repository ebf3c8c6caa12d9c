"""Device plans on CUDA tensors: mixgraph.solve plans an explicit structure once (plan_cached from the second
call), mixgraph.Mixer(device='cuda') solves with its own plan and frees it on release(), and _solve_device
(the torch op's CSR path) checks and plans a structure once. Results against the CPU solve. Skipped, with the
reason, where no CUDA device is usable."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed (python3-torch)")

import mixgraph  # noqa: E402
from mixgraph import _core, _torch_cuda  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="no CUDA device is usable here: device plans are checked on a GPU machine")

SPECS = ["pow2+cache", "sq1+cache", "window:3|local:6", "pow2"]


def x_of(n, d, seed, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal((n, d)).astype(dtype)


@pytest.mark.parametrize("spec", SPECS)
def test_solve_plans_once_and_matches_the_cpu(spec):
    mixgraph.clear_mixer_cache()
    p = mixgraph.Pattern(spec, 3000)
    for call, seed in enumerate((1, 2, 2)):
        X = x_of(3000, 32, 10 + call)
        Yc = mixgraph.solve(p, X, heads=2, seed=seed)
        Xg = torch.from_numpy(X).cuda()
        Yg, info = mixgraph.solve(p, Xg, heads=2, seed=seed, out=torch.empty_like(Xg), info=True)
        assert Yg.is_cuda
        assert info["plan_cached"] == (call > 0), info
        np.testing.assert_allclose(Yg.cpu().numpy(), Yc, rtol=1e-9, atol=1e-9)
        if call == 2:
            assert info["weights_cached"]  # the same seed as the call before: nothing written


def test_mtx_values_are_uploaded_once(tmp_path):
    n = 2000
    lines = [(i, i - 1, 0.3) for i in range(1, n)] + [(i, i - 7, -0.2) for i in range(7, n)]
    f = tmp_path / "b.mtx"
    f.write_text("%%MatrixMarket matrix coordinate real general\n"
                 f"{n} {n} {len(lines)}\n" + "".join(f"{i + 1} {j + 1} {v}\n" for i, j, v in lines))
    p = mixgraph.Pattern(f"mtx:{f}")
    mixgraph.clear_mixer_cache()
    X = x_of(n, 16, 3)
    Yc = mixgraph.solve(p, X)
    for call in range(3):
        Xg = torch.from_numpy(X).cuda()
        Yg, info = mixgraph.solve(p, Xg, out=torch.empty_like(Xg), info=True)
        np.testing.assert_allclose(Yg.cpu().numpy(), Yc, rtol=1e-9, atol=1e-9)
        assert info["plan_cached"] == (call > 0)
        assert info["weights_cached"] == (call > 0)  # the files' values: uploaded by the first call only


def test_cuda_mixer_plans_once_and_releases():
    m = mixgraph.Mixer("sq1+cache", 4000, heads=2, precision="fp32", device="cuda")
    cpu = mixgraph.Mixer("sq1+cache", 4000, heads=2, precision="fp32")
    X = x_of(4000, 64, 5, np.float32)
    Xg = torch.from_numpy(X).cuda()
    Y1, i1 = m.solve(Xg, seed=3, info=True)
    Y2, i2 = m.solve(Xg, seed=3, info=True)
    assert Y1.is_cuda and (i1["plan_cached"], i2["plan_cached"]) == (False, True)
    assert torch.equal(Y1, Y2)
    np.testing.assert_allclose(Y1.cpu().numpy(), cpu.solve(X, seed=3), rtol=1e-4, atol=1e-4)
    assert m.device_bytes > 0
    m.release()
    assert m.device_bytes == 0
    Y3, i3 = m.solve(Xg, seed=3, info=True)  # plans again
    assert not i3["plan_cached"] and torch.equal(Y3, Y1)
    with pytest.raises(mixgraph.UsageError, match="float32"):
        m.solve(Xg.double())


def test_solve_device_checks_a_csr_structure_once():
    """The torch op's CSR path: the same arrays give the same bits as the dense reference, a bad structure is
    refused, and a cached structure is not checked again (a known array object is taken as it was)."""
    n, d, heads = 500, 8, 2
    p = mixgraph.Pattern("sq1+cache", n)
    c = _core._solve_structure(p)
    a_ptr, a_idx = c["a_ptr"].astype(np.uint64), c["a_idx"].astype(np.uint32)
    b_ptr, b_idx = c["b_ptr"].astype(np.uint64), c["b_idx"].astype(np.uint32)
    gen = torch.Generator().manual_seed(1)
    va = torch.rand(heads, a_idx.size, generator=gen, dtype=torch.float64).cuda()
    vb = (torch.rand(heads, b_idx.size, generator=gen, dtype=torch.float64) * 0.1).cuda()
    X = torch.randn(n, d, generator=gen, dtype=torch.float64).cuda()

    def stream_of(t, f):
        return f(torch.cuda.current_stream(t.device).cuda_stream)

    _core._device_plans_clear()
    a, b = ("csr", a_ptr, a_idx, va), ("csr", b_ptr, b_idx, vb)
    ref = _torch_cuda.reference_solve(X, heads, a, b)
    for _ in range(3):
        Y = _torch_cuda.device_solve(X, heads, a, b, stream_of)
        assert torch.allclose(Y, ref, rtol=0, atol=1e-10)
    bad = b_idx.copy()
    bad[5] = 499  # a read of a later row
    with pytest.raises(mixgraph.UsageError, match="earlier columns"):
        _torch_cuda.device_solve(X, heads, a, ("csr", b_ptr, bad, vb), stream_of)
