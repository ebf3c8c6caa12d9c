"""Progress inside the sweeps (pattern, congestion, distances): one callback per point with increasing
fractions, the same results as without a callback, and a KeyboardInterrupt (from the callback or SIGINT)
that stops the sweep at its next point."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import mixgraph


def record():
    seen = []

    def cb(stage, done, total):
        seen.append((stage, done, total))
    return seen, cb


def check_points(seen, points, word):
    assert len(seen) >= points, seen
    fractions = [d / t for _, d, t in seen]
    assert fractions == sorted(fractions) and len(set(fractions)) == len(fractions), seen
    assert seen[-1][1] == seen[-1][2] == points, seen
    assert all(word in s for s, _, _ in seen), seen


def test_pattern_sweep_reports_every_n():
    seen, cb = record()
    r = mixgraph.pattern_sweep("pow2+cache", "1024..65536", progress=cb)
    ns = [row["n"] for row in r.sweep]
    assert ns == [1024 << k for k in range(7)]
    check_points(seen, len(ns), "pow2+cache")
    assert [s.split("n = ")[1] for s, _, _ in seen] == [str(n) for n in ns]
    assert r.fits == mixgraph.pattern_sweep("pow2+cache", "1024..65536").fits


def test_congestion_sweep_reports_every_row():
    seen, cb = record()
    r = mixgraph.congestion_sweep(["pow2", "sq1"], "8..64", progress=cb)
    check_points(seen, 8, "N = ")
    assert [s for s, _, _ in seen][:2] == ["congestion pow2 N = 8", "congestion pow2 N = 16"]
    plain = mixgraph.congestion_sweep(["pow2", "sq1"], "8..64")
    key = ("pattern", "copy_length", "copy_distance", "lower_bound", "congestion")
    assert [[row[k] for k in key] for row in r.rows] == [[row[k] for k in key] for row in plain.rows]
    assert [row["copy_length"] for row in r.rows] == [8, 16, 32, 64] * 2


def test_path_lengths_reports_every_row():
    seen, cb = record()
    r = mixgraph.path_lengths(["pow2", "sq1"], "1024..16384", progress=cb)
    check_points(seen, 10, "distances ")
    assert seen[4][0] == "distances pow2 n = 16384" and seen[5][0] == "distances sq1 n = 1024"
    assert r.to_dict() == mixgraph.path_lengths(["pow2", "sq1"], "1024..16384").to_dict()


def test_progress_true_in_a_sweep(capfd):
    mixgraph.pattern_sweep("pow2", "64..256", progress=True)  # tqdm bar or one line per point on stderr
    assert "pattern" in capfd.readouterr().err


@pytest.mark.parametrize("call", [
    lambda cb: mixgraph.pattern_sweep("sq1+cache", "4096..4194304", progress=cb),
    lambda cb: mixgraph.congestion_sweep(["sq1"], "64..65536", progress=cb),
    lambda cb: mixgraph.path_lengths(["sq1", "pow2"], "4096..4194304", progress=cb),
], ids=["pattern", "congestion", "distances"])
def test_keyboard_interrupt_from_the_callback_stops_the_sweep(call):
    calls = []

    def stop_at_second(stage, done, total):
        calls.append(done)
        if done == 2:
            raise KeyboardInterrupt
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        call(stop_at_second)
    assert time.monotonic() - t0 < 60
    assert calls == [1, 2]
    # the interrupted sweep stopped at its next point: had it run on to its large points, this call would
    # wait for it (one command at a time) or compete with it for the cores
    t1 = time.monotonic()
    assert mixgraph.pattern_sweep("pow2", "64..128").sweep[0]["n"] == 64
    assert time.monotonic() - t1 < 5


CHILD = textwrap.dedent("""
    import sys, time
    import mixgraph
    print("ready", flush=True)
    try:
        if sys.argv[1] == "congestion":
            mixgraph.congestion_sweep(["sq1", "pow2"], "64..1048576")
        else:
            # 1200 points of ~4M tokens: each point is short (the interrupt is seen within a second)
            # and the sweep long (tens of seconds even on a fast machine; a doubling sweep to 2^24
            # ended in under a second and raced the signal)
            mixgraph.path_lengths(["sq1", "pow2"], ",".join(str(4194304 - i) for i in range(600)))
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", time.monotonic(), flush=True)
    t = time.monotonic()
    mixgraph.pattern_sweep("pow2", "64..128")  # waits for the interrupted sweep if it kept running
    print("next", time.monotonic() - t, flush=True)
""")


@pytest.mark.parametrize("what", ["congestion", "distances"])
def test_sigint_inside_a_sweep(what):
    proc = subprocess.Popen([sys.executable, "-c", CHILD, what], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ))
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(1.5)  # inside the sweep
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    line = proc.stdout.readline().split()
    assert line and line[0] == "interrupted", line
    assert float(line[1]) - sent < 1.0
    nxt = proc.stdout.readline().split()
    proc.wait(timeout=120)
    assert nxt and nxt[0] == "next", nxt
    # the sweep stopped at its next point (not at its end, tens of seconds away)
    assert float(nxt[1]) < 30, nxt
