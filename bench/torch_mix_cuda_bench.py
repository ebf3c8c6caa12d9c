#!/usr/bin/env python3
"""Forward + backward of mixgraph.torch.mix on a CUDA device, with its peers in the same run.

    PYTHONPATH=<build>/python python3 bench/torch_mix_cuda_bench.py [--dense] [--ssm] [--fla-src DIR]

--dense (pow2, n = 16384 .. 262144, d = 256, fp32, per-offset weights, one head): mixgraph against the
  dense torch solve (the papers' method) at n = 16384 and 65536 (an n x n matrix is 16 GiB there): B built
  as an n x n matrix from the same per-offset weights, torch.linalg.solve_triangular(I - B, a0 X)
  differentiated by torch's autograd. A = a0 I is fixed (given to mix as a per-offset table); gradients of
  sum(Y * R) for X and weights_b on both sides.
--train (the experiments' shape: T = 128, batch 64, d = 64, heads 4, fp32): one SparseMixer layer's forward +
  backward for each paper9 pattern with the weights the models give it (per offset, per position, gates),
  the batch as the columns of one device solve; a step of a model is a few of these plus its MLPs.
--ssm (per-channel gated first-order recurrence y_t = g_t y_{t-1} + x_t, fp32): mixgraph's ``ssm`` pattern
  with gates against flash-linear-attention's chunk_hgrn (h_t = exp(g_t) h_{t-1} + x_t) where its ``fla``
  package can be imported (--fla-src: a folder holding it); gradients for x and the gates on both sides.

Times: CUDA events around each step on the current stream, median of --reps after warm-ups; peak memory:
torch.cuda.max_memory_allocated over the timed steps, inputs included. One JSON line per case. A
benchmark, not a test: numbers depend on the device, its clocks and its neighbours.
"""

import argparse
import json
import sys

import torch

import mixgraph
from mixgraph.torch import mix


