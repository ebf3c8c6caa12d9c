#!/usr/bin/env python3
"""Per-call cost of mixgraph.solve on CUDA tensors against the kernel (device plans kept by the Mixer cache).

    PYTHONPATH=build/python /usr/bin/python3 bench/python_cuda_calls.py [--log2n 16] [--d 256] [--reps 10]

For each pattern (pow2, pow2+cache, sq1+cache, the union window:32|sink:4 and an mtx file of 16 reads per
row), fp32, one head, X and Y torch tensors on the GPU: the wall time of a repeated mixgraph.solve call
(the call returns once Y is written) against the kernel time it reports (info["seconds"]), the first call's
time (the device plan made), and the same for mixgraph.Mixer(device="cuda"). One JSON line per pattern;
ratio = call / kernel (target <= 1.25). Medians of --reps calls after the first. A benchmark, not a test.
"""

import argparse
import json
import os
import statistics
import tempfile
import time

import numpy as np

import mixgraph


def write_mtx(n, path):
    rng = np.random.default_rng(5)
    rows = []
    for i in range(1, n):
        cols = {i - 1} | set(rng.integers(0, i - 1, 15).tolist() if i > 1 else [])
        rows.extend((i, c) for c in sorted(cols))
    vals = (rng.random(len(rows)) - 0.5) / 16
    with open(path, "w") as f:
        f.write(f"%%MatrixMarket matrix coordinate real general\n{n} {n} {len(rows)}\n")
        f.writelines(f"{i + 1} {j + 1} {v:.6f}\n" for (i, j), v in zip(rows, vals))


def calls(solve, reps):
    t0 = time.perf_counter()
    _, first = solve()
    first_ms = (time.perf_counter() - t0) * 1e3
    wall, kern = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        _, info = solve()
        wall.append((time.perf_counter() - t0) * 1e3)
        kern.append(info["seconds"] * 1e3)
    return first_ms, statistics.median(wall), statistics.median(kern), info


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2n", type=int, default=16)
    ap.add_argument("--d", type=int, default=256)
    ap.add_argument("--reps", type=int, default=10)
    a = ap.parse_args()
    import torch

    if not torch.cuda.is_available():
        print(json.dumps({"bench": "python_cuda_calls", "skipped": "no CUDA device is usable"}))
        return
    n = 1 << a.log2n
    with tempfile.TemporaryDirectory() as tmp:
        mtx = os.path.join(tmp, "b.mtx")
        write_mtx(n, mtx)
        for spec in ["pow2", "pow2+cache", "sq1+cache", "window:32|sink:4", f"mtx:{mtx}"]:
            p = mixgraph.Pattern(spec, None if spec.startswith("mtx:") else n)
            X = torch.randn(n, a.d, device="cuda")
            Y = torch.empty_like(X)
            mixgraph.clear_mixer_cache()
            first, wall, kern, info = calls(lambda: mixgraph.solve(p, X, out=Y, info=True), a.reps)
            m = mixgraph.Mixer(p, device="cuda")
            mfirst, mwall, mkern, _ = calls(lambda: m.solve(X, out=Y, info=True), a.reps)
            m.release()
            print(json.dumps({"bench": "python_cuda_calls", "pattern": "mtx" if spec.startswith("mtx:") else spec,
                              "n": n, "d": a.d, "kernel": info["kernel"], "first_call_ms": round(first, 3),
                              "call_ms": round(wall, 4), "kernel_ms": round(kern, 4), "ratio": round(wall / kern, 3),
                              "plan_cached": info["plan_cached"], "mixer_first_call_ms": round(mfirst, 3),
                              "mixer_call_ms": round(mwall, 4), "mixer_ratio": round(mwall / mkern, 3),
                              "target_ratio": 1.25}), flush=True)


if __name__ == "__main__":
    main()
