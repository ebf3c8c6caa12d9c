"""`mixgraph solve` weights against numpy: the seeded generator re-implemented from docs/formats.md
("Seeded weights"), and the user's weight files (per offset, per position, ssm gates) solved densely in
float64 from the same files. Needs only numpy and the CLI (MIXGRAPH_CLI or build/tools/mixgraph)."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("MIXGRAPH_CLI") or str(ROOT / "build" / "tools" / "mixgraph")
if not os.path.exists(CLI):
    pytest.skip("the mixgraph CLI is not built (set MIXGRAPH_CLI)", allow_module_level=True)


# ---- the generator, as docs/formats.md writes it ----
def splitmix64(x):
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def stream_key(seed, head, matrix):  # matrix: 1 = B, 2 = A
    mixed = np.uint64((matrix * 0x632BE59BD9B4E019) % 2**64)
    return splitmix64(splitmix64(np.uint64(seed + head)) ^ mixed)


def seeded(seed, head, matrix, total, rows, cols, reads):
    """Weights of reads (rows[e], cols[e]) whose rows have reads[e] reads each."""
    ctr = (rows.astype(np.uint64) << np.uint64(32)) | cols.astype(np.uint64)
    z = splitmix64(stream_key(seed, head, matrix) ^ splitmix64(ctr))
    mag = ((z >> np.uint64(12)) | np.uint64(1 << 52)).astype(np.float64) * 2.0**-53
    sign = np.where((z & np.uint64(1)) == 1, -1.0, 1.0)
    return (total / reads.astype(np.float64)) * (sign * mag)


# ---- patterns from their definitions: reads of row i at j = i - o, CSR order (j ascending) ----
def offsets(spec, n):
    if spec == "pow2":
        return [1 << k for k in range(n.bit_length()) if (1 << k) < n]
    if spec == "window:3":
        return [1, 2, 3]
    if spec == "ssm":
        return [1]
    raise ValueError(spec)


def csr_reads(offs, n):
    """rows, cols, reads-per-row for each entry, CSR order."""
    rows, cols, reads = [], [], []
    for i in range(n):
        js = sorted(i - o for o in offs if o <= i)
        rows += [i] * len(js)
        cols += js
        reads += [len(js)] * len(js)
    return np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64), np.array(reads, dtype=np.int64)


def a_offsets(spec, b_offs):
    return [0] if spec == "ssm" else [0] + b_offs


def run(*args):
    out = subprocess.run([CLI, *map(str, args), "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def dense_solve(n, a_entries, b_entries, X):
    """(I - B)^{-1} A X, float64; entries: (rows, cols, values)."""
    A = np.zeros((n, n))
    B = np.zeros((n, n))
    A[a_entries[0], a_entries[1]] = a_entries[2]
    B[b_entries[0], b_entries[1]] = b_entries[2]
    return np.linalg.solve(np.eye(n) - B, A @ X)


@pytest.mark.parametrize("spec", ["pow2", "window:3", "ssm"])
@pytest.mark.parametrize("precision", ["fp64", "fp32"])
def test_seeded_weights_are_the_documented_generator(tmp_path, spec, precision):
    n, heads, seed = 70, 2, 7
    run("solve", "-p", spec, "--n", n, "--random", 4, "--heads", heads, "--seed", seed, "--precision",
        precision, "--backend", "cpu", "--save-weights", tmp_path / "w")
    bo = offsets(spec, n)
    for name, offs, matrix, total in (("B", bo, 1, 0.9), ("A", a_offsets(spec, bo), 2, 1.0)):
        saved = np.load(tmp_path / f"w.{name}.npy")
        r, c, k = csr_reads(offs, n)
        want = np.stack([seeded(seed, h, matrix, total, r, c, k) for h in range(heads)])
        assert saved.shape == want.shape
        if precision == "fp64":
            np.testing.assert_array_equal(saved, want)
        else:
            np.testing.assert_array_equal(saved, want.astype(np.float32))


@pytest.mark.parametrize("precision,tol", [("fp64", 1e-12), ("fp32", 2e-5)])
def test_weight_files_against_dense_numpy(tmp_path, precision, tol):
    rng = np.random.default_rng(5)
    n, heads, dh = 60, 2, 3
    d = heads * dh
    X = rng.standard_normal((n, d))
    np.save(tmp_path / "x.npy", X)
    for spec in ("pow2", "window:3"):
        bo = offsets(spec, n)
        ao = a_offsets(spec, bo)
        br, bc, _ = csr_reads(bo, n)
        ar, ac, _ = csr_reads(ao, n)
        # A per offset (heads, K_A), B per position (heads, nnz_B)
        wa = rng.uniform(-1, 1, (heads, len(ao))) / len(ao)
        wb = rng.uniform(-1, 1, (heads, len(br))) * 0.9 / len(bo)
        np.save(tmp_path / "a.npy", wa)
        np.save(tmp_path / "b.npy", wb)
        j = run("solve", "-p", spec, "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy", "--heads",
                heads, "--precision", precision, "--backend", "cpu", "--weights-a", tmp_path / "a.npy",
                "--weights-b", tmp_path / "b.npy", "--save-weights", tmp_path / "used")
        assert j["weights"] == "A per offset, B per position"
        Y = np.load(tmp_path / "y.npy")
        ref = np.empty((n, d))
        ao_of = {o: k for k, o in enumerate(ao)}
        for h in range(heads):
            av = np.array([wa[h, ao_of[r - c]] for r, c in zip(ar, ac)])
            ref[:, h * dh:(h + 1) * dh] = dense_solve(n, (ar, ac, av), (br, bc, wb[h]), X[:, h * dh:(h + 1) * dh])
        err = np.linalg.norm(Y - ref) / np.linalg.norm(ref)
        assert err < tol, (spec, err)
        # the weights the run used, in the layout given
        np.testing.assert_allclose(np.load(tmp_path / "used.A.npy"), wa, rtol=1e-7 if precision == "fp32" else 0)
        np.testing.assert_allclose(np.load(tmp_path / "used.B.npy"), wb, rtol=1e-7 if precision == "fp32" else 0)


@pytest.mark.parametrize("precision,tol", [("fp64", 1e-12), ("fp32", 2e-5)])
def test_ssm_gates_against_dense_numpy(tmp_path, precision, tol):
    rng = np.random.default_rng(8)
    n, d = 80, 5
    X = rng.standard_normal((n, d))
    G = rng.uniform(0.5, 0.99, (n, d))  # decay gates
    U = rng.uniform(0.1, 1.0, (n, d))  # input gates
    for name, arr in (("x", X), ("g", G), ("u", U)):
        np.save(tmp_path / f"{name}.npy", arr)
    for with_input in (False, True):
        args = ["solve", "-p", "ssm", "--input", tmp_path / "x.npy", "--output", tmp_path / "y.npy", "--precision",
                precision, "--backend", "cpu", "--gates", tmp_path / "g.npy"]
        if with_input:
            args += ["--input-gates", tmp_path / "u.npy"]
        j = run(*args)
        assert j["heads"] == d
        Y = np.load(tmp_path / "y.npy")
        ref = np.empty((n, d))
        rows = np.arange(1, n)
        for c in range(d):
            a = U[:, c] if with_input else np.ones(n)
            ref[:, c] = dense_solve(n, (np.arange(n), np.arange(n), a), (rows, rows - 1, G[1:, c]), X[:, [c]])[:, 0]
        err = np.linalg.norm(Y - ref) / np.linalg.norm(ref)
        assert err < tol, (with_input, err)


def test_bad_weight_file_is_a_data_error(tmp_path):
    np.save(tmp_path / "b.npy", np.zeros((1, 5)))
    args = ["solve", "-p", "pow2", "--n", 64, "--random", 2, "--backend", "cpu", "--weights-b", tmp_path / "b.npy"]
    out = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    assert out.returncode == 3, out.stderr
    assert "per position" in out.stderr and "per offset" in out.stderr


def test_rank_with_weight_files_against_numpy(tmp_path):
    """`rank --weights-a/-b` (one head): dense numeric cut ranks == numpy ranks of M = (I - B)^{-1} A."""
    rng = np.random.default_rng(11)
    n = 40
    bo = offsets("pow2", n)
    ao = a_offsets("pow2", bo)
    br, bc, _ = csr_reads(bo, n)
    ar, ac, _ = csr_reads(ao, n)
    wb = rng.uniform(-1, 1, (1, len(br))) * 0.9 / len(bo)
    wa = np.zeros((1, len(ao)))
    wa[0, 0] = 1.0  # A = I: per offset, only the diagonal
    np.save(tmp_path / "a.npy", wa)
    np.save(tmp_path / "b.npy", wb)
    j = run("rank", "-p", "pow2", "--n", n, "--method", "dense", "--weights-a", tmp_path / "a.npy", "--weights-b",
            tmp_path / "b.npy")
    assert j["weights"] == "file"
    B = np.zeros((n, n))
    B[br, bc] = wb[0]
    M = np.linalg.solve(np.eye(n) - B, np.eye(n))
    want = [int(np.linalg.matrix_rank(M[K:, :K], tol=1e-13 * np.abs(M).max() * n)) for K in j["cuts"]]
    assert j["cut_rank_numeric"] == want
