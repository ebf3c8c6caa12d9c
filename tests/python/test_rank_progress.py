"""Progress inside rank's cut loops: one callback per cut (numeric, then flow) with the same results as
without a callback, and a KeyboardInterrupt (from the callback or SIGINT) that stops the loops at their
next cut instead of letting them run on in the background."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import mixgraph
from mixgraph import _core

# long enough to interrupt (many seconds of cuts, each one short); used by the interrupt tests below
LONG = ("pow2+cache", 1 << 14, 2000)


def per_cut(seen):
    return [e for e in seen if e[0].startswith("cut ranks: ")]


@pytest.mark.parametrize("method,numeric", [("both", "exact"), ("dense", "dense"), ("sketch", "sketch"),
                                            ("flow", None)])
def test_rank_reports_every_cut(method, numeric):
    seen = []
    r = mixgraph.rank("sq1+cache", 300, method=method, cuts="all",
                      progress=lambda s, d, t: seen.append((s, d, t)))
    cuts = 299
    loops = 2 if method == "both" else 1  # dense and sketch alone run no flow loop
    steps = per_cut(seen)
    # every count of finished cuts once, in order, over the numeric loop and then the flow loop
    assert [d for _, d, _ in steps] == list(range(1, cuts * loops + 1)), steps[:5]
    assert {t for _, _, t in steps} == {cuts * loops}
    names = [s for s, _, _ in steps]
    if numeric is not None:
        assert set(names[:cuts]) == {"cut ranks: " + numeric}
    if method in ("both", "flow"):
        assert set(names[-cuts:]) == {"cut ranks: flow"}
    # the stages are still reported around the cuts
    assert seen[0][0] == "cut ranks" and seen[-1][0] == "contrast"
    plain = mixgraph.rank("sq1+cache", 300, method=method, cuts="all")
    for key in ("cuts", "cut_rank_numeric", "cut_rank_flow"):
        a, b = r.to_dict()[key], plain.to_dict()[key]
        assert a == b, key


def cpu_while_idle(seconds=0.5):
    """CPU time this process uses while the main thread sleeps: work left running in the background."""
    cpu = time.process_time()
    time.sleep(seconds)
    return time.process_time() - cpu


def test_keyboard_interrupt_from_the_callback_stops_the_cut_loop():
    spec, n, cuts = LONG
    calls = []

    def stop_at_first_cut(stage, done, total):
        calls.append((stage, done))
        if stage.startswith("cut ranks: "):
            raise KeyboardInterrupt
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        mixgraph.rank(spec, n, cuts=cuts, progress=stop_at_first_cut)
    raised = time.monotonic()
    assert raised - t0 < 60
    assert calls[-1][0].startswith("cut ranks: ") and calls[-1][1] >= 1
    assert [c for c in calls if c[0].startswith("cut ranks: ")] == calls[-1:]
    # the loops stopped at their next cut: no worker computes on in the background (without the per-cut
    # stop the remaining cuts, many seconds of them, would keep the cores busy here)
    assert cpu_while_idle() < 0.15
    t1 = time.monotonic()
    _core._wait_for_interrupted_work()
    assert time.monotonic() - t1 < 1.0
    # and the package is usable again at once
    r = mixgraph.rank("pow2", 64)
    assert np.array_equal(r.cut_rank_flow, r.cut_rank_numeric)


CHILD = textwrap.dedent("""
    import sys, time
    import mixgraph
    spec, n, cuts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    started = []

    def cb(stage, done, total):
        if stage.startswith("cut ranks: ") and not started:
            started.append(done)
            print("started", flush=True)  # the parent sends SIGINT now: inside the cut loop
    t = time.monotonic()
    try:
        mixgraph.rank(spec, n, cuts=cuts, progress=cb)
        print("finished", time.monotonic() - t, flush=True)
    except KeyboardInterrupt:
        print("interrupted", time.monotonic(), flush=True)
    cpu = time.process_time()
    time.sleep(0.5)
    print("idle_cpu", time.process_time() - cpu, flush=True)
""")


def test_sigint_inside_the_cut_loop():
    spec, n, cuts = LONG
    proc = subprocess.Popen([sys.executable, "-c", CHILD, spec, str(n), str(cuts)], stdout=subprocess.PIPE,
                            text=True, env=dict(os.environ))
    assert proc.stdout.readline().strip() == "started"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    line = proc.stdout.readline().split()
    idle = proc.stdout.readline().split()
    proc.wait(timeout=120)
    assert line and line[0] == "interrupted", line
    assert float(line[1]) - sent < 1.0
    assert idle and idle[0] == "idle_cpu", idle
    assert float(idle[1]) < 0.15, idle
