"""mixgraph.Mixer against mixgraph.solve (the same bits) and a dense float64 numpy reference, its adjoint
against the dense transpose, reuse across threads and after release(), and mixgraph.solve's cache."""

import threading

import numpy as np
import pytest

import mixgraph

scipy = pytest.importorskip("scipy")


def dense_ops(p, heads, seed):
    """(A, B) per head as dense float64 arrays (head h: seed + h)."""
    return [tuple(m.toarray() for m in p.weights(seed=seed + h)) for h in range(heads)]


def dense_solve(p, X, heads, seed):
    n, d = X.shape
    dh = d // heads
    Y = np.empty((n, d))
    for h, (A, B) in enumerate(dense_ops(p, heads, seed)):
        Y[:, h * dh:(h + 1) * dh] = np.linalg.solve(np.eye(n) - B, A @ X[:, h * dh:(h + 1) * dh])
    return Y


def dense_adjoint(p, G, heads, seed):
    n, d = G.shape
    dh = d // heads
    dX = np.empty((n, d))
    for h, (A, B) in enumerate(dense_ops(p, heads, seed)):
        Z = np.linalg.solve((np.eye(n) - B).T, G[:, h * dh:(h + 1) * dh])
        dX[:, h * dh:(h + 1) * dh] = A.T @ Z
    return dX


def test_same_bits_as_solve_and_dense(all_specs):
    rng = np.random.default_rng(5)
    for spec in all_specs:
        p = mixgraph.Pattern(spec, None if spec.startswith("mtx:") else 90)
        for heads, seed in ((1, 2), (3, 7)):
            X = rng.standard_normal((p.n, 6))
            m = mixgraph.Mixer(p, heads=heads, precision="fp64")
            Y = m.solve(X, seed=seed)
            assert np.array_equal(Y, mixgraph.solve(p, X, heads=heads, seed=seed)), spec
            np.testing.assert_allclose(Y, dense_solve(p, X, heads, seed), rtol=1e-10, atol=1e-10, err_msg=spec)
            m32 = mixgraph.Mixer(p, heads=heads, precision="fp32")
            X32 = X.astype(np.float32)
            assert np.array_equal(m32.solve(X32, seed=seed), mixgraph.solve(p, X32, heads=heads, seed=seed)), spec


def test_adjoint_against_dense(all_specs):
    rng = np.random.default_rng(6)
    for spec in all_specs:
        p = mixgraph.Pattern(spec, None if spec.startswith("mtx:") else 70)
        m = mixgraph.Mixer(p, heads=2, precision="fp64")
        X, G = rng.standard_normal((p.n, 4)), rng.standard_normal((p.n, 4))
        Y = m.solve(X, seed=3)
        dX = m.solve_adjoint(X, Y, G, seed=3)
        np.testing.assert_allclose(dX, dense_adjoint(p, G, 2, 3), rtol=1e-10, atol=1e-10, err_msg=spec)


def test_torch_cpu_tensors_in_place():
    torch = pytest.importorskip("torch")
    m = mixgraph.Mixer("sq1+cache", 500, heads=2)
    X = torch.randn(500, 8)
    Y, info = m.solve(X, seed=4, info=True)
    assert isinstance(Y, torch.Tensor) and Y.dtype == torch.float32 and info["x_address"] == X.data_ptr()
    assert torch.equal(Y, torch.from_numpy(mixgraph.solve(mixgraph.Pattern("sq1+cache", 500), X.numpy(), heads=2,
                                                          seed=4)))
    out = torch.empty_like(X)
    assert m.solve(X, seed=4, out=out) is out and torch.equal(out, Y)
    dX = m.solve_adjoint(X, Y, torch.ones_like(X), seed=4)
    assert isinstance(dX, torch.Tensor) and torch.isfinite(dX).all()


