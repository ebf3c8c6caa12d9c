"""Does mixgraph.solve on CUDA tensors move X or Y across the bus? torch.profiler (CUPTI) lists every memcpy
of one warm call; the script prints, per case, the copies by kind (count, device time in ms), the call's
median time and one host round trip of X for scale, and the relative error against the CPU solve.

  PYTHONPATH=build/python python3 bench/peers/cuda_no_host_transfer.py

Needs a CUDA build of the Python module and PyTorch with CUDA. One JSON line per case.
"""
import sys, time, json
import torch, mixgraph
from torch.profiler import profile, ProfilerActivity
res = []
for spec, n, d, heads in [("ssm", 65536, 1024, 1024), ("pow2", 65536, 256, 1), ("ssm", 65536, 4096, 4096)]:
    p = mixgraph.Pattern(spec, n)
    X = torch.randn(n, d, device="cuda"); Y = torch.empty_like(X)
    for _ in range(3): mixgraph.solve(p, X, heads=heads, out=Y)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        mixgraph.solve(p, X, heads=heads, out=Y)
        torch.cuda.synchronize()
    copies = {}
    for e in prof.events():
        name = e.name
        if "Memcpy" in name or "memcpy" in name:
            copies.setdefault(name, [0, 0.0])
            copies[name][0] += 1
            copies[name][1] += float(getattr(e, "device_time", 0.0) or 0.0) / 1e3  # ms
    ts = []
    for _ in range(10):
        torch.cuda.synchronize(); t = time.perf_counter(); mixgraph.solve(p, X, heads=heads, out=Y); torch.cuda.synchronize(); ts.append(time.perf_counter() - t)
    h = torch.empty(n, d, pin_memory=True)
    torch.cuda.synchronize(); t = time.perf_counter(); h.copy_(X); Y.copy_(h); torch.cuda.synchronize(); rt = time.perf_counter() - t
    ref = mixgraph.solve(p, X.cpu().double().numpy(), heads=heads) if n * d <= 65536 * 1024 else None
    rel = None
    if ref is not None:
        mixgraph.solve(p, X, heads=heads, out=Y); got = Y.cpu().double().numpy()
        import numpy as np; rel = float(np.linalg.norm(got - ref) / np.linalg.norm(ref))
    res.append(dict(spec=spec, n=n, d=d, x_bytes=X.numel() * 4, memcpy_events=copies,
                    call_ms_median=sorted(ts)[5] * 1e3, host_round_trip_of_X_ms=rt * 1e3, relerr_vs_cpu=rel))
    print(json.dumps(res[-1]), flush=True)
