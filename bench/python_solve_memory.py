#!/usr/bin/env python3
"""Peak memory of mixgraph.solve on a large float32 X: no copy of X or Y.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_solve_memory.py [--gib 1] [--pattern window:4]

Allocates X (n x 64 float32, --gib GiB, pages touched), then times Y = mixgraph.solve(p, X) and reads the
process's peak RSS (ru_maxrss) before and after. A copy of X or Y would add --gib GiB to the peak; what the
solve adds beyond Y is the weights, the pattern and the threads. --dlpack passes X through numpy's
__dlpack__. A benchmark, not a test.
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
    a = ap.parse_args()
    n = int(a.gib * GIB) // (4 * a.d)
    base = peak()
    X = np.ones((n, a.d), dtype=np.float32)
    after_x = peak()
    p = mixgraph.Pattern(a.pattern, n)
    t0 = time.perf_counter()
    Y, info = mixgraph.solve(p, DLOnly(X) if a.dlpack else X, info=True)
    t = time.perf_counter() - t0
    after_y = peak()
    assert info["x_address"] == X.ctypes.data
    print(f"pattern {a.pattern}, n = {n}, d = {a.d}, X = Y = {X.nbytes / GIB:.3f} GiB, input {info['input']}")
    print(f"peak RSS: baseline {base / GIB:.3f} GiB, with X {after_x / GIB:.3f} GiB, after solve "
          f"{after_y / GIB:.3f} GiB")
    print(f"solve added {(after_y - after_x) / GIB:.3f} GiB to the peak: Y {Y.nbytes / GIB:.3f} GiB + weights "
          f"pattern and threads {(after_y - after_x - Y.nbytes) / GIB:.3f} GiB")
    print(f"solve wall {t:.3f} s, kernel {info['seconds']:.3f} s")


if __name__ == "__main__":
    main()
