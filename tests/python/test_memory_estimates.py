"""Memory estimates before allocation for unions, heads and stacks: a spec whose estimate is above mem_limit
is refused at once (no part is built first: little time, a small peak), through the Python package and
through the CLI; and the estimate is never below what the built pattern really uses (its CSR arrays from
nnz_A / nnz_B, and the peak memory a build adds, measured in a child process)."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

mixgraph = pytest.importorskip("mixgraph", reason="the mixgraph Python package is not built / not on PYTHONPATH")
from conftest import child_env, cli_path  # noqa: E402

SINKS = "|".join(f"sink:{k}" for k in range(100, 0, -1))  # 100 explicit parts, about 400 MB when built at 20000
SPECS_LARGE = [
    (SINKS, 20000),
    ("heads:" + ";".join(f"sink:{k}" for k in range(100, 0, -1)), 20000),
    ("pow2|" + SINKS, 20000),
]


def estimate(spec, n):
    """The bytes the package estimates for spec at n, read from its refusal at a 1-byte limit (no build)."""
    with pytest.raises(mixgraph.MemoryRefused) as e:
        mixgraph.Pattern(spec, n, mem_limit=1)
    m = re.search(r"needs about ([0-9.]+) (B|KiB|MiB|GiB)", str(e.value))
    assert m, str(e.value)
    unit = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m.group(2)]
    return float(m.group(1)) * unit


CHILD = textwrap.dedent(
    r"""
    import json, resource, sys, time
    import mixgraph
    spec, n, limit = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.monotonic()
    try:
        if limit == "-":
            mixgraph.Pattern(spec, n)
        else:
            mixgraph.Pattern(spec, n, mem_limit=limit)
        what = "built"
    except mixgraph.MemoryRefused:
        what = "refused"
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"what": what, "seconds": time.monotonic() - t, "added_bytes": (after - before) * 1024}))
    """
)


def child(spec, n, limit):
    r = subprocess.run([sys.executable, "-c", CHILD, spec, str(n), limit], env=child_env(), capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.splitlines()[-1])


@pytest.mark.parametrize("spec,n", SPECS_LARGE, ids=["union", "heads", "union_with_offsets"])
def test_python_refuses_before_building(spec, n):
    out = child(spec, n, "64M")
    assert out["what"] == "refused", out
    assert out["seconds"] < 0.5, out  # building the parts first takes about a second and 400 MB
    assert out["added_bytes"] < 32 << 20, out


def test_distances_and_congestion_take_mem_limit_before_building():
    for call in (lambda: mixgraph.distances(SINKS, 20000, summary=True, mem_limit="64M"),
                 lambda: mixgraph.congestion(SINKS, 10000, mem_limit="64M")):
        t = time.monotonic()
        with pytest.raises(mixgraph.MemoryRefused):
            call()
        assert time.monotonic() - t < 0.5


@pytest.mark.parametrize("spec,n", SPECS_LARGE[:1], ids=["union"])
def test_estimate_covers_the_peak_of_a_build(spec, n):
    est = estimate(spec, n)
    out = child(spec, n, "-")
    assert out["what"] == "built"
    assert out["added_bytes"] <= est, (out["added_bytes"], est)


SMALL = [
    "sink:4|window:8",
    "sink:7|pow2",
    "global:3|sq1|block:16",
    "bigbird:8,2,2|sink:5",
    "window:8@A|sink:4@B",
    "pow2+cache|sink:3",
    "heads:pow2;sink:5",
    "heads:pow2;pow2+cache",
    "heads:sink:3|window:4;block:8;fib",
    "heads:sink:9;sink:8;sink:7",
]


@pytest.mark.parametrize("spec", SMALL)
@pytest.mark.parametrize("n", [300, 2048])
def test_estimate_is_at_least_the_built_arrays(spec, n):
    """The estimate is at least the built pattern's CSR arrays (4 bytes per read, 8 per row pointer)."""
    p = mixgraph.Pattern(spec, n)
    csr = 4 * (p.nnz_A + p.nnz_B) + 2 * 8 * (n + 1)
    est = estimate(spec, n)  # never 0: the cache profile's arrays are always counted
    if p.family != "translation-invariant":  # else the reads are implicit (offsets only)
        assert est >= csr, (p.family, est, csr)


def time_v(args):
    """(exit status, stderr, peak KB) of args run under /usr/bin/time."""
    r = subprocess.run(["/usr/bin/time", "-f", "PEAK %M", *args], capture_output=True, text=True, timeout=120)
    peak = int(re.search(r"PEAK (\d+)", r.stderr).group(1))
    return r.returncode, r.stderr, peak


@pytest.mark.skipif(cli_path() is None, reason="the mixgraph CLI is not built (set MIXGRAPH_CLI)")
@pytest.mark.skipif(not shutil.which("/usr/bin/time"), reason="/usr/bin/time (GNU time) is not installed")
@pytest.mark.parametrize(
    "args",
    [
        ["pattern", "-p", SINKS, "-n", "20000"],
        ["pattern", "-p", "stack:" + SINKS + ",pow2", "-n", "20000"],
        ["distances", "-p", SINKS, "-n", "20000", "--summary"],
        ["rank", "-p", SINKS, "-n", "20000"],
    ],
    ids=["pattern", "stack", "distances", "rank"],
)
def test_cli_refuses_before_building(args):
    t = time.monotonic()
    rc, err, peak = time_v([cli_path(), *args, "--mem-limit", "64M"])
    assert rc == 1 and "refused before allocating" in err, err[-500:]
    assert time.monotonic() - t < 1.0
    assert peak < 48 << 10, f"peak {peak} KB"
