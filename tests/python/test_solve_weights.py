"""mixgraph.solve with the user's weights (weights_a / weights_b / gates / input_gates / attn_q / attn_k):
bit for bit the CLI's ``solve -o Y.npy`` from the same .npy files, and a float64 dense numpy solve built here
from the documented layouts (docs/formats.md, "Weight files"); arrays and paths give the same Y."""

import subprocess

import numpy as np
import pytest

from conftest import cli_path, mixgraph

N = 40


def masks(p, seed):
    """A's and B's reads (0-indexed (i, j) in CSR order: i ascending, j ascending) and the seeded values."""
    a, b = p.weights(seed)
    out = []
    for m in (a, b):
        m = m.tocsr()
        reads = [(i, j) for i in range(p.n) for j in sorted(m.indices[m.indptr[i] : m.indptr[i + 1]])]
        out.append((reads, m.toarray()))
    return out


def offsets(reads):
    return sorted({i - j for i, j in reads})


def dense_from(reads, n, row, per_offset):
    """The n x n matrix of one head from its row of a (H, K) per-offset or (H, nnz) per-position file."""
    m = np.zeros((n, n))
    offs = offsets(reads)
    for q, (i, j) in enumerate(reads):
        m[i, j] = row[offs.index(i - j)] if per_offset else row[q]
    return m


def reference(x, heads, mats):
    """Y = (I - B_h)^{-1} A_h X_h per head, float64 dense."""
    n, d = x.shape
    dh = d // heads
    y = np.empty_like(x, dtype=np.float64)
    for h in range(heads):
        a, b = mats(h)
        cols = slice(h * dh, (h + 1) * dh)
        y[:, cols] = np.linalg.solve(np.eye(n) - b, a @ x[:, cols])
    return y


def cli_solve(tmp_path, spec, x, heads, flags):
    """The CLI's Y from the same files (-o Y.npy), or None without a built CLI."""
    path = cli_path()
    if path is None:
        return None
    xf, yf = tmp_path / "x.npy", tmp_path / "y.npy"
    np.save(xf, x)
    args = [path, "solve", "-p", spec, "-i", str(xf), "--heads", str(heads), "--backend", "cpu", "-o", str(yf)]
    for k, v in flags.items():
        args += [k, str(v)]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return np.load(yf)


def check(tmp_path, spec, x, heads, files, mats, tol=1e-12, ref_heads=None):
    """Python from paths == Python from arrays == the CLI, and all within tol of the dense reference."""
    p = mixgraph.Pattern(spec, x.shape[0])
    paths, arrays, flags = {}, {}, {}
    for k, v in files.items():
        if isinstance(v, str):  # attn_kernel
            arrays[k] = paths[k] = v
            flags["--" + k.replace("_", "-")] = v
            continue
        f = tmp_path / (k + ".npy")
        np.save(f, v)
        paths[k], arrays[k] = f, v
        flags["--" + k.replace("_", "-")] = f
    y_path, meta = mixgraph.solve(p, x, heads=heads, info=True, **paths)
    assert meta["user_weights"] and not meta["weights_cached"]
    y_arr = mixgraph.solve(p, x, heads=heads, **arrays)
    np.testing.assert_array_equal(y_path, y_arr)
    y_cli = cli_solve(tmp_path, spec, x, heads, flags)
    if y_cli is not None:
        np.testing.assert_array_equal(y_path, y_cli)
    ref = reference(x, ref_heads or heads, mats)
    assert np.max(np.abs(y_path - ref)) <= tol * max(1.0, np.max(np.abs(ref)))
    seeded = mixgraph.solve(p, x, heads=heads)  # the weights did something
    assert not np.allclose(seeded, y_path)
    return y_path


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.mark.parametrize("spec", ["pow2", "window:4", "ssm"])
@pytest.mark.parametrize("per_offset", [True, False])
def test_weights_a_and_b(tmp_path, rng, spec, per_offset):
    p = mixgraph.Pattern(spec, N)
    heads, seed = 2, 1
    x = rng.standard_normal((N, 4))
    (ra, _), (rb, _) = masks(p, seed)
    assert rb, spec  # B has reads, so weights_b changes something
    ka = len(offsets(ra)) if per_offset else len(ra)
    kb = len(offsets(rb)) if per_offset else len(rb)
    wa = rng.uniform(-1, 1, (heads, ka))
    wb = rng.uniform(-0.5, 0.5, (heads, kb)) / (len(offsets(rb)) if per_offset else 4)

    def both(h):
        return dense_from(ra, N, wa[h], per_offset), dense_from(rb, N, wb[h], per_offset)

    check(tmp_path, spec, x, heads, {"weights_a": wa, "weights_b": wb}, both, tol=1e-10)

    def only_b(h):  # A stays the seeded one of head h (seed + h)
        return masks(p, seed + h)[0][1], dense_from(rb, N, wb[h], per_offset)

    check(tmp_path, spec, x, heads, {"weights_b": wb}, only_b, tol=1e-10)

    def only_a(h):
        return dense_from(ra, N, wa[h], per_offset), masks(p, seed + h)[1][1]

    check(tmp_path, spec, x, heads, {"weights_a": wa}, only_a, tol=1e-10)


