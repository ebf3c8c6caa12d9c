"""The CLI's remaining commands from Python: validate, verify, report, the pattern and congestion sweeps, and
the interaction ranks (``rank loglinear|ssm|heads``). Each runs the CLI's own code in-process (not a
subprocess) and returns a Result whose ``to_dict()`` is the command's ``--format json`` output without the
header fields. Long calls release the GIL, take ``progress=`` and stop on Ctrl-C (KeyboardInterrupt)."""

import json
import os
import re
import sys

from . import _args, _core
from ._results import Result

_HEADER = ("schema", "mixgraph_version", "command", "parameters")


def _progress(progress, desc):
    """None, a callable progress(stage, done, total), or True: a tqdm bar when tqdm is installed, else
    one line per stage on stderr."""
    if progress is None or progress is False:
        return None, None
    if progress is not True:
        return progress, None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        def line(stage, done, total):
            of = f"/{total}" if total is not None else ""
            print(f"[{desc} {done}{of}] {stage}", file=sys.stderr, flush=True)
        return line, None
    bar = tqdm(desc=desc, total=None, unit="stage")

    def update(stage, done, total):
        if total is not None and bar.total != total:
            bar.total = total
        bar.set_postfix_str(stage, refresh=False)
        bar.update(done - bar.n)
    return update, bar


def _opt(args, flag, value):
    if value is not None:
        args += [flag, str(value)]


def _common(args, threads, mem_limit):
    _opt(args, "--threads", threads)
    _opt(args, "--mem-limit", mem_limit)
    return args + ["--format", "json"]


# The CLI's options under the Python names of the functions here (messages name what the caller wrote).
_NAMES = {"--threads": "threads", "--mem-limit": "mem_limit", "--seed": "seed", "--n": "n", "--n-max": "n_max",
          "--claim": "claims", "--sweep": "sweep", "--routing": "routing", "--out": "out", "--heads": "heads",
          "--backend": "backend", "--numeric-limit": "numeric_limit", "--state": "state", "--tol": "tol",
          "--out-channels": "p", "--in-channels": "d", "--matrices": "matrices", "--example": "example",
          "--attn-kernel": "attn_kernel", "--weights-a": "weights_a", "--weights-b": "weights_b",
          "--gates": "gates", "--input-gates": "input_gates", "--attn-q": "attn_q", "--attn-k": "attn_k",
          "--cuts": "cuts", "--method": "method", "--source": "source", "--force": "force",
          "--dense-cap": "dense_cap", "--heatmap-cap": "heatmap_cap", "--svg-cap": "svg_cap",
          "--all-pairs-cap": "all_pairs_cap", "--rank-cap": "rank_cap", "--rank-cuts": "rank_cuts",
          "--routing-cap": "routing_cap", "--lp-cap": "lp_cap", "--profile": "profile", "--summary": "summary"}
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def _python_names(message, names):
    """The message with the CLI's option names replaced by the Python argument names."""
    return _FLAG.sub(lambda m: names.get(m.group(0), _NAMES.get(m.group(0), m.group(0))), message)


def _run(kind, args, progress=None, total=None, ok_codes=(0,), names=None):
    cb, bar = _progress(_args.progress(progress), kind)
    try:
        code, out = _core._cli([str(a) for a in args], cb, -1 if total is None else total)
    except (_core.UsageError, _core.InputError) as e:  # the same class, with the Python argument names
        names = {"--pattern": "patterns" if kind == "verify" else "pattern", **(names or {})}
        raise type(e)(_python_names(str(e), names)) from None
    finally:
        if bar is not None:
            bar.close()
    if code not in ok_codes or not out.strip():
        raise _core.RuntimeFailure(f"mixgraph {args[0]} ended with exit code {code}")
    j = json.loads(out)
    header = {k: j.pop(k) for k in _HEADER if k in j}
    return Result(kind, j, {"header": header})


def _specs(p):
    return [p] if isinstance(p, str) else list(p)


