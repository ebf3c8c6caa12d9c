"""The commands whose output the format tests check: every command and its main modes, small and quick.

`json_cases(tmp)` gives (schema file stem, argv) pairs run with `--format json`; `csv_cases(tmp)` gives
(name, argv, dtypes) for `--format csv`, where dtypes maps each column to its documented kind (see
docs/formats.md): "int" (int64), "float" (float64: reals, and distances whose unreachable is `inf`),
"bool", "str" (text); a column that may be empty (missing) is "int?" (float64 with NaN, or int64 when no
cell is empty) or "str?".
"""

import os


def write_mtx(path, n):
    """A small B.mtx: strictly lower triangular, each position reading i-1 and i/2."""
    entries = sorted({(i, j) for i in range(2, n + 1) for j in (i - 1, i // 2) if 1 <= j < i}, key=lambda e: (e[1], e[0]))
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{n} {n} {len(entries)}\n")
        for i, j in entries:
            f.write(f"{i} {j} 0.5\n")
    return str(path)


def write_qk(tmp, n=32, r=2):
    """Queries and keys of attention heads for `--attn-q/--attn-k`: n x r .npy files (r = H x head width)."""
    import numpy as np
    rng = np.random.default_rng(0)
    q, k = os.path.join(tmp, f"q{n}x{r}.npy"), os.path.join(tmp, f"k{n}x{r}.npy")
    np.save(q, rng.standard_normal((n, r)))
    np.save(k, rng.standard_normal((n, r)))
    return q, k


def json_cases(tmp):
    mtx = write_mtx(os.path.join(tmp, "B.mtx"), 24)
    matrix = os.path.join(tmp, "d.csv")
    q, k = write_qk(tmp)
    q2, k2 = write_qk(tmp, 32, 4)  # two heads of width 2
    return [
        ("pattern", ["pattern", "-p", "pow2", "-n", "64"]),
        ("pattern", ["pattern", "-p", "pow2+cache", "-n", "64", "--profile", "--rows", "3,64"]),
        ("pattern", ["pattern", "-p", "sq1", "-n", "64", "--summary"]),
        ("pattern", ["pattern", "-p", "mtx:" + mtx, "--profile"]),
        ("pattern", ["pattern", "-p", "sq1+cache", "--sweep", "64..1024"]),
        ("pattern", ["pattern", "-p", "heads:pow2;local:3", "-n", "16"]),
        ("pattern", ["pattern", "-p", "heads:pow2;local:3", "--sweep", "16..64"]),
        ("distances", ["distances", "-p", "pow2", "-n", "64"]),
        ("distances", ["distances", "-p", "heads:pow2;local:3", "-n", "16"]),
        ("distances", ["distances", "-p", "heads:window:3;bigbird:2,1,1", "-n", "16", "--summary"]),
        ("distances", ["distances", "-p", "pow2", "-n", "64", "--all-pairs"]),
        ("distances", ["distances", "-p", "fib+cache", "-n", "64", "--source", "3", "--target", "60", "--counts"]),
        ("distances", ["distances", "-p", "offsets:3,5", "-n", "20", "--summary"]),
        ("distances", ["distances", "-p", "window:4", "-n", "40", "--matrix", matrix]),
        ("distances", ["distances", "-p", "mtx:" + mtx, "--source", "1"]),
        ("distances", ["distances", "-p", "pow2", "-p", "fib", "--sweep", "64..256"]),
        ("congestion", ["congestion", "-p", "pow2", "-n", "16"]),
        ("congestion", ["congestion", "-p", "local:3", "-n", "10"]),
        ("congestion", ["congestion", "-p", "heads:pow2;local:3", "-N", "16"]),
        ("congestion", ["congestion", "-p", "sq1", "-n", "12", "--routing", "all", "--lp"]),
        ("congestion", ["congestion", "-p", "pow2", "-p", "local:3", "--sweep", "4..16"]),
        ("rank", ["rank", "-p", "pow2", "-n", "32"]),
        ("rank", ["rank", "-p", "sq1+cache", "-n", "48", "--method", "flow", "--cuts", "5"]),
        ("rank", ["rank", "-p", "window:3", "-n", "32", "--method", "dense", "--dyadic"]),
        ("rank", ["rank", "-p", "mtx:" + mtx, "--method", "sketch"]),
        ("rank", ["rank", "-p", "heads:ssm;local:3", "-n", "24"]),
        ("rank", ["rank", "-p", "attention", "-n", "32", "--attn-q", write_qk(tmp)[0], "--attn-k", write_qk(tmp)[1]]),
        ("rank", ["rank", "-p", "window:3", "-n", "32", "--attn-kernel", "linear", "--attn-q", write_qk(tmp)[0],
                  "--attn-k", write_qk(tmp)[1], "--method", "flow"]),
        ("rank.loglinear", ["rank", "loglinear", "--T", "64"]),
        ("rank.loglinear", ["rank", "loglinear", "--T", "5000", "--numeric-limit", "64"]),
        ("rank.loglinear", ["rank", "loglinear", "--T", "64", "-p", "pow2"]),
        ("rank.ssm", ["rank", "ssm", "-n", "16", "--state", "4", "--p", "2", "--d", "2"]),
        ("rank.ssm", ["rank", "ssm", "-n", "8", "--example", "rotation"]),
        ("rank.heads", ["rank", "heads", "--pattern", "pow2", "--pattern", "sq1", "-n", "16", "--p", "2", "--d", "2"]),
        ("pattern.stack", ["pattern", "-p", "stack:ssm,window:4", "-n", "32", "--profile"]),
        ("pattern.stack", ["pattern", "-p", "stack:(pow2+cache;bigbird:2,1,1)*2", "-n", "40", "--summary"]),
        ("distances.stack", ["distances", "-p", "stack:(local:2)*3", "-n", "24"]),
        ("distances.stack", ["distances", "-p", "stack:sink:2,ssm", "-n", "24", "--source", "3"]),
        ("distances.stack", ["distances", "-p", "stack:block:4,ssm", "-n", "24"]),
        ("rank.stack", ["rank", "-p", "stack:ssm,window:2", "-n", "16"]),
        ("rank.stack", ["rank", "-p", "stack:ssm,ssm", "-n", "16", "--method", "flow", "--cuts", "3"]),
        ("rank.stack", ["rank", "-p", "stack:ssm,window:4", "-n", "24", "--method", "exact"]),
        ("rank.stack", ["rank", "-p", "stack:pow2,window:2", "-n", "16", "--method", "exact", "--cuts", "3"]),
        ("congestion", ["congestion", "-p", "stack:ssm,window:4", "-N", "12"]),
        ("congestion", ["congestion", "-p", "stack:local:2,local:2", "-N", "8"]),
        ("congestion", ["congestion", "-p", "stack:ssm,window:2", "-N", "6", "--lp"]),
        ("congestion", ["congestion", "-p", "stack:pow2,local:2", "-N", "3", "--lp"]),
        ("congestion", ["congestion", "-p", "pow2", "-N", "8", "--lp"]),
        ("congestion", ["congestion", "-p", "heads:pow2;local:3", "-N", "8", "--lp"]),
        ("congestion", ["congestion", "-p", "local:3", "-N", "4", "--lp"]),
        ("solve", ["solve", "-p", "pow2", "-n", "64", "--random", "4", "--backend", "cpu"]),
        ("solve", ["solve", "-p", "sq1+cache", "-n", "64", "--random", "4", "--heads", "2", "--precision", "fp64",
                   "--backend", "cpu", "--output", os.path.join(tmp, "y.npy")]),
        ("solve", ["solve", "-p", "attention", "-n", "32", "--random", "4", "--backend", "cpu", "--attn-q", q,
                   "--attn-k", k]),
        ("solve", ["solve", "-p", "window:3", "-n", "32", "--random", "4", "--heads", "2", "--backend", "cpu",
                   "--attn-q", q2, "--attn-k", k2, "--attn-kernel", "linear"]),
        ("validate", ["validate", "-p", "pow2", "-n", "32", "--backend", "cpu"]),
        ("validate", ["validate", "-p", "attention", "-n", "32", "--backend", "cpu", "--attn-q", q, "--attn-k", k]),
        ("validate", ["validate", "-p", "window:3", "-n", "32", "--heads", "2", "--backend", "cpu", "--attn-q", q2,
                      "--attn-k", k2, "--attn-kernel", "linear"]),
        ("validate", ["validate", "-p", "mtx:" + mtx, "--backend", "cpu"]),
        ("verify", ["verify", "--n-max", "64", "--claim", "fagnou.prop4.4", "--claim", "fagnou.cor4.9"]),
        ("verify", ["verify", "--n-max", "32", "--claim", "fagnou.prop4.4", "-p", "local:3"]),
        ("verify", ["verify", "--n-max", "32", "--claim", "fagnou.prop4.4", "-p", "bigbird:2,1,1"]),  # NOT APPLICABLE
        ("verify", ["verify", "--n-max", "2", "--claim", "fagnou.prop4.7"]),  # ERROR: below the smallest range
        ("verify.list", ["verify", "--list"]),
        ("info", ["info"]),
        ("gallery", ["gallery", "-n", "32", "--cuts", "4", "-p", "pow2", "-p", "local:3", "-p", "stack:ssm,window:4",
                     "-p", "heads:window:4;pow2+cache", "-p", "loglinear"]),
        ("pattern", ["pattern", "-p", "loglinear", "-n", "100"]),
        ("pattern", ["pattern", "-p", "loglinear", "--sweep", "16..256"]),
    ]


def report_args(out):
    return ["report", "-p", "pow2", "-p", "sq1+cache", "-p", "fib", "-p", "stack:ssm,window:4", "-p", "loglinear",
            "-n", "64", "--out", out, "--force"]


def capped_report_args(out):
    """A report whose distances are capped (sq1+cache above --all-pairs-cap: a sampled lower bound; the stack's
    distances skipped), with a pattern without multi-hop paths (local:3: Table 1 says so in text) and two
    sections skipped (no `seconds` or `results`). n = 128 gives the growth fits 4 sweep points (an exponent)."""
    return ["report", "-p", "sq1+cache", "-p", "local:3", "-p", "stack:block:4,ssm", "-n", "128", "--all-pairs-cap",
            "32", "--skip", "validation,verify", "--out", out, "--force"]
