#!/usr/bin/python3
"""Peer for bench_report's BM_HeatmapPngLog: matplotlib draws a comparable 1024 x 1024 log-scale heatmap
with a colour bar, axis labels and title to PNG (about the same pixel size as mixgraph's). The matrix is
random log-uniform values on the lower triangle (the drawing cost does not depend on the values).
Usage: /usr/bin/python3 bench/peer_matplotlib_heatmap.py [n] [repeats]"""
import sys, time, tempfile, os
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.colors import LogNorm

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
rng = np.random.default_rng(1)
m = 10.0 ** rng.uniform(-8, 0, size=(n, n))
m[np.triu_indices(n, 1)] = np.nan
out = os.path.join(tempfile.gettempdir(), "mixgraph_peer_heatmap.png")
times = []
for _ in range(reps):
    t0 = time.perf_counter()
    fig, ax = plt.subplots(figsize=(13.5, 12.3), dpi=100)
    cmap = matplotlib.colormaps["viridis"].copy()
    cmap.set_bad((0.88, 0.88, 0.88))
    im = ax.imshow(m, cmap=cmap, norm=LogNorm(), interpolation="nearest",
                   extent=(0.5, n + 0.5, n + 0.5, 0.5))
    ax.set(xlabel="source position j", ylabel="target position i", title="|M| of pow2")
    fig.colorbar(im, ax=ax, label="|M(i, j)|")
    fig.savefig(out)
    plt.close(fig)
    times.append(time.perf_counter() - t0)
print(f"matplotlib heatmap png log n={n}: median {1000 * sorted(times)[len(times) // 2]:.1f} ms over {reps}")
