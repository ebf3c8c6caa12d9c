"""Hostile input through the Python package: user weight arrays (weights_a / weights_b / gates /
input_gates / attn_q / attn_k) of the wrong dtype, rank or shape, not contiguous, not finite, and stack:
specs that are empty, too deep, too nested or too large. Each raises the package's UsageError / InputError
(ValueError) or MemoryRefused with the CLI's message for the same input (the CLI is the reference: the
arrays are saved to .npy and the same command is run), never a crash or a silent cast; arrays that are
only laid out differently give the Y of their C-contiguous float64 copy."""

import subprocess

import numpy as np
import pytest

from conftest import cli_path, mixgraph

N = 16


def cli_error(*args):
    """The CLI's exit code and its one-line message without the 'mixgraph: error: ' prefix."""
    path = cli_path()
    if path is None:
        pytest.skip("the mixgraph CLI is not built (set MIXGRAPH_CLI)")
    out = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
    first = out.stderr.splitlines()[0] if out.stderr else ""
    return out.returncode, first.removeprefix("mixgraph: error: ")


@pytest.fixture
def x():
    return np.random.default_rng(7).standard_normal((N, 2))


@pytest.mark.parametrize("bad, match", [
    (np.ones(N), "2-D"),
    (np.ones((N, 4, 1)), "2-D"),
    (np.ones((N, 4), dtype=np.complex128), "dtype complex128 is not supported"),
    (np.array([[None] * 4] * N), "dtype object is not supported"),
    (np.array([["a"] * 4] * N), "is not supported"),
    ([[1.0, 2.0], [3.0]], "not an array of numbers|is not supported"),
])
@pytest.mark.parametrize("name", ["attn_q", "attn_k"])
def test_attention_arrays_of_the_wrong_kind(x, bad, match, name):
    p = mixgraph.Pattern("window:4", N)
    kw = {"attn_q": np.ones((N, 4)), "attn_k": np.ones((N, 4))}
    kw[name] = bad
    with pytest.raises(mixgraph.UsageError, match=match):
        mixgraph.solve(p, x, **kw)


@pytest.mark.parametrize("name", ["gates", "input_gates"])
def test_gate_arrays_of_the_wrong_kind(x, name):
    p = mixgraph.Pattern("ssm", N)
    for bad, match in ((np.full(2 * N, 0.5), "2-D"), (np.full((N, 2), 0.5 + 1j), "complex128"),
                       (np.array([[None, None]] * N), "object")):
        with pytest.raises(mixgraph.UsageError, match=match):
            mixgraph.solve(p, x, **{name: bad})


def test_attention_values_and_shapes_give_the_cli_message(tmp_path, x):
    """Non-finite entries, rows that are not n, Q and K of other widths: InputError with the CLI's text."""
    q = np.random.default_rng(1).standard_normal((N, 4))
    k = np.random.default_rng(2).standard_normal((N, 4))
    qnan = q.copy()
    qnan[5, 2] = np.nan
    kinf = k.astype(np.float32)
    kinf[15, 0] = np.inf
    cases = [(qnan, k), (q, kinf), (q[:8], k), (q, k[:, :3]), (np.ones((N, 0)), np.ones((N, 0)))]
    p = mixgraph.Pattern("window:4", N)
    for i, (qq, kk) in enumerate(cases):
        np.save(tmp_path / f"q{i}.npy", qq)
        np.save(tmp_path / f"k{i}.npy", kk)
        code, want = cli_error("solve", "-p", "window:4", "--random", 2, "-n", N, "--attn-q", tmp_path / f"q{i}.npy",
                               "--attn-k", tmp_path / f"k{i}.npy")
        assert code == 3, want
        with pytest.raises(mixgraph.InputError) as e:
            mixgraph.solve(p, x, attn_q=qq, attn_k=kk)
        assert str(e.value) == want
        with pytest.raises(mixgraph.InputError) as e:  # the paths, read as the CLI reads them
            mixgraph.solve(p, x, attn_q=tmp_path / f"q{i}.npy", attn_k=tmp_path / f"k{i}.npy")
        assert str(e.value) == want