def test_concurrent_solves_give_the_sequential_bits():
    m = mixgraph.Mixer("pow2+cache", 3000, heads=1)
    rng = np.random.default_rng(8)
    xs = [rng.standard_normal((3000, 64), dtype=np.float32) for _ in range(6)]
    want = [m.solve(x, seed=k, threads=1) for k, x in enumerate(xs)]
    got = [None] * len(xs)

    def run(k):
        got[k] = m.solve(xs[k], seed=k, threads=1)

    ts = [threading.Thread(target=run, args=(k,)) for k in range(len(xs))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(np.array_equal(g, w) for g, w in zip(got, want))


def test_release_frees_and_the_next_solve_plans_again():
    m = mixgraph.Mixer("sq1+cache", 2000, precision="fp64")
    X = np.random.default_rng(9).standard_normal((2000, 4))
    Y = m.solve(X)
    held = m.bytes
    assert m.planned and held > 2000 * 8
    m.release()
    assert not m.planned and m.bytes == 0
    assert np.array_equal(m.solve(X), Y) and m.planned and m.bytes == held
    assert repr(m) == "Mixer('sq1+cache', n=2000, heads=1, precision='fp64')"


def test_rebuild_after_release_and_repeated_solves_parse_nothing_again():
    parses = mixgraph._core._spec_parse_count
    X = np.random.default_rng(3).standard_normal((300, 4))
    before = parses()
    m = mixgraph.Mixer("pow2|sink:4", 300, precision="fp64")  # the one parse
    assert parses() - before == 1
    Y = m.solve(X)
    for _ in range(3):
        m.release()
        assert np.array_equal(m.solve(X), Y)  # rebuilt from the parsed spec
    assert parses() - before == 1
    p = mixgraph.Pattern("sq1+cache", 300)
    before = parses()
    want = mixgraph.solve(p, X)
    for _ in range(3):
        assert np.array_equal(mixgraph.solve(p, X), want)  # a Pattern: solved (and cached) without a parse
    assert parses() - before == 0
    before = parses()
    for spelling in ("sq1+cache", " sq1 +cache", "sq1+cache "):  # a Pattern per call: its one parse each
        y, meta = mixgraph.solve(mixgraph.Pattern(spelling, 300), X, info=True)
        assert np.array_equal(y, want) and meta["mixer_cached"]  # one Mixer for the spellings of one tree
    assert parses() - before == 3


def test_kept_weights_same_bits_and_memory():
    p = mixgraph.Pattern("sq1+cache", 600)
    X = np.random.default_rng(11).standard_normal((600, 8))
    plain = mixgraph.Mixer(p, heads=2, precision="fp64")
    kept = mixgraph.Mixer(p, heads=2, precision="fp64", keep_weights=True)
    for seed in (1, 1, 2):
        Y = kept.solve(X, seed=seed)
        assert np.array_equal(Y, plain.solve(X, seed=seed))
        np.testing.assert_allclose(Y, dense_solve(p, X, 2, seed), rtol=1e-10, atol=1e-10)
    A, B = p.weights(seed=2)
    assert kept.bytes - plain.bytes == 2 * 8 * (A.nnz + B.nnz)  # every coefficient of both heads
    kept.release()
    assert kept.bytes == 0


def test_bad_arguments():
    m = mixgraph.Mixer("pow2", 64, heads=2)
    with pytest.raises(mixgraph.UsageError, match="float32"):
        m.solve(np.zeros((64, 4)))  # float64 into an fp32 Mixer
    with pytest.raises(mixgraph.UsageError, match="rows"):
        m.solve(np.zeros((63, 4), dtype=np.float32))
    with pytest.raises(mixgraph.UsageError, match="multiple"):
        m.solve(np.zeros((64, 3), dtype=np.float32))
    with pytest.raises(mixgraph.UsageError, match="device must be 'cpu' or 'cuda'"):
        mixgraph.Mixer("pow2", 64, device="tpu")
    with pytest.raises(mixgraph.UsageError, match="precision"):
        mixgraph.Mixer("pow2", 64, precision="fp16")
    with pytest.raises(mixgraph.ArgumentTypeError):
        m.solve("X")


def test_cuda_mixer_solves_host_arrays_on_the_cpu():
    """device='cuda' takes host arrays as a CPU Mixer does (the same bits); no device plan until a CUDA solve."""
    X = np.random.default_rng(3).standard_normal((300, 4))
    cpu, cuda = (mixgraph.Mixer("sq1+cache", 300, heads=2, precision="fp64", device=d) for d in ("cpu", "cuda"))
    assert (cpu.device, cuda.device) == ("cpu", "cuda")
    assert np.array_equal(cuda.solve(X, seed=4), cpu.solve(X, seed=4))
    assert cuda.device_bytes == 0
    cuda.release()
    assert cuda.device_bytes == 0 and not cuda.planned


def test_solve_keeps_a_small_cache_of_mixers():
    mixgraph.clear_mixer_cache()
    assert mixgraph.mixer_cache_info() == {"entries": 0, "size": 8}
    p = mixgraph.Pattern("sq1+cache", 400)
    X = np.random.default_rng(10).standard_normal((400, 4))
    Y1, i1 = mixgraph.solve(p, X, seed=2, info=True)
    Y2, i2 = mixgraph.solve(p, X, seed=5, info=True)  # another seed: the same plan
    assert (i1["mixer_cached"], i2["mixer_cached"]) == (False, True)
    assert mixgraph.mixer_cache_info()["entries"] == 1
    np.testing.assert_allclose(Y2, dense_solve(p, X, 1, 5), rtol=1e-10, atol=1e-10)
    _, i3 = mixgraph.solve(mixgraph.Pattern("sq1+cache", 400), X, seed=2, info=True)  # the same spec and n
    assert i3["mixer_cached"]
    _, i4 = mixgraph.solve(p, X.astype(np.float32), info=True)  # another dtype: another plan
    assert not i4["mixer_cached"]
    for k in range(10):  # least recently used ones go
        mixgraph.solve(mixgraph.Pattern(f"window:{k + 1}", 50), np.ones((50, 2)))
    assert mixgraph.mixer_cache_info()["entries"] == 8
    _, i5 = mixgraph.solve(p, X, seed=2, info=True)
    assert not i5["mixer_cached"]
    mixgraph.clear_mixer_cache()
    assert mixgraph.mixer_cache_info()["entries"] == 0
