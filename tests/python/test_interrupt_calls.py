"""Ctrl-C in the long calls of the package: each call runs in a child interpreter that sends itself SIGINT
once the call is under way; KeyboardInterrupt must come within a second of the signal and the work must stop
(the process's CPU time stops growing: no worker or OpenMP thread keeps computing).

Each call is sized to run for several seconds on a 2-core machine, so that a call which ignored the signal
until its end would fail the latency bound; the child is killed after CHILD_TIMEOUT seconds either way."""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import pytest

mixgraph = pytest.importorskip("mixgraph", reason="the mixgraph Python package is not built / not on PYTHONPATH")

from conftest import child_env  # noqa: E402

LATE_MAX = 1.0  # seconds from SIGINT to KeyboardInterrupt (the promise of docs/python.md)
# CPU seconds the process may use in the 0.6 s after KeyboardInterrupt (a thread left working: up to 0.6 each)
BURN_MAX = 0.15
CHILD_TIMEOUT = 60


CHILD = textwrap.dedent(
    r"""
    import json, os, resource, signal, sys, threading, time
    import numpy as np
    import mixgraph

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    setup = {}
    exec(sys.argv[2], {"mixgraph": mixgraph, "np": np}, setup)
    call = eval("lambda: " + sys.argv[1], {"mixgraph": mixgraph, "np": np, **setup})
    delay = float(sys.argv[3])
    sent = []

    def fire():
        time.sleep(delay)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=fire, daemon=True).start()
    t0 = time.monotonic()
    try:
        call()
        out = {"finished": time.monotonic() - t0}
    except KeyboardInterrupt:
        late = time.monotonic() - sent[0]
        c0 = cpu()
        time.sleep(0.6)
        out = {"late": late, "burn": cpu() - c0, "threads": len(os.listdir("/proc/self/task"))}
    print(json.dumps(out), flush=True)
    os._exit(0)  # not waiting for work left running (the package waits for it at exit): measured above
    """
)

# (id, call, setup, delay before SIGINT in seconds)
CASES = [
    ("distances_all_pairs", "mixgraph.distances('sq1+cache', 100000, all_pairs=True, summary=True)", "", 0.8),
    ("congestion", "mixgraph.congestion('sq1+cache', 20000)", "", 0.8),
    ("path_lengths_all_pairs", "mixgraph.path_lengths(['sq1+cache'], '32768', all_pairs=True)", "", 0.8),
    ("pattern_construction", "mixgraph.Pattern('sq1+cache', 2**20)", "", 0.8),
    ("pattern_union", "mixgraph.Pattern('sink:4|pow2', 2**23)", "", 0.5),
    (
        "solve_weights",
        "mixgraph.solve(p, x, heads=4)",
        "p = mixgraph.Pattern('sq1+cache', 2**17)\nx = np.ones((2**17, 64), dtype=np.float32)",
        0.3,
    ),
    (  # the weights of an explicit pattern: copies of its rows, then the seeded coefficients
        "solve_weights_rows",
        "mixgraph.solve(p, x, heads=8)",
        "p = mixgraph.Pattern('sink:64', 2**19)\nx = np.ones((2**19, 8), dtype=np.float32)",
        0.1,
    ),
    # the lazily computed cache profile: O(n) on a translation-invariant pattern (built at once), 2 to 6 s
    ("max_cache", "p.max_cache", "p = mixgraph.Pattern('pow2', 2**27)", 0.5),
    ("decode_cost", "p.decode_cost()", "p = mixgraph.Pattern('pow2', 2**27)", 0.5),
    # one cut of the exact rank (elimination over GF(2^61 - 1)): 16 s uninterrupted at n = 4096
    ("rank_exact_one_cut", "mixgraph.rank('sq1', 4096, cuts=[2048], method='exact')", "", 0.8),
    # one dense cut (the operator, then a column-pivoted QR of a 2048 x 2048 block of full rank): 3 CPU s
    ("rank_dense_one_cut", "mixgraph.rank('sq1', 4096, cuts=[2048], method='dense')", "", 0.5),
    # one sketched cut (blocks of random columns doubling up to 1024, each projected and orthonormalised):
    # 4 CPU s
    ("rank_sketch_one_cut", "mixgraph.rank('sq1', 4096, cuts=[2048], method='sketch')", "", 0.5),
]

# calls that need an optional module (skipped with the reason where it is missing)
OPTIONAL = [
    ("weights", "p.weights()", "p = mixgraph.Pattern('sq1', 2**18)", 0.5, "scipy"),
    (  # the gradients of mixgraph.torch's op on CPU (the forward is in the setup)
        "torch_backward",
        "Y.backward(G)",
        "import torch\nimport mixgraph.torch as mt\np = mixgraph.Pattern('sq1', 2**16)\n"
        "X = torch.randn(2**16, 64, dtype=torch.float64, requires_grad=True)\nY = mt.mix(p, X)\n"
        "G = torch.ones_like(Y)",
        0.5,
        "torch",
    ),
]
PARAMS = [pytest.param(*c[1:], id=c[0]) for c in CASES] + [
    pytest.param(*c[1:4], id=c[0],
                 marks=pytest.mark.skipif(importlib.util.find_spec(c[4]) is None, reason=f"{c[4]} is not installed"))
    for c in OPTIONAL
]


def run_child(call, setup, delay):
    env = child_env(OMP_NUM_THREADS="2")
    r = subprocess.run(
        [sys.executable, "-c", CHILD, call, setup, str(delay)],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        env=env,
    )
    lines = [line for line in r.stdout.splitlines() if line.startswith("{")]
    assert lines, f"child failed (rc {r.returncode}): {r.stderr[-2000:]}"
    return json.loads(lines[-1])


@pytest.mark.parametrize("call,setup,delay", PARAMS)
def test_ctrl_c_stops_within_a_second(call, setup, delay):
    out = run_child(call, setup, delay)
    # the call must still have been running when the signal came (else the case proves nothing)
    assert "finished" not in out, f"{call} finished in {out.get('finished'):.2f} s, before the signal"
    assert out["late"] < LATE_MAX, f"{call}: KeyboardInterrupt {out['late']:.2f} s after SIGINT"
    assert out["burn"] < BURN_MAX, f"{call}: {out['burn']:.2f} CPU s used after KeyboardInterrupt (work left running)"
