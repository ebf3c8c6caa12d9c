#!/usr/bin/env python3
"""Python call overhead of mixgraph.solve and mixgraph.distances against the C++ time of the same work.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--cli build/tools/mixgraph]

solve: the wall time of a repeated mixgraph.solve call (weights kept with the Pattern, Y written into
`out`) against the kernel time the library measures inside it (SolveInfo.seconds), the first call's time
(weights built), and the CLI's `solve --format json` (`seconds` = the kernel, `total_seconds` = pattern,
weights, X, solve). distances: the wall time of
mixgraph.distances(spec, n, summary=True) against the CLI's process wall time for the same figures (which
adds process start and JSON printing). Medians of --reps runs. A benchmark, not a test: numbers depend
on the machine and its load.
"""

import argparse
import json
import statistics
import subprocess
import time

import numpy as np

import mixgraph


def median_time(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default="build/tools/mixgraph")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--d", type=int, default=64)
    a = ap.parse_args()
    print(f"{'case':34} {'python s':>10} {'c++ s':>10} {'overhead':>9}")
    for spec, n in (("pow2", 100_000), ("pow2", 1_000_000), ("sq1+cache", 100_000)):
        p = mixgraph.Pattern(spec, n)
        X = np.random.default_rng(0).standard_normal((n, a.d), dtype=np.float32)
        out = np.empty_like(X)
        t0 = time.perf_counter()
        mixgraph.solve(p, X, out=out)
        first = time.perf_counter() - t0
        walls, kernels = [], []
        for _ in range(a.reps):  # the weights are kept with the Pattern: these calls pay the kernel
            t0 = time.perf_counter()
            _, info = mixgraph.solve(p, X, out=out, info=True)
            walls.append(time.perf_counter() - t0)
            kernels.append(info["seconds"])
        wall, k = statistics.median(walls), statistics.median(kernels)
        print(f"{'solve ' + spec + f' n={n} d={a.d}':34} {wall:10.4f} {k:10.4f} {100 * (wall - k) / k:8.1f}%"
              f"  (first call, weights built: {first:.4f} s)")
        cli = json.loads(subprocess.run([a.cli, "solve", "-p", spec, "-n", str(n), "--random", str(a.d),
                                         "--backend", "cpu", "--reps", str(a.reps), "--format", "json"],
                                        capture_output=True, text=True, check=True).stdout)
        print(f"{'  CLI: kernel / total':34} {'':10} {cli['seconds']:10.4f} total {cli['total_seconds']:.4f} s")
    for spec, n in (("pow2", 1_000_000), ("sq1", 1_000_000)):
        wall, _ = median_time(lambda: mixgraph.distances(spec, n, summary=True), a.reps)
        cli_wall, _ = median_time(lambda: subprocess.run([a.cli, "distances", "-p", spec, "-n", str(n), "--summary",
                                                          "--format", "json"], capture_output=True, check=True),
                                  a.reps)
        print(f"{'distances ' + spec + f' n={n}':34} {wall:10.4f} {cli_wall:10.4f} {100 * (wall - cli_wall) / cli_wall:8.1f}%"
              "  (c++ = CLI process wall)")


if __name__ == "__main__":
    main()
