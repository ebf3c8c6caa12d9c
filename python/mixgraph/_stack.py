"""`stack:P1,P2,...` specs (L mixers applied in sequence) from Python: the CLI's pattern, distances, rank and
congestion for stacks (the same queries, analysis/stack.hpp, called directly); their results are the CLI's JSON (schemas mixgraph.pattern.stack,
mixgraph.distances.stack, mixgraph.rank.stack, mixgraph.congestion). A stack is not a single-layer
Pattern: ``Pattern('stack:...')`` raises UsageError."""

from . import _analysis, _args, _core


def is_stack(pattern):
    """True for a spec string starting with 'stack:'."""
    return isinstance(pattern, str) and pattern.strip().startswith("stack:")


def _refuse(kind, given):
    """A stack takes fewer options than a single layer: the ones given that it does not take."""
    names = [name for name, value in given if value]
    if names:
        raise _core.UsageError(f"{kind} of a stack: pattern does not take {', '.join(names)} (docs/cli.md, "
                               "\"Stacked layers\", lists what stacks support)")


def stack(spec, n, *, profile=False, summary=False, threads=0, mem_limit=None):
    """A stack of layers ``stack:P1,P2,...`` on n tokens (``mixgraph pattern -p 'stack:...' -n N``).

    Layers are separated by ',' (or ';' when a layer's own spec has commas), ``(LIST)*k`` repeats a list
    k times; any single-layer spec is a layer, unions and +cache included. Returns a Result with the CLI's
    JSON fields: ``depth``, ``nnz_A`` / ``nnz_B`` / ``total_decode_cost`` / ``max_decode_cost`` /
    ``max_cache`` / ``max_cache_position`` summed or maximised over the layers (token i's decode cost and
    cache are the sums over its layers), and ``layers`` (one dict per layer: ``layer``, ``pattern``,
    ``family``, ``a_mode``, ``nnz_A``, ``nnz_B``, ...). profile=True adds ``decode_cost`` and
    ``cache_size`` per position (summed over layers; uint32 lists). O(L (n + nnz)).
    """
    spec, n = _args.text(spec, "spec"), _args.count(n, "n")
    profile, summary = _args.flag(profile, "profile"), _args.flag(summary, "summary")
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    if not is_stack(spec):
        raise _core.UsageError(f"stack() takes a stack:P1,P2,... spec (got '{spec}'); a single-layer pattern "
                               "is mixgraph.Pattern(spec, n)")
    t = _analysis.text
    return _analysis.call("pattern", _core._stack_pattern, spec, str(n), profile, summary, t(threads), t(mem_limit),
                          names={"--pattern": "spec"})


def distances(spec, n, *, source=None, summary=False, threads=0, mem_limit=None, refused=()):
    """``mixgraph distances -p 'stack:...'``: distances from input j to the last layer's position i."""
    _refuse("distances", refused)
    t = _analysis.text
    return _analysis.call("distances", _core._stack_distances, spec, str(n), t(source), bool(summary), t(threads),
                          t(mem_limit))


def _cuts_text(cuts):
    if cuts is None:
        return None
    if isinstance(cuts, str):
        return cuts
    if isinstance(cuts, int):
        return str(cuts)
    return ",".join(str(int(k)) for k in cuts) + ","  # a list (a single cut '128,' is not a count)


def rank(spec, n, *, method="both", cuts=None, seed=1, tol=0.0, mem_limit=None, progress=None, refused=()):
    """``mixgraph rank -p 'stack:...'``: cut ranks of the product M = M_L ... M_1."""
    _refuse("rank", refused)
    t = _analysis.text
    return _analysis.call("rank", _core._stack_rank, spec, str(n), str(method), t(_cuts_text(cuts)), str(seed),
                          repr(float(tol)) if tol else "", t(mem_limit), progress=progress)


def congestion(spec, N, *, routing=None, lp=False, seed=1, mem_limit=None, refused=()):
    """``mixgraph congestion -p 'stack:...' -N N``: the copy task across layers (``--lp``: the LP and
    integer bounds on the stacked graph)."""
    _refuse("congestion", refused)
    t = _analysis.text
    return _analysis.call("congestion", _core._stack_congestion, spec, str(N), t(routing), bool(lp), str(seed),
                          t(mem_limit))