def validate(pattern, n=None, *, backend="auto", seed=1, threads=0, mem_limit=None, heads=None, weights_a=None,
             weights_b=None, gates=None, input_gates=None, attn_q=None, attn_k=None, attn_kernel="softmax"):
    """Checks the solve engine on one pattern against independent references (``mixgraph validate``).

    The CPU solve against Eq. 1 evaluated directly and against a dense Eigen solve, the (min,+) distances,
    reachability and path counts against the graph code [and the GPU against the CPU when ``backend`` is
    'auto' with a GPU, or 'gpu'; 'gpu' without one raises GpuRequired]. Returns a Result with
    ``checks`` (list of {name, passed, detail}), ``all_passed``, ``kernels``, ``backend``... n <= 2**22;
    cost about that of a few dense reference solves at this n. A failed check is a finding, not an
    exception (``all_passed`` is False; the CLI exits 1).

    heads, weights_a, weights_b, gates, input_gates, attn_q, attn_k, attn_kernel: the CLI's ``--heads``
    and weight options (as ``solve``'s keywords: a .npy path or a 2-D array; arrays are written to a
    temporary .npy first): the checks run with these weights instead of the seeded ones. gates need heads
    (their columns)."""
    pattern, n = _args.text(pattern, "pattern"), _args.count(n, "n", optional=True)
    backend, seed = _args.text(backend, "backend"), _args.seed(seed)
    heads = None if heads is None else _args.integer(heads, "heads", 1, 2**31 - 1)
    attn_kernel = _args.text(attn_kernel, "attn_kernel")
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    args = ["validate", "-p", pattern]
    if n is not None:
        args += ["-n", n]
    args += ["--backend", backend, "--seed", seed]
    _opt(args, "--heads", heads)
    weights = {"weights-a": weights_a, "weights-b": weights_b, "gates": gates, "input-gates": input_gates,
               "attn-q": attn_q, "attn-k": attn_k}
    with _weight_files(weights) as flags:
        if attn_q is not None or attn_k is not None:
            flags += ["--attn-kernel", attn_kernel]
        return _run("validate", _common(args + flags, threads, mem_limit), ok_codes=(0, 1))


class _weight_files:
    """The weight options as CLI flags: paths as given, arrays saved to .npy files in a temporary
    directory removed on exit."""

    def __init__(self, weights):
        self.weights, self.dir = weights, None

    def __enter__(self):
        import os
        import tempfile

        import numpy as np

        flags = []
        for name, v in self.weights.items():
            if v is None:
                continue
            if isinstance(v, (str, bytes, os.PathLike)):
                v = _args.path(v, name.replace("-", "_"))
            else:
                if self.dir is None:
                    self.dir = tempfile.TemporaryDirectory(prefix="mixgraph-weights-")
                path = os.path.join(self.dir.name, name + ".npy")
                try:
                    a = np.asarray(v)
                except (TypeError, ValueError) as e:  # ragged nested lists and the like
                    raise _core.UsageError(f"{name.replace('-', '_')} is not an array of numbers ({e})") from None
                if a.dtype.kind not in "fiub" or a.ndim != 2:
                    raise _core.UsageError(f"{name.replace('-', '_')} must be a 2-D array of real numbers (got "
                                           f"dtype {a.dtype}, shape {a.shape})")
                np.save(path, a if a.dtype in (np.float32, np.float64) else a.astype(np.float64))
                v = path
            flags += ["--" + name, os.fsdecode(v)]
        return flags

    def __exit__(self, *exc):
        if self.dir is not None:
            self.dir.cleanup()
        return False


def claim_ids():
    """The ids of the registered claims (``mixgraph verify --list``), in the order verify runs them."""
    return list(_core._claim_ids())


def verify(claims=None, *, patterns=None, n_max=None, threads=0, mem_limit=None, progress=None):
    """Checks the papers' propositions numerically (``mixgraph verify``).

    claims: None (every registered claim, see ``claim_ids()``), one id or a list of ids. patterns:
    restrict the claims to these specs. n_max: the largest n to check (2..2**24; default each claim's
    own range). Returns a Result with ``claims``, a list of records (one dict per claim: ``id``,
    ``source``, ``number``, ``statement``, ``status`` (the CLI's verdict words: PASSED, FAILED,
    NOT APPLICABLE, ERROR), ``passed``, ``checked``, ``worst``, ``counterexample``, ``instances``,
    ``not_applicable``, ``seconds``, ...) and ``summary`` (counts per verdict). ``to_pandas()`` gives one
    row per claim. A failed claim is a finding, not an exception. progress: a callable
    progress(stage, done, total) called as each claim starts, or True (tqdm). Ctrl-C stops it at the
    next claim."""
    ids = None if claims is None else _args.specs(claims, "claims")
    patterns = None if patterns is None else _args.specs(patterns, "patterns")
    n_max = None if n_max is None else _args.count(n_max, "n_max")
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    args = ["verify"]
    for c in ids or []:
        args += ["--claim", c]
    for p in [] if patterns is None else patterns:
        args += ["--pattern", p]
    _opt(args, "--n-max", n_max)
    total = len(ids) if ids else len(_core._claim_ids())
    return _run("verify", _common(args, threads, mem_limit), progress, total)


