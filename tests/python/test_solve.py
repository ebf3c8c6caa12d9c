"""mixgraph.solve against a dense float64 numpy solve with the same weights, and against `mixgraph solve`."""

import json
import subprocess
import tracemalloc

import numpy as np
import pytest

import mixgraph

scipy = pytest.importorskip("scipy")


def dense_reference(p, X, heads, seed):
    """Y = (I - B)^{-1} A X per head (head h: seed + h), in float64 from the weights as scipy matrices."""
    n, d = X.shape
    dh = d // heads
    Y = np.empty((n, d))
    for h in range(heads):
        A, B = p.weights(seed=seed + h)
        Y[:, h * dh:(h + 1) * dh] = np.linalg.solve(np.eye(n) - B.toarray(), A.toarray() @ X[:, h * dh:(h + 1) * dh])
    return Y


def test_against_dense_numpy(all_specs):
    rng = np.random.default_rng(3)
    for spec in all_specs:
        p = mixgraph.Pattern(spec, None if spec.startswith("mtx:") else 120)
        for heads, seed in ((1, 1), (3, 11)):
            X = rng.standard_normal((p.n, 6))
            Y = mixgraph.solve(p, X, heads=heads, seed=seed)
            ref = dense_reference(p, X, heads, seed)
            assert Y.dtype == np.float64 and Y.shape == X.shape
            np.testing.assert_allclose(Y, ref, rtol=1e-10, atol=1e-10, err_msg=spec)
            Y32 = mixgraph.solve(p, X.astype(np.float32), heads=heads, seed=seed)
            assert Y32.dtype == np.float32
            np.testing.assert_allclose(Y32, ref, rtol=1e-3, atol=1e-4, err_msg=spec)


def test_same_bits_as_the_cli(cli, tmp_path):
    rng = np.random.default_rng(5)
    for spec, dtype in (("pow2", np.float32), ("sq1+cache", np.float64)):
        X = rng.standard_normal((500, 8)).astype(dtype)
        np.save(tmp_path / "x.npy", X)
        out = subprocess.run([cli.path, "solve", "-p", spec, "--input", tmp_path / "x.npy", "--output",
                              tmp_path / "y.npy", "--heads", "2", "--seed", "4", "--backend", "cpu",
                              "--format", "json"], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        Y = mixgraph.solve(mixgraph.Pattern(spec, 500), X, heads=2, seed=4)
        assert np.array_equal(Y, np.load(tmp_path / "y.npy")), spec
        assert json.loads(out.stdout)["kernel"] == mixgraph.solve(mixgraph.Pattern(spec, 500), X, info=True)[1]["kernel"]


def test_no_copy_of_x_or_y():
    p = mixgraph.Pattern("pow2", 1 << 16)
    X = np.ones((p.n, 32), dtype=np.float32)  # 8 MiB
    X.setflags(write=False)  # read in place: a read-only X is fine
    out = np.empty_like(X)
    tracemalloc.start()
    Y = mixgraph.solve(p, X, out=out)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    Y2 = mixgraph.solve(p, X)
    _, peak2 = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert Y is out or np.shares_memory(Y, out)
    assert Y.ctypes.data == out.ctypes.data
    assert peak < X.nbytes // 8  # numpy allocated nothing the size of X (no copy of X, Y written in place)
    assert peak2 < X.nbytes * 1.2  # only Y itself
    assert np.array_equal(Y, Y2)


def test_rejects_what_it_would_have_to_copy():
    p = mixgraph.Pattern("pow2", 64)
    X = np.ones((64, 8))
    with pytest.raises(mixgraph.UsageError, match="C-contiguous"):
        mixgraph.solve(p, np.asfortranarray(X))
    with pytest.raises(mixgraph.UsageError, match="float32 or float64"):
        mixgraph.solve(p, X.astype(np.int32))
    with pytest.raises(mixgraph.UsageError, match="rows"):
        mixgraph.solve(p, np.ones((63, 8)))
    with pytest.raises(mixgraph.UsageError, match="multiple of heads"):
        mixgraph.solve(p, X, heads=3)
    with pytest.raises(mixgraph.UsageError, match="overlap"):
        mixgraph.solve(p, X, out=X)
    with pytest.raises(mixgraph.UsageError, match="dtype"):
        mixgraph.solve(p, X, out=np.empty((64, 8), dtype=np.float32))
    with pytest.raises(mixgraph.UsageError, match="shape"):
        mixgraph.solve(p, X, out=np.empty((64, 4)))


def test_plan_kept_for_the_next_solve():
    mixgraph.clear_mixer_cache()
    p = mixgraph.Pattern("sq1", 300)
    X = np.random.default_rng(1).standard_normal((300, 4))
    Y1, i1 = mixgraph.solve(p, X, seed=2, info=True)
    Y2, i2 = mixgraph.solve(p, X, seed=2, info=True)
    Y3, i3 = mixgraph.solve(p, X, seed=3, info=True)  # seeded weights are made by the kernel: the same plan
    assert (i1["weights_cached"], i2["weights_cached"], i3["weights_cached"]) == (False, True, True)
    assert np.array_equal(Y1, Y2) and not np.allclose(Y1, Y3)
    np.testing.assert_allclose(Y3, dense_reference(p, X, 1, 3), rtol=1e-10, atol=1e-10)
    Y4, i4 = mixgraph.solve(p, X.astype(np.float32), seed=3, info=True)
    assert not i4["weights_cached"]
    np.testing.assert_allclose(Y4, Y3, rtol=1e-3, atol=1e-4)


def test_vector_input():
    p = mixgraph.Pattern("fib", 100)
    x = np.arange(100, dtype=np.float64)
    assert np.allclose(mixgraph.solve(p, x), mixgraph.solve(p, x.reshape(100, 1))[:, 0])