def test_gates_and_input_gates(tmp_path, rng):
    d = 3
    x = rng.standard_normal((N, d))
    g = rng.uniform(0, 0.95, (N, d))
    u = rng.uniform(-2, 2, (N, d))

    def gated(inp):
        def mats(c):  # channel c: y_i = g[i, c] y_{i-1} + u[i, c] x_i
            b = np.zeros((N, N))
            b[np.arange(1, N), np.arange(N - 1)] = g[1:, c]
            return np.diag(u[:, c] if inp else np.ones(N)), b

        return mats

    check(tmp_path, "ssm", x, 1, {"gates": g}, gated(False), ref_heads=d)  # heads left out: d
    check(tmp_path, "ssm", x, d, {"gates": g, "input_gates": u}, gated(True))


def attention_matrix(reads, q, k, kernel):
    n, r = q.shape
    s = np.zeros((n, n))
    for i, j in reads:
        if kernel == "softmax":
            s[i, j] = np.exp(q[i] @ k[j] / np.sqrt(r))
        else:
            phi = lambda v: np.where(v > 0, v + 1, np.exp(v))  # noqa: E731 - elu(v) + 1
            s[i, j] = phi(q[i]) @ phi(k[j])
    return s / s.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("kernel", ["softmax", "linear"])
def test_attention(tmp_path, rng, kernel):
    heads, r, seed = 2, 3, 1
    x = rng.standard_normal((N, 4))
    q = rng.standard_normal((N, heads * r))
    k = rng.standard_normal((N, heads * r))
    p = mixgraph.Pattern("pow2", N)
    (ra, _), (rb, _) = masks(p, seed)
    wb = rng.uniform(-0.5, 0.5, (heads, len(rb))) / 4

    def att(h, b):
        cols = slice(h * r, (h + 1) * r)
        return attention_matrix(ra, q[:, cols], k[:, cols], kernel), b(h)

    files = {"attn_q": q, "attn_k": k, "attn_kernel": kernel}
    check(tmp_path, "pow2", x, heads, files, lambda h: att(h, lambda h: masks(p, seed + h)[1][1]))
    files["weights_b"] = wb
    check(tmp_path, "pow2", x, heads, files, lambda h: att(h, lambda h: dense_from(rb, N, wb[h], False)))


