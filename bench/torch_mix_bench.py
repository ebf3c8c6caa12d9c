#!/usr/bin/env python3
"""Forward + backward of mixgraph.torch.mix against the dense torch solve, on the CPU.

    PYTHONPATH=build/python /usr/bin/python3 bench/torch_mix_bench.py [--n 1024 4096 16384] [--d 64]

Both compute Y = (I - B)^{-1} A X for a pattern with per-offset weights (one head) and the gradients of
sum(Y * R) with respect to X, weights_a and weights_b. mixgraph: the sparse solve and its adjoint
(O(d (nnz_A + nnz_B))). Dense: B and A built as n x n matrices from the same weights, then
torch.linalg.solve_triangular((I - B), A X), differentiated by torch's autograd (the papers' method,
O(n^2 d) time and O(n^2) memory); skipped above --dense-max. Medians of --reps runs after one warm-up;
float32; the peak resident memory growth is not measured here. A benchmark, not a test: numbers depend on
the machine and its load.
"""

import argparse
import statistics
import time

import torch

import mixgraph
from mixgraph.torch import mix


def median_time(fn, reps):
    fn()  # warm-up
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def dense_operands(p, wa, wb):
    """A and B as n x n matrices with the per-offset weights on their diagonals (differentiable)."""
    lay = mixgraph._core._mix_layout(p)
    n = p.n

    def one(w, offs):
        rows, cols, vals = [], [], []
        for k, o in enumerate(offs):
            i = torch.arange(o, n)
            rows.append(i)
            cols.append(i - o)
            vals.append(w[0, k].expand(n - o))
        if not offs:
            return torch.zeros(n, n)
        return torch.zeros(n, n).index_put((torch.cat(rows), torch.cat(cols)), torch.cat(vals))

    return one(wa, lay["a_offsets"]), one(wb, lay["b_offsets"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pattern", default="pow2")
    ap.add_argument("--n", type=int, nargs="+", default=[1024, 4096, 16384])
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dense-max", type=int, default=8192, help="largest n for the dense solve")
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; {a.pattern}, d = {a.d}, float32, "
          "forward + backward")
    print(f"{'n':>8} {'mixgraph s':>11} {'fwd s':>9} {'dense s':>9} {'speed-up':>9}")
    for n in a.n:
        p = mixgraph.Pattern(a.pattern, n)
        lay = mixgraph._core._mix_layout(p)
        wa = (torch.rand(1, len(lay["a_offsets"])) / len(lay["a_offsets"])).requires_grad_()
        wb = (torch.rand(1, len(lay["b_offsets"])) * 0.9 / max(1, len(lay["b_offsets"]))).requires_grad_()
        X = torch.randn(n, a.d, requires_grad=True)
        R = torch.randn(n, a.d)

        def sparse_fwd():
            with torch.no_grad():
                mix(p, X, wa, wb, threads=a.threads)

        def sparse():
            torch.autograd.grad((mix(p, X, wa, wb, threads=a.threads) * R).sum(), (X, wa, wb))

        def dense():
            A, B = dense_operands(p, wa, wb)
            Y = torch.linalg.solve_triangular(torch.eye(n) - B, A @ X, upper=False)
            torch.autograd.grad((Y * R).sum(), (X, wa, wb))

        ts = median_time(sparse, a.reps)
        tf = median_time(sparse_fwd, a.reps)
        td = median_time(dense, a.reps) if n <= a.dense_max else float("nan")
        print(f"{n:>8} {ts:>11.4f} {tf:>9.4f} {td:>9.4f} {td / ts:>8.1f}x")


if __name__ == "__main__":
    main()
