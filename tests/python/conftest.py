"""Shared fixtures of the Python package's tests: the CLI to compare with, and the pattern families."""

import json
import os
import pathlib
import subprocess

import pytest

mixgraph = pytest.importorskip("mixgraph", reason="the mixgraph Python package is not built / not on PYTHONPATH")

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADER = ("schema", "mixgraph_version", "command", "parameters")


def cli_path():
    p = os.environ.get("MIXGRAPH_CLI") or str(ROOT / "build" / "tools" / "mixgraph")
    return p if os.path.exists(p) else None


def child_env(**extra):
    """The environment of a child interpreter that imports this same package (PYTHONPATH made absolute)."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(mixgraph.__file__)))
    path = os.pathsep.join([pkg, os.environ.get("PYTHONPATH", "")])
    return dict(os.environ, PYTHONPATH=path, **extra)


@pytest.fixture(scope="session")
def cli():
    """run(args) -> the CLI's JSON output without the header fields (skips when the CLI is not built)."""
    path = cli_path()
    if path is None:
        pytest.skip("the mixgraph CLI is not built (set MIXGRAPH_CLI)")

    def run(*args):
        out = subprocess.run([path, *map(str, args), "--format", "json"], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        j = json.loads(out.stdout)
        for k in HEADER:
            j.pop(k, None)
        return j

    run.path = path
    return run


def write_mtx(path, n, entries):
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{n} {n} {len(entries)}\n")
        for i, j, v in entries:
            f.write(f"{i} {j} {v}\n")
    return str(path)


@pytest.fixture(scope="session")
def mtx_specs(tmp_path_factory):
    """mtx:B.mtx and mtx:A.mtx,B.mtx specs on n = 40 (B strictly lower, A with the diagonal)."""
    d = tmp_path_factory.mktemp("mtx")
    n = 40
    b = [(i, j, 0.5 / (1 + (i + j) % 3)) for i in range(2, n + 1) for j in (i - 1, i - 3, i // 2) if 1 <= j < i]
    b = sorted(set(b), key=lambda e: (e[1], e[0]))
    a = [(i, i, 1.0) for i in range(1, n + 1)] + [(i, i - 2, 0.25) for i in range(3, n + 1)]
    bp = write_mtx(d / "B.mtx", n, b)
    ap = write_mtx(d / "A.mtx", n, a)
    return [f"mtx:{bp}", f"mtx:{ap},{bp}"]


def family_specs():
    """One spec per pattern family and named pattern (expr: only when muParser is built in)."""
    specs = ["pow2", "pow:3", "sq1", "sq", "fib", "window:4", "ssm", "dense", "local:3", "attention",
             "offsets:1,5,6", "pow2+cache", "sq1+cache", "fib+cache", "offsets:1,5,6+cache"]
    try:
        mixgraph.Pattern("expr:k^2+1", 8)
        specs.append("expr:k^2+1")
    except mixgraph.RuntimeFailure:
        pass
    return specs


@pytest.fixture(scope="session")
def all_specs(mtx_specs):
    return family_specs() + mtx_specs
