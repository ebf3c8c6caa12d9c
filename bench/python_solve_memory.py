#!/usr/bin/env python3
"""Peak memory of mixgraph.solve on a large float32 X: no copy of X or Y, working memory per thread.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_solve_memory.py [--gib 1] [--pattern window:4]
        [--mixer] [--max-growth 1.2]

Allocates X (n x d float32, --gib GiB, pages touched), then times Y = mixgraph.solve(p, X) (--mixer:
mixgraph.Mixer(p).solve(X)) and reads the process's peak RSS (ru_maxrss) before and after. The peak growth
of the solve, Y included, is reported as a multiple of |X|: 1.0 is Y alone; a copy of X or Y would add 1.0;
what the solve adds beyond Y is the pattern, its plan, the threads and their tiles (weights are made by the
kernel where it uses them). With --max-growth G the exit code is 1 when the growth is above G |X| (the
target: 1.2 at pow2, n = 2^22, d = 64, i.e. --gib 1 --pattern pow2). --dlpack passes X through numpy's
__dlpack__. A benchmark, not a test: run one solve per process (the peak is the process's).
"""

import argparse
import resource
import time

import numpy as np

import mixgraph

GIB = 1 << 30


def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


class DLOnly:
    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--pattern", default="window:4")
    ap.add_argument("--dlpack", action="store_true", help="pass X through __dlpack__")
    ap.add_argument("--mixer", action="store_true", help="solve with mixgraph.Mixer instead of mixgraph.solve")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--max-growth", type=float, default=None, help="exit 1 above this multiple of |X|")
    a = ap.parse_args()
    n = int(a.gib * GIB) // (4 * a.d)
    base = peak()
    X = np.ones((n, a.d), dtype=np.float32)
    after_x = peak()
    p = mixgraph.Pattern(a.pattern, n)
    t0 = time.perf_counter()
    xin = DLOnly(X) if a.dlpack else X
    if a.mixer:
        Y, info = mixgraph.Mixer(p).solve(xin, threads=a.threads, info=True)
    else:
        Y, info = mixgraph.solve(p, xin, threads=a.threads, info=True)
    t = time.perf_counter() - t0
    after_y = peak()
    assert info["x_address"] == X.ctypes.data
    print(f"pattern {a.pattern}, n = {n}, d = {a.d}, X = Y = {X.nbytes / GIB:.3f} GiB, input {info['input']}"
          f"{', mixgraph.Mixer' if a.mixer else ', mixgraph.solve'}")
    print(f"peak RSS: baseline {base / GIB:.3f} GiB, with X {after_x / GIB:.3f} GiB, after solve "
          f"{after_y / GIB:.3f} GiB")
    print(f"solve added {(after_y - after_x) / GIB:.3f} GiB to the peak: Y {Y.nbytes / GIB:.3f} GiB + weights "
          f"pattern and threads {(after_y - after_x - Y.nbytes) / GIB:.3f} GiB")
    print(f"solve wall {t:.3f} s, kernel {info['seconds']:.3f} s, {info['threads']} threads, {info['kernel']}")
    growth = (after_y - after_x) / X.nbytes
    print(f"peak growth of the solve: {growth:.3f} |X| (Y included)")
    if a.max_growth is not None and growth > a.max_growth:
        print(f"above the target of {a.max_growth} |X|")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