@pytest.mark.parametrize("name, option, pattern, shape", [
    ("gates", "--gates", "ssm", (N, 2)),
    ("input_gates", "--input-gates", "ssm", (N, 2)),
    ("weights_b", "--weights-b", "pow2", (1, 4)),
    ("weights_a", "--weights-a", "pow2", (1, 5)),
])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_weights_give_the_cli_message(tmp_path, x, name, option, pattern, shape, value):
    w = np.full(shape, 0.25)
    w[-1, 1] = value
    f = tmp_path / "w.npy"
    np.save(f, w)
    code, want = cli_error("solve", "-p", pattern, "--random", 2, "-n", N, option, f)
    assert code == 3, want
    # the CLI names the option and the file, Python the keyword; the rest is the same text
    assert want.startswith(f"{option} {f}: ")
    with pytest.raises(mixgraph.InputError) as e:
        mixgraph.solve(mixgraph.Pattern(pattern, N), x, **{name: w})
    assert str(e.value) == f"{name}: " + want.removeprefix(f"{option} {f}: ")


def test_layouts_and_integer_arrays_give_the_contiguous_result(x):
    """Non-contiguous, Fortran-order, float32 and integer arrays: the Y of the C-contiguous float64 copy."""
    ssm = mixgraph.Pattern("ssm", N)
    g = np.random.default_rng(3).uniform(0, 0.9, (N, 4))
    want = mixgraph.solve(ssm, x, gates=np.ascontiguousarray(g[:, ::2]))
    np.testing.assert_array_equal(mixgraph.solve(ssm, x, gates=g[:, ::2]), want)
    np.testing.assert_array_equal(mixgraph.solve(ssm, x, gates=np.asfortranarray(g[:, ::2])), want)
    ones = np.ones((N, 2), dtype=np.int64)
    np.testing.assert_array_equal(mixgraph.solve(ssm, x, gates=ones), mixgraph.solve(ssm, x, gates=np.ones((N, 2))))
    p = mixgraph.Pattern("window:4", N)
    q = np.random.default_rng(4).standard_normal((N, 8))
    k = np.random.default_rng(5).standard_normal((N, 4))
    want = mixgraph.solve(p, x, attn_q=np.ascontiguousarray(q[:, ::2]), attn_k=k)
    np.testing.assert_array_equal(mixgraph.solve(p, x, attn_q=q[:, ::2], attn_k=k), want)
    np.testing.assert_array_equal(mixgraph.solve(p, x, attn_q=q[:, ::2].tolist(), attn_k=np.asfortranarray(k)), want)


@pytest.mark.parametrize("spec, n, mem_limit, exc", [
    ("stack:", 64, None, mixgraph.UsageError),
    ("stack:(ssm)*1000000", 64, None, mixgraph.UsageError),
    ("stack:((ssm)*1000)*1000", 64, None, mixgraph.UsageError),
    ("stack:" + "(" * 20 + "ssm" + ")*2" * 20, 64, None, mixgraph.UsageError),
    ("stack:" + ",".join(["ssm"] * 5000), 64, None, mixgraph.UsageError),
    ("stack:ssm;heads:ssm;pow2", 64, None, mixgraph.UsageError),
    ("stack:ssm;window:4@B", 64, None, mixgraph.UsageError),
    ("stack:ssm,(", 64, None, mixgraph.UsageError),
    ("stack:dense,ssm", 2 ** 31, "1G", mixgraph.MemoryRefused),
])
def test_bad_stacks_give_the_cli_message(spec, n, mem_limit, exc):
    args = ["pattern", "-p", spec, "-n", n] + (["--mem-limit", mem_limit] if mem_limit else [])
    code, want = cli_error(*args)
    assert code == (1 if exc is mixgraph.MemoryRefused else 2), want
    with pytest.raises(exc) as e:
        mixgraph.stack(spec, n, mem_limit=mem_limit)
    assert str(e.value) == want


def test_stack_ranks_refuse_before_allocating():
    """The exact, flow and dense ranks of a stack estimate their memory first (the CLI's refusal)."""
    for spec, n, method, limit in (("stack:ssm,window:4", 2 ** 20, "exact", "150M"),
                                   ("stack:ssm,window:4", 2 ** 22, "flow", "500M"),
                                   ("stack:(dense)*4096", 1024, "dense", "1G")):
        code, want = cli_error("rank", "-p", spec, "-n", n, "--method", method, "--mem-limit", limit)
        assert code == 1 and "refused before allocating" in want, want
        with pytest.raises(mixgraph.MemoryRefused) as e:
            mixgraph.rank(spec, n, method=method, mem_limit=limit)
        assert str(e.value) == want