def report(out, patterns=None, n=None, *, force=False, seed=1, dense_cap=None, heatmap_cap=None, svg_cap=None,
           all_pairs_cap=None, rank_cap=None, rank_cuts=None, routing_cap=None, lp_cap=None, pdf=False,
           threads=0, mem_limit=None, progress=None):
    """Writes the report directory ``out`` exactly as ``mixgraph report --out out`` does.

    Every analysis for each pattern (default: pow2, pow2+cache, sq1, sq1+cache, ssm) on n tokens
    (default 1024): tables/ (CSV + JSON), figures/ (PNG, SVG for small n, with the data behind each
    figure), report.md, report.ipynb and report.json. The caps are the CLI's --dense-cap, --heatmap-cap,
    ... options (None: the CLI's default). An existing non-empty ``out`` needs force=True (it must hold a
    report). The directory is written beside ``out`` and swapped in whole at the end: an error or Ctrl-C
    leaves ``out`` as it was. Returns a Result with report.json's fields (``sections``, ``table1``,
    ``files``, ``notes``, ``seconds``). progress: a callable progress(stage, done, total) called at each
    stage (total None), or True (tqdm)."""
    out = _args.path(out, "out")
    patterns = None if patterns is None else _args.specs(patterns, "patterns")
    n = _args.count(n, "n", optional=True)
    force, pdf, seed = _args.flag(force, "force"), _args.flag(pdf, "pdf"), _args.seed(seed)
    dense_cap, heatmap_cap, svg_cap, all_pairs_cap, rank_cap, rank_cuts, routing_cap, lp_cap = (
        _args.count(v, k, optional=True) for v, k in (
            (dense_cap, "dense_cap"), (heatmap_cap, "heatmap_cap"), (svg_cap, "svg_cap"),
            (all_pairs_cap, "all_pairs_cap"), (rank_cap, "rank_cap"), (rank_cuts, "rank_cuts"),
            (routing_cap, "routing_cap"), (lp_cap, "lp_cap")))
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    caps = [(flag, "" if v is None else str(v)) for flag, v in (
        ("--dense-cap", dense_cap), ("--heatmap-cap", heatmap_cap), ("--svg-cap", svg_cap),
        ("--all-pairs-cap", all_pairs_cap), ("--rank-cap", rank_cap), ("--rank-cuts", rank_cuts),
        ("--routing-cap", routing_cap), ("--lp-cap", lp_cap))]
    from . import _analysis  # the report engine called directly (analysis/report.hpp)

    return _analysis.call("report", _core._report, str(out), [] if patterns is None else list(patterns),
                          _analysis.text(n), force, str(seed), caps, pdf, _analysis.text(threads),
                          _analysis.text(mem_limit), progress=progress, names={"--pattern": "patterns"})


def pattern_sweep(pattern, sweep, *, threads=0, mem_limit=None, progress=None):
    """Decode cost and cache over a range of n with fitted growth classes (``mixgraph pattern --sweep``).

    sweep: 'LO..HI' (every power of two between, plus LO and HI) or a list '1000,3000'. Returns a Result
    with the CLI's fields (one row per n: max decode cost, max cache, nnz, ...; the growth fits);
    ``to_pandas()`` gives the rows. O(n + nnz) per n. progress: a callable progress(stage, done, total)
    called after each n (done of total sweep points), or True (tqdm); Ctrl-C stops it at the next n."""
    pattern, sweep = _args.text(pattern, "pattern"), _args.text(sweep, "sweep")
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    args = ["pattern", "-p", pattern, "--sweep", sweep]
    return _run("pattern", _common(args, threads, mem_limit), progress)


