#!/usr/bin/env python3
# Run with /usr/bin/python3 (Debian's python3-numpy): /usr/bin/python3 scripts/proto_blockinv.py
# Prototype of the next GPU step (docs/design.md): chunked solve with explicit inverses of the 64x64 diagonal blocks,
# y_c = Linv_c (v_c + B_{c,c-1} y_{c-1}) with v_c = A x_c + sum over chunks <= c-2, all in float32,
# compared with the float64 sequential recurrence (Eq. 1). Weights like mixgraph's: beta = +-U[.5,1] * 0.9/K.
import numpy as np, sys
rng = np.random.default_rng(1)
def offsets(name, n):
    if name == "pow2": return [1 << k for k in range(32) if (1 << k) < n]
    if name == "sq1": return [k * k + 1 for k in range(100000) if k * k + 1 < n]
    raise SystemExit(name)
def run(name, n, d, T=64):
    off = offsets(name, n); K = len(off)
    beta = (rng.choice([-1, 1], size=(n, K)) * rng.uniform(0.5, 1, size=(n, K)) * 0.9 / K)
    a = rng.uniform(0.5, 1, size=n)
    x = rng.uniform(-1, 1, size=(n, d))
    # float64 reference, Eq. 1
    y64 = np.zeros((n, d))
    for i in range(n):
        s = a[i] * x[i]
        for k, o in enumerate(off):
            if o <= i: s = s + beta[i, k] * y64[i - o]
        y64[i] = s
    # float32 block-inverse solve
    f = np.float32
    b32, a32, x32 = beta.astype(f), a.astype(f), x.astype(f)
    y = np.zeros((n, d), dtype=f)
    nc = (n + T - 1) // T
    maxinv = 0.0
    for c in range(nc):
        r0, r1 = c * T, min(n, (c + 1) * T); m = r1 - r0
        L = np.eye(m, dtype=f)           # I - B_cc
        Bp = np.zeros((m, T), dtype=f)   # B_{c,c-1}
        v = a32[r0:r1, None] * x32[r0:r1]
        for r in range(m):
            i = r0 + r
            for k, o in enumerate(off):
                if o > i: break
                j = i - o
                if j >= r0: L[r, j - r0] -= b32[i, k]
                elif j >= r0 - T: Bp[r, j - (r0 - T)] += b32[i, k]
                else: v[r] += b32[i, k] * y[j]
        # Linv by fp32 forward substitution (what a gather CTA would do): row r = e_r + sum_j (-L[r,j]) row j
        Linv = np.eye(m, dtype=f)
        for r in range(m):
            for j in range(r):
                if L[r, j] != 0: Linv[r] = Linv[r] - L[r, j] * Linv[j]
        maxinv = max(maxinv, np.abs(Linv).sum(axis=1).max())
        prev = y[r0 - T:r0] if c > 0 else np.zeros((T, d), dtype=f)
        y[r0:r1] = Linv @ (v + Bp @ prev)
    err = np.linalg.norm(y.astype(np.float64) - y64) / np.linalg.norm(y64)
    print(f"{name:5s} n={n:6d} d={d:3d}: rel. Frobenius error fp32 block-inverse vs fp64 Eq.1 = {err:.2e}; "
          f"max row sum |Linv| = {maxinv:.2f}")
for name, n in (("pow2", 4096), ("sq1", 4096), ("pow2", 16384)):
    run(name, n, 16)
