"""The CLI's remaining commands from Python: validate, verify, report, the pattern and congestion sweeps, and
the interaction ranks (``rank loglinear|ssm|heads``). Each returns a Result whose ``to_dict()`` is the
command's ``--format json`` output without the header fields (``header``). validate, verify, the sweeps and
the ranks, and report, call the analyses both front ends share (analysis/, bound in
python/src/bind_analysis.cpp and bind_report.cpp) directly: no CLI runs in-process. Long calls release the
GIL, take ``progress=`` and stop on Ctrl-C (KeyboardInterrupt)."""

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


def _document(kind, call, progress=None, names=None):
    """call(progress_callback) -> the analysis's JSON document (dict); a Result of its body, with the header
    fields as ``header``. Argument errors name the Python arguments."""
    cb, bar = _progress(_args.progress(progress), kind)
    try:
        j = call(cb)
    except (_core.UsageError, _core.InputError) as e:  # the same class, with the Python argument names
        names = {"--pattern": "patterns" if kind == "verify" else "pattern", **(names or {})}
        raise type(e)(_python_names(str(e), names)) from None
    finally:
        if bar is not None:
            bar.close()
    header = {k: j.pop(k) for k in _HEADER if k in j}
    return Result(kind, j, {"header": header})


def _member(value, name, choices):
    """The CLI's check of an option with fixed choices, with its message (``name: x not in {a,b}``)."""
    if value is not None and value not in choices:
        raise _core.UsageError(f"{name}: {value} not in {{{','.join(choices)}}}")
    return value


def _text(v):
    """A count as the CLI's text ('' for None)."""
    return "" if v is None else str(v)


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
    and weight options (as ``solve``'s keywords: a .npy path or a 2-D array, read in place): the checks
    run with these weights instead of the seeded ones. gates need heads (their columns)."""
    pattern, n = _args.text(pattern, "pattern"), _args.count(n, "n", optional=True)
    backend, seed = _args.text(backend, "backend"), _args.seed(seed)
    heads = None if heads is None else _args.integer(heads, "heads", 1, 2**31 - 1)
    attn_kernel = _args.text(attn_kernel, "attn_kernel")
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    _member(backend, "backend", ("auto", "cpu", "gpu"))
    if attn_q is not None or attn_k is not None:
        _member(attn_kernel, "attn_kernel", ("softmax", "linear"))
    weights = {name: _weight(v, name) for name, v in (
        ("weights_a", weights_a), ("weights_b", weights_b), ("gates", gates), ("input_gates", input_gates),
        ("attn_q", attn_q), ("attn_k", attn_k))}
    return _document("validate", lambda cb: _core._validate(
        pattern, _text(n), backend, seed, 0 if heads is None else heads, threads, mem_limit, **weights,
        attn_kernel=attn_kernel))


def _weight(v, name):
    """A weight argument as the core takes it: None, a path (str) as given, or a 2-D C-contiguous float32 /
    float64 array (other real dtypes converted to float64)."""
    if v is None:
        return None
    if isinstance(v, (str, bytes, os.PathLike)):
        return os.fsdecode(_args.path(v, name))
    import numpy as np

    try:
        a = np.asarray(v)
    except (TypeError, ValueError) as e:  # ragged nested lists and the like
        raise _core.UsageError(f"{name} is not an array of numbers ({e})") from None
    if a.dtype.kind not in "fiub" or a.ndim != 2:
        raise _core.UsageError(f"{name} must be a 2-D array of real numbers (got dtype {a.dtype}, shape {a.shape})")
    return np.ascontiguousarray(a if a.dtype in (np.float32, np.float64) else a.astype(np.float64))


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
    return _document("verify", lambda cb: _core._verify(ids or [], patterns or [], _text(n_max), threads,
                                                      mem_limit, cb), progress)


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
    return _document("pattern", lambda cb: _core._pattern_sweep(pattern, sweep, threads, mem_limit, cb), progress)


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
    _member(routing, "routing", ("shift", "random", "minmax", "all"))
    return _document("congestion", lambda cb: _core._congestion_sweep(
        patterns, sweep, routing or "", lp, seed, threads, mem_limit, cb), progress, names={"--pattern": "patterns"})


def loglinear(T, *, seed=1, numeric_limit=1024, pattern=None, threads=0, mem_limit=None):
    """Log-linear attention's mask on T queries (``mixgraph rank loglinear``): the Fenwick buckets of each
    query (0-indexed t = 0..T-1), max_levels, and the HODLR check (numeric dyadic block ranks of M^H up
    to T = numeric_limit <= 4096); with ``pattern``, also that pattern's dyadic block ranks at n = T.
    T <= 2**28."""
    T, seed = _args.count(T, "T"), _args.seed(seed)
    numeric_limit = _args.count(numeric_limit, "numeric_limit")
    pattern = _args.text(pattern, "pattern", optional=True)
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    return _document("rank", lambda cb: _core._loglinear(_text(T), seed, _text(numeric_limit), pattern or "",
                                                       threads, mem_limit), names={"--n": "T"})


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
    _member(example, "example", ("rotation",))
    return _document("rank", lambda cb: _core._ssm_rank(_text(n), _text(state), _text(p), _text(d), matrices or "",
                                                      example or "", seed, tol, threads, mem_limit))


def heads_rank(patterns, n, p, d, *, tol=0.0, seed=1, threads=0, mem_limit=None):
    """The interaction rank of a multi-head mixer, sum_h [(I - B_h)^{-1} A_h]_ij V_h (``mixgraph rank
    heads``): one pattern per head (a list of specs), n <= 1024 tokens, output dimension p, input
    dimension d, seeded weights; numerical rank with relative tolerance tol (0: 1e-8)."""
    patterns, n, p, d = _args.specs(patterns), _args.count(n, "n"), _args.count(p, "p"), _args.count(d, "d")
    tol, seed = _args.real(tol, "tol", 0.0, 1.0), _args.seed(seed)
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    return _document("rank", lambda cb: _core._heads_rank(patterns, _text(n), _text(p), _text(d), seed, tol, threads,
                                                        mem_limit), names={"--pattern": "patterns"})
