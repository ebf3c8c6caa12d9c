#!/usr/bin/env python3
"""Start-up time of the mixgraph process: median wall time of short commands over many runs.

    /usr/bin/python3 bench/startup_bench.py build/tools/mixgraph [OTHER_MIXGRAPH ...] [--runs 20]

Each command runs --runs times per binary, the binaries interleaved run by run, so that two builds (say
main and a branch) are compared in the same run on the same load. Prints one row per command and binary
(median and minimum in ms) and the number of shared libraries the loader mapped (LD_DEBUG=files).
"""
import argparse
import os
import statistics
import subprocess
import time

COMMANDS = [["--version"], ["pattern", "-p", "pow2", "--n", "1024"]]


def libraries(binary):
    env = dict(os.environ, LD_DEBUG="files")
    err = subprocess.run([binary, "--version"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True).stderr
    return len({line.split("file=")[1].split()[0] for line in err.splitlines() if "file=" in line})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binaries", nargs="+", help="mixgraph executables to time")
    ap.add_argument("--runs", type=int, default=20, help="runs per command and binary (default 20)")
    a = ap.parse_args()
    times = {(b, i): [] for b in a.binaries for i in range(len(COMMANDS))}
    for _ in range(a.runs):
        for i, cmd in enumerate(COMMANDS):
            for b in a.binaries:
                t = time.perf_counter()
                subprocess.run([b] + cmd, stdout=subprocess.DEVNULL, check=True)
                times[(b, i)].append(time.perf_counter() - t)
    print(f"load average {os.getloadavg()[0]:.2f}, {a.runs} runs each")
    for i, cmd in enumerate(COMMANDS):
        for b in a.binaries:
            ts = times[(b, i)]
            print(f"{' '.join(cmd):32s} {b:40s} median {1e3 * statistics.median(ts):6.1f} ms"
                  f"  min {1e3 * min(ts):6.1f} ms  ({libraries(b)} libraries)")


if __name__ == "__main__":
    main()