def cuda_ms(fn, reps, warm):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    return sorted(ts)[len(ts) // 2]


def measure(row, fwd, step, reps, warm):
    """fwd_ms, fwd_bwd_ms and peak_GiB (allocated during the steps, inputs included) into row."""
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    row["fwd_ms"] = round(cuda_ms(fwd, reps, warm), 4)
    row["fwd_bwd_ms"] = round(cuda_ms(step, reps, warm), 4)
    row["peak_GiB"] = round(torch.cuda.max_memory_allocated() / 2**30, 3)
    return row


def offsets_case(kind, n, d, reps, dense):
    p = mixgraph.Pattern(kind, n)
    lay = mixgraph.torch._layout(p.spec, n)
    ka, kb = len(lay["a_offsets"]), len(lay["b_offsets"])
    torch.manual_seed(0)
    wa = torch.zeros(1, ka, device="cuda")
    wa[0, 0] = 0.75  # A = a0 I, fixed (the dense peer's diagonal A), as a per-offset table
    wb = (torch.rand(1, kb, device="cuda") / (2 * kb)).requires_grad_()
    X = torch.randn(n, d, device="cuda", requires_grad=True)
    R = torch.randn(n, d, device="cuda")
    rows = []

    def fwd():
        with torch.no_grad():
            mix(p, X, wa, wb)

    def step():
        torch.autograd.grad((mix(p, X, wa, wb) * R).sum(), (X, wb))

    rows.append(measure({"impl": "mixgraph", "pattern": kind, "n": n, "d": d}, fwd, step, reps, 2))
    if dense:
        i = torch.arange(n, device="cuda")
        offs = lay["b_offsets"]
        r = torch.cat([i[o:] for o in offs])
        c = torch.cat([i[o:] - o for o in offs])
        k = torch.cat([torch.full((n - o,), j, device="cuda") for j, o in enumerate(offs)])
        eye = torch.eye(n, device="cuda")

        def dense_solve():
            B = torch.zeros(n, n, device="cuda").index_put((r, c), wb[0, k])
            return torch.linalg.solve_triangular(eye - B, wa[0, 0] * X, upper=False)

        def dfwd():
            with torch.no_grad():
                dense_solve()

        def dstep():
            torch.autograd.grad((dense_solve() * R).sum(), (X, wb))

        # the same answer first (a benchmark of two different problems would mean nothing)
        with torch.no_grad():
            err = ((mix(p, X, wa, wb) - dense_solve()).norm() / dense_solve().norm()).item()
        row = measure({"impl": "dense-torch", "pattern": kind, "n": n, "d": d, "relerr_vs_mixgraph": err},
                      dfwd, dstep, 3, 1)
        del eye
        rows.append(row)
        torch.cuda.empty_cache()
    return rows


def ssm_case(T, D, reps, chunk_hgrn):
    p = mixgraph.Pattern("ssm", T)
    torch.manual_seed(0)
    x = torch.randn(1, T, D, device="cuda", requires_grad=True)
    g = (torch.rand(1, T, D, device="cuda") * 0.9).requires_grad_()
    dy = torch.randn(1, T, D, device="cuda")
    rows = []

    def fwd():
        with torch.no_grad():
            mix(p, x, gates=g)

    def step():
        mix(p, x, gates=g).backward(dy)

    rows.append(measure({"impl": "mixgraph-ssm-gates", "n": T, "d": D}, fwd, step, reps, 3))
    x.grad = g.grad = None
    torch.cuda.empty_cache()
    if chunk_hgrn is not None:
        lg = (-torch.rand(1, T, D, device="cuda")).requires_grad_()  # log gates, as chunk_hgrn takes them

        def hfwd():
            with torch.no_grad():
                chunk_hgrn(x, lg)

        def hstep():
            o, _ = chunk_hgrn(x, lg)
            o.backward(dy)

        rows.append(measure({"impl": "fla-chunk_hgrn", "n": T, "d": D}, hfwd, hstep, reps, 3))
        x.grad = lg.grad = None
        del lg
        torch.cuda.empty_cache()
    return rows


def train_case(spec, T=128, batch=64, d=64, heads=4, reps=10):
    """One SparseMixer layer (the weights experiments.model gives the pattern) forward + backward."""
    from mixgraph.experiments.model import weight_kind
    from mixgraph.torch import SparseMixer

    p = mixgraph.Pattern(spec, T)
    torch.manual_seed(0)
    layer = SparseMixer(p, d, heads=heads, weights=weight_kind(p)).cuda()
    X = torch.randn(batch, T, d, device="cuda", requires_grad=True)
    R = torch.randn(batch, T, d, device="cuda")

    def fwd():
        with torch.no_grad():
            layer(X)

    def step():
        (layer(X) * R).sum().backward()

    row = {"pattern": spec, "weights": layer.kind, "n": T, "batch": batch, "d": d, "heads": heads}
    return measure(row, fwd, step, reps, 3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dense", action="store_true", help="pow2 / sq1 against the dense torch solve")
    ap.add_argument("--ssm", action="store_true", help="gated ssm against fla's chunk_hgrn")
    ap.add_argument("--train", action="store_true", help="one mixer layer at the experiments' shape, paper9")
    ap.add_argument("--fla-src", default=None, help="a folder holding flash-linear-attention's fla package")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--dense-n", default="16384,65536,131072,262144",
                    help="the pow2 lengths for --dense, comma-separated (the dense peer runs up to 65536)")
    a = ap.parse_args()
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__}), flush=True)
    if a.dense:
        for n in [int(v) for v in a.dense_n.split(",")]:
            kind, dense = "pow2", n <= 65536
            try:
                for row in offsets_case(kind, n, 256, a.reps, dense):
                    print(json.dumps(row), flush=True)
            except Exception as ex:  # (the dense peer runs out of memory at some n)
                print(json.dumps({"pattern": kind, "n": n, "error": str(ex)[:300]}), flush=True)
            torch.cuda.empty_cache()
    if a.train:
        from mixgraph.experiments.presets import preset

        for spec in preset("paper9").patterns:
            try:
                print(json.dumps(train_case(spec, reps=a.reps)), flush=True)
            except Exception as ex:
                print(json.dumps({"pattern": spec, "error": str(ex)[:300]}), flush=True)
    if a.ssm:
        chunk_hgrn = None
        if a.fla_src:
            sys.path.insert(0, a.fla_src)
        try:
            from fla.ops.hgrn import chunk_hgrn
        except Exception as ex:
            print(json.dumps({"peer": "fla-chunk_hgrn", "error": f"not importable: {ex}"[:300]}), flush=True)
        for T, D in [(65536, 1024), (16384, 4096), (65536, 4096), (1 << 20, 256)]:
            try:
                for row in ssm_case(T, D, a.reps, chunk_hgrn):
                    print(json.dumps(row), flush=True)
            except Exception as ex:
                print(json.dumps({"n": T, "d": D, "error": str(ex)[:300]}), flush=True)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