def test_float32_and_converted_arrays(rng):
    p = mixgraph.Pattern("ssm", N)
    x = rng.standard_normal((N, 2)).astype(np.float32)
    g = rng.uniform(0, 0.9, (N, 2))
    y64 = mixgraph.solve(p, x, gates=g)
    y32 = mixgraph.solve(p, x, gates=g.astype(np.float32))
    assert y64.dtype == np.float32
    np.testing.assert_allclose(y64, y32, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(mixgraph.solve(p, x, gates=np.asfortranarray(g)), y64)  # converted
    np.testing.assert_array_equal(mixgraph.solve(p, x, gates=g.tolist()), y64)  # a list: converted


def test_bad_weights(tmp_path, rng):
    p = mixgraph.Pattern("pow2", N)
    x = rng.standard_normal((N, 2))
    with pytest.raises(mixgraph.InputError, match="fits neither"):
        mixgraph.solve(p, x, weights_a=np.ones((1, 5)))
    with pytest.raises(mixgraph.InputError, match="need one per head"):
        mixgraph.solve(p, x, heads=2, weights_b=np.ones((1, 3)))
    bad = np.ones((1, len(masks(p, 1)[1][0])))
    bad[0, 2] = np.nan
    f = tmp_path / "bad.npy"
    np.save(f, bad)
    with pytest.raises(mixgraph.InputError, match="row 1, column 3 .* nan"):
        mixgraph.solve(p, x, weights_b=bad)
    with pytest.raises(mixgraph.InputError, match="bad.npy: row 1, column 3"):
        mixgraph.solve(p, x, weights_b=f)
    with pytest.raises(mixgraph.UsageError, match="first-order"):
        mixgraph.solve(p, x, gates=np.ones((N, 2)))
    ssm = mixgraph.Pattern("ssm", N)
    with pytest.raises(mixgraph.InputError, match="need \\(n, d\\)"):
        mixgraph.solve(ssm, x, gates=np.ones((N, 3)))
    # the gates' heads rule in Python's own names (the CLI says --gates / --heads)
    with pytest.raises(mixgraph.UsageError, match=r"^gates make every column its own head: heads must be 2 \(X's"):
        mixgraph.solve(ssm, x, heads=3, gates=np.ones((N, 2)))
    with pytest.raises(mixgraph.UsageError, match=r"^X has 2 columns, not a multiple of heads = 3$"):
        mixgraph.solve(p, x, heads=3, weights_b=np.ones((3, 1)))
    with pytest.raises(mixgraph.UsageError, match="not both"):
        mixgraph.solve(ssm, x, gates=np.ones((N, 2)), weights_b=np.ones((2, 1)))
    # the attention checks in Python's own names (the CLI says --attn-q / --weights-a / --attn-kernel)
    with pytest.raises(mixgraph.UsageError, match=r"^attn_q and attn_k go together \(queries and keys\)$"):
        mixgraph.solve(p, x, attn_q=np.ones((N, 2)))
    with pytest.raises(mixgraph.UsageError, match=r"^attn_q / attn_k set A's weights: give them or weights_a / "
                       r"gates / input_gates, not both \(weights_b combines with them\)$"):
        mixgraph.solve(p, x, attn_q=np.ones((N, 2)), attn_k=np.ones((N, 2)), weights_a=np.ones((1, 3)))
    with pytest.raises(mixgraph.UsageError, match=r"^attn_kernel must be softmax or linear \(got 'cosine'\)$"):
        mixgraph.solve(p, x, attn_q=np.ones((N, 2)), attn_k=np.ones((N, 2)), attn_kernel="cosine")
    with pytest.raises(mixgraph.UsageError, match="2-D"):
        mixgraph.solve(p, x, weights_a=np.ones(3))
    with pytest.raises(mixgraph.InputError):
        mixgraph.solve(p, x, weights_a=tmp_path / "missing.npy")
    for e in (mixgraph.UsageError, mixgraph.InputError):
        assert issubclass(e, ValueError)


def test_validate_with_weights(tmp_path, rng):
    """validate's checks run with the user's weights (arrays saved to .npy, paths as given)."""
    g = rng.uniform(0, 0.9, (64, 3))
    v = mixgraph.validate("ssm", 64, backend="cpu", heads=3, gates=g)
    assert v.all_passed
    with pytest.raises(mixgraph.UsageError, match=r"^gates / input_gates: give heads=D, the gates' columns"):
        mixgraph.validate("ssm", 64, backend="cpu", gates=g)
    assert any("weights from files" in c["name"] for c in v.checks)
    f = tmp_path / "g.npy"
    np.save(f, g)
    assert [c["detail"] for c in mixgraph.validate("ssm", 64, backend="cpu", heads=3, gates=f).checks] == [
        c["detail"] for c in v.checks
    ]
    q = rng.standard_normal((64, 4))
    va = mixgraph.validate("pow2", 64, backend="cpu", attn_q=q, attn_k=q, attn_kernel="linear")
    assert va.all_passed and any("attention" in c["name"] for c in va.checks)
