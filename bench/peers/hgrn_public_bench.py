"""Per-channel `ssm` through mixgraph's public Python path against flash-linear-attention's chunk_hgrn, in
one process, with X on the device:

  * chunk_hgrn(x, g): h_t = exp(g_t) * h_{t-1} + x_t (fla, Triton; x, g of shape (1, T, D));
  * mixgraph.solve(Pattern('ssm', n), X, gates=G, out=Y): y_i = G_i * y_{i-1} + X_i per channel,
    G = exp(g) read in place: the same recurrence as chunk_hgrn (its output is compared with Y);
  * mixgraph.solve(Pattern('ssm', n), X, heads=d, out=Y): seeded gates and alpha, no coefficient array.

Times are CUDA events around the Python call (warm-up first, median of --reps), so the mixgraph rows are
end to end with X on the device (binding, planning, launches); `kernel` is the kernel time the call
reports (info['seconds']). Each mixgraph result is checked against a float64 recurrence on a slice (the
first --check-rows rows of 8 channels; the rows before i alone decide y_i) with alpha and the seeded gates
from the documented generator (lib/include/mixgraph/weight_gen.hpp, docs/formats.md "Seeded weights").

  PYTHONPATH=fla_src:build/python /opt/torch/.venv/bin/python3 bench/peers/hgrn_public_bench.py [--quick]

The mixgraph module must be built for the interpreter that runs this (-DPython3_EXECUTABLE=...).
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

SIZES = [(65536, 1024), (16384, 4096), (65536, 4096), (1 << 20, 256)]


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="20 repetitions, 5 warm-ups (under 2 minutes)")
    ap.add_argument("--reps", type=int, default=50, help="timed repetitions (median; at least 20)")
    ap.add_argument("--sizes", nargs="*", default=None, help="n x d pairs such as 65536x1024")
    ap.add_argument("--check-rows", type=int, default=4096, help="rows of the float64 check")
    ap.add_argument("--json", default=None, help="also write the rows as JSON lines to this file")
    a = ap.parse_args()
    if a.quick:
        a.reps = 20
    a.reps = max(20, a.reps)
    a.warm = 5 if a.quick else 10
    a.sizes = [tuple(int(v) for v in s.split("x")) for s in a.sizes] if a.sizes else SIZES
    return a


def cuda_time(fn, reps, warm):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort()
    return ts[len(ts) // 2]


# ---- the seeded generator (weight_gen.hpp), vectorized over rows in numpy uint64 (wrapping arithmetic)

def splitmix64(x):
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def stream_key(seed, head, matrix):
    with np.errstate(over="ignore"):
        m = np.uint64(matrix) * np.uint64(0x632BE59BD9B4E019)
        return splitmix64(splitmix64(np.uint64(seed) + np.uint64(head)) ^ m)


def unit_draw(key, i, j):
    z = splitmix64(key ^ splitmix64((i.astype(np.uint64) << np.uint64(32)) | j.astype(np.uint64)))
    mag = ((z >> np.uint64(12)) | np.uint64(1 << 52)).astype(np.float64) * 2.0 ** -53
    return np.where((z & np.uint64(1)) == 1, -mag, mag)


def seeded_ssm(seed, c, rows):
    """alpha (A's diagonal, total 1, one read) and beta (B's read of i - 1, total 0.9) of head c."""
    i = np.arange(rows, dtype=np.uint64)
    alpha = 1.0 * unit_draw(stream_key(seed, c, 2), i, i)
    beta = np.zeros(rows)
    beta[1:] = 0.9 * unit_draw(stream_key(seed, c, 1), i[1:], i[1:] - np.uint64(1))
    return alpha, beta


def recurrence(X, alpha, G):
    """y_i = G_i y_{i-1} + alpha_i X_i, float64, columns side by side."""
    Y = np.empty_like(X)
    prev = np.zeros(X.shape[1])
    for i in range(X.shape[0]):
        prev = alpha[i] * X[i] + (G[i] * prev if i > 0 else 0.0)
        Y[i] = prev
    return Y


def check(X, Y, G, seed, rows, fp32):
    """relative Frobenius error of Y[:rows, :8] against the float64 recurrence (G None: seeded gates and
    seeded alpha; else the gates G and alpha = 1, as gates= without input_gates= solves)."""
    cols = min(8, X.shape[1])
    Xs = X[:rows, :cols].double().cpu().numpy()
    Ys = Y[:rows, :cols].double().cpu().numpy()
    al, be = zip(*(seeded_ssm(seed, c, rows) for c in range(cols)))
    alpha = np.stack(al, axis=1) if G is None else np.ones((rows, cols))
    if fp32:
        alpha = alpha.astype(np.float32).astype(np.float64)
    if G is None:
        Gs = np.stack(be, axis=1)
        if fp32:
            Gs = Gs.astype(np.float32).astype(np.float64)
    else:
        Gs = G[:rows, :cols].double().cpu().numpy()
    ref = recurrence(Xs, alpha, Gs)
    return float(np.linalg.norm(Ys - ref) / np.linalg.norm(ref))


def load_fla():
    sys.path.insert(0, os.environ.get("FLA_SRC", "fla_src"))
    try:
        from fla.ops.hgrn import chunk_hgrn
    except Exception:
        import importlib

        chunk_hgrn = importlib.import_module("fla.ops.hgrn.chunk").chunk_hgrn
    return chunk_hgrn


def main():
    a = parse()
    import mixgraph

    try:
        chunk_hgrn = load_fla()
    except Exception as ex:  # still time mixgraph
        print(f"warning: fla not importable ({ex}); chunk_hgrn rows left out", file=sys.stderr)
        chunk_hgrn = None
    out = open(a.json, "w") if a.json else None
    print(f"device: {torch.cuda.get_device_name()}  reps: {a.reps} (median)  fp32", flush=True)
    hdr = ("n", "d", "chunk_hgrn ms", "gates ms", "gates kernel", "ratio", "seeded ms", "seeded kernel",
           "ratio", "err gates", "err seeded")
    print("%8s %5s %13s %9s %12s %6s %10s %13s %6s %10s %10s" % hdr, flush=True)
    seed = 1
    for n, d in a.sizes:
        torch.manual_seed(0)
        x = torch.randn(1, n, d, device="cuda")
        g = -torch.rand(1, n, d, device="cuda")  # log gates, as fla takes them
        X = x[0]
        G = g[0].exp().contiguous()  # the same gates for mixgraph
        Y = torch.empty_like(X)
        p = mixgraph.Pattern("ssm", n)
        row = {"n": n, "d": d, "reps": a.reps}
        if chunk_hgrn is not None:
            row["chunk_hgrn_ms"] = cuda_time(lambda: chunk_hgrn(x, g), a.reps, a.warm)
        info = {}

        def gated():
            info.update(mixgraph.solve(p, X, gates=G, out=Y, info=True)[1])

        row["gates_ms"] = cuda_time(gated, a.reps, a.warm)
        row["gates_kernel_ms"] = info["seconds"] * 1e3
        row["gates_kernel"] = info["kernel"]
        row["err_gates"] = check(X, Y, G, seed, min(n, a.check_rows), True)
        if chunk_hgrn is not None:  # the same recurrence: compare the outputs themselves
            o = chunk_hgrn(x, g)
            o = o[0] if isinstance(o, tuple) else o
            row["gates_vs_chunk_hgrn"] = float((o[0].double() - Y.double()).norm() / o[0].double().norm())

        def seeded():
            info.update(mixgraph.solve(p, X, heads=d, out=Y, info=True)[1])

        row["seeded_ms"] = cuda_time(seeded, a.reps, a.warm)
        row["seeded_kernel_ms"] = info["seconds"] * 1e3
        row["seeded_kernel"] = info["kernel"]
        row["err_seeded"] = check(X, Y, None, seed, min(n, a.check_rows), True)
        ref_ms = row.get("chunk_hgrn_ms")
        ratio = (lambda v: v / ref_ms) if ref_ms else (lambda v: float("nan"))
        row["gates_ratio"] = ratio(row["gates_ms"])
        row["seeded_ratio"] = ratio(row["seeded_ms"])
        print("%8d %5d %13.3f %9.3f %12.3f %6.2f %10.3f %13.3f %6.2f %10.2e %10.2e" % (
            n, d, ref_ms or float("nan"), row["gates_ms"], row["gates_kernel_ms"], row["gates_ratio"],
            row["seeded_ms"], row["seeded_kernel_ms"], row["seeded_ratio"], row["err_gates"], row["err_seeded"]),
            flush=True)
        print("   kernels: gates " + row["gates_kernel"] + "; seeded " + row["seeded_kernel"] +
              "; |Y_gates - chunk_hgrn| / |chunk_hgrn| = %.2e" % row.get("gates_vs_chunk_hgrn", float("nan")),
              flush=True)
        if out:
            out.write(json.dumps(row) + "\n")
        bad = [k for k in ("err_gates", "err_seeded") if not row[k] <= 1e-4]
        if bad:
            print(f"FAIL: {bad} above 1e-4 at n={n} d={d}", flush=True)
            sys.exit(1)
        x = g = X = G = Y = None  # free before the next size
        torch.cuda.empty_cache()
    print("ratio = mixgraph call time (CUDA events around the Python call, X on the device) / chunk_hgrn")


if __name__ == "__main__":
    main()