def congestion_sweep(patterns, sweep, *, routing=None, lp=False, seed=1, threads=0, mem_limit=None, progress=None):
    """The copy task over several copy lengths N and patterns (``mixgraph congestion --sweep``).

    patterns: one spec or a list. sweep: 'LO..HI' or '100,300,1000' (copy lengths N; the pattern on 2N
    tokens). Returns a Result with one row per pattern and N (copy distance, certified lower bounds with
    their certificate names, best routing's congestion, gap); ``to_pandas()`` gives the rows. progress: a
    callable progress(stage, done, total) called after each row (done of total = patterns x copy lengths),
    or True (tqdm); Ctrl-C stops it at the next row."""
    patterns, sweep = _args.specs(patterns), _args.text(sweep, "sweep")
    routing, lp, seed = _args.text(routing, "routing", optional=True), _args.flag(lp, "lp"), _args.seed(seed)
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    args = ["congestion"]
    for p in patterns:
        args += ["-p", p]
    args += ["--sweep", sweep, "--seed", seed]
    _opt(args, "--routing", routing)
    if lp:
        args.append("--lp")
    return _run("congestion", _common(args, threads, mem_limit), progress, names={"--pattern": "patterns"})


def loglinear(T, *, seed=1, numeric_limit=1024, pattern=None, threads=0, mem_limit=None):
    """Log-linear attention's mask on T queries (``mixgraph rank loglinear``): the Fenwick buckets of each
    query (0-indexed t = 0..T-1), max_levels, and the HODLR check (numeric dyadic block ranks of M^H up
    to T = numeric_limit <= 4096); with ``pattern``, also that pattern's dyadic block ranks at n = T.
    T <= 2**28."""
    T, seed = _args.count(T, "T"), _args.seed(seed)
    numeric_limit = _args.count(numeric_limit, "numeric_limit")
    pattern = _args.text(pattern, "pattern", optional=True)
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    args = ["rank", "loglinear", "-n", T, "--seed", seed, "--numeric-limit", numeric_limit]
    _opt(args, "--pattern", pattern)
    return _run("rank", _common(args, threads, mem_limit), names={"--n": "T"})


def ssm_rank(n, *, state=None, p=None, d=None, tol=0.0, seed=1, matrices=None, example=None, threads=0,
             mem_limit=None):
    """The interaction rank of a linear time-invariant SSM (``mixgraph rank ssm``): the numerical rank
    (sigma_l / sigma_1 > tol, default 1e-8) of its n x n block interaction map and the best H-head
    residuals. A random SSM of ``state`` size N with output dimension p and input dimension d (seeded),
    the matrices Abar, Bbar, C from Matrix Market files (``matrices='A.mtx,B.mtx,C.mtx'``), or
    ``example='rotation'`` (the rank-gap example)."""
    n, tol, seed = _args.count(n, "n"), _args.real(tol, "tol", 0.0, 1.0), _args.seed(seed)
    state, p, d = (_args.count(v, k, optional=True) for v, k in ((state, "state"), (p, "p"), (d, "d")))
    matrices = _args.text(matrices, "matrices", optional=True)
    example = _args.text(example, "example", optional=True)
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    args = ["rank", "ssm", "-n", n, "--tol", repr(tol), "--seed", seed]
    for flag, v in (("--state", state), ("--out-channels", p), ("--in-channels", d), ("--matrices", matrices), ("--example", example)):
        _opt(args, flag, v)
    return _run("rank", _common(args, threads, mem_limit))


def heads_rank(patterns, n, p, d, *, tol=0.0, seed=1, threads=0, mem_limit=None):
    """The interaction rank of a multi-head mixer, sum_h [(I - B_h)^{-1} A_h]_ij V_h (``mixgraph rank
    heads``): one pattern per head (a list of specs), n <= 1024 tokens, output dimension p, input
    dimension d, seeded weights; numerical rank with relative tolerance tol (0: 1e-8)."""
    patterns, n, p, d = _args.specs(patterns), _args.count(n, "n"), _args.count(p, "p"), _args.count(d, "d")
    tol, seed = _args.real(tol, "tol", 0.0, 1.0), _args.seed(seed)
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    args = ["rank", "heads"]
    for s in patterns:
        args += ["--pattern", s]
    args += ["-n", n, "--out-channels", p, "--in-channels", d, "--tol", repr(tol), "--seed", seed]
    return _run("rank", _common(args, threads, mem_limit), names={"--pattern": "patterns"})
