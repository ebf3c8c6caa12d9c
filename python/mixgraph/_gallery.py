"""mixgraph.gallery and mixgraph.compare: mixer designs side by side as pandas DataFrames, with the numbers of
``mixgraph gallery`` (the same query, analysis/gallery.hpp, called directly)."""

from . import _analysis, _core

# The columns of gallery(), in order, with their pandas dtypes (Int64 / string: nullable, <NA> where the CLI's
# JSON has null).
GALLERY_COLUMNS = {
    "pattern": "string",
    "family": "string",
    "a_mode": "string",
    "depth": "int64",
    "total_decode_cost": "int64",
    "max_decode_cost": "int64",
    "max_cache": "int64",
    "diameter": "int64",
    "unreachable_pairs": "int64",
    "copy_possible": "bool",
    "copy_distance": "Int64",
    "copy_congestion_lower": "Int64",
    "copy_congestion_lower_from": "string",
    "copy_congestion_upper": "Int64",
    "copy_congestion_upper_from": "string",
    "max_cut_rank": "int64",
    "max_cut_rank_at": "int64",
}

# The numeric quantities compare() puts in long form (one row per design, n and quantity).
QUANTITIES = ("total_decode_cost", "max_decode_cost", "max_cache", "diameter", "unreachable_pairs", "copy_distance",
              "copy_congestion_lower", "copy_congestion_upper", "max_cut_rank")


def _spec_text(s):
    spec = getattr(s, "spec", s)  # a Pattern gives its spec (gallery runs every design at one n)
    if not isinstance(spec, str):
        from ._core import UsageError

        raise UsageError(f"a design is a spec string or a mixgraph.Pattern (got {type(s).__name__})")
    return spec


def gallery_json(specs, n, cuts=16, threads=0, mem_limit=None):
    """The Result of ``mixgraph gallery -n n --cuts cuts -p ...`` (``designs``: one dict per design)."""
    names = [] if specs is None else [_spec_text(s) for s in ([specs] if isinstance(specs, str) else list(specs))]
    t = _analysis.text
    return _analysis.call("gallery", _core._gallery, names, t(n), t(cuts), t(threads), t(mem_limit))


def _frame(designs, n, cuts):
    import pandas as pd

    rows = []
    for d in designs:
        row = {k: d.get(k) for k in GALLERY_COLUMNS}
        row["depth"] = d.get("depth", 1)
        rows.append(row)
    df = pd.DataFrame(rows, columns=list(GALLERY_COLUMNS))
    df = df.astype(GALLERY_COLUMNS)
    df.attrs.update(n=int(n), cuts=int(cuts))
    return df


def gallery(specs=None, n=4096, *, cuts=16, threads=0, mem_limit=None):
    """Mixer designs side by side at one n, one row per design (the numbers of ``mixgraph gallery``).

    specs: a list of spec strings (or Patterns; their spec is used), any family the CLI takes: single
    layers, unions ``P|Q``, ``heads:P;Q`` and ``stack:P1,P2,...`` stacks; None gives the CLI's 14 default
    designs (docs/gallery.md). n: tokens (an int or the CLI's text, >= 4; the copy task runs on n/2 + n/2).
    cuts: evenly spaced cuts for the largest cut rank (Menger max-flow). Returns a pandas DataFrame (needs
    pandas) with the CLI's JSON fields as columns, in this order and with these dtypes:

    ``pattern``, ``family``, ``a_mode`` (string; a stack's family is 'stack', its a_mode 'mixed' when its
    layers differ); ``depth`` (int64, layers; 1 for a single layer); ``total_decode_cost``,
    ``max_decode_cost``, ``max_cache`` (int64; summed over a stack's layers per token); ``diameter`` (int64,
    over reachable pairs) and ``unreachable_pairs`` (int64); ``copy_possible`` (bool); ``copy_distance``,
    ``copy_congestion_lower``, ``copy_congestion_upper`` (Int64, <NA> where the copy task is impossible or
    no routing was checked) with ``copy_congestion_lower_from`` / ``copy_congestion_upper_from`` (string:
    the certificate and the routing, <NA> likewise); ``max_cut_rank`` and ``max_cut_rank_at`` (int64).
    ``df.attrs`` holds ``n`` and ``cuts``. Cost: each design's profile, distances (all-pairs for patterns
    that are not translation-invariant), copy routings and cut ranks, as the CLI."""
    r = gallery_json(specs, n, cuts, threads, mem_limit)
    return _frame(r.designs, r.n, cuts)


def compare(specs=None, n=4096, *, quantities=None, cuts=16, threads=0, mem_limit=None):
    """gallery() in long form: one row per design, n and quantity (columns ``pattern`` string, ``n`` int64,
    ``quantity`` string, ``value`` Int64, <NA> where gallery has <NA>), for plotting and grouping.

    specs: as gallery's, or a DataFrame from gallery() (put in long form as it is; n and cuts are then its
    own). n: one n or a list of them (gallery runs once per n). quantities: the gallery columns to keep (default
    every numeric one: total_decode_cost, max_decode_cost, max_cache, diameter, unreachable_pairs,
    copy_distance, copy_congestion_lower, copy_congestion_upper, max_cut_rank), in that order; an unknown
    name raises UsageError. Rows are ordered by n, then design (as given), then quantity."""
    import pandas as pd

    from ._core import UsageError

    qs = list(QUANTITIES if quantities is None else ([quantities] if isinstance(quantities, str) else quantities))
    unknown = [q for q in qs if q not in QUANTITIES]
    if unknown:
        raise UsageError(f"unknown quantity {unknown[0]!r}; compare takes {', '.join(QUANTITIES)}")
    if hasattr(specs, "columns"):  # a gallery DataFrame: its numbers, not computed again
        tables = [specs]
    else:
        ns = [n] if isinstance(n, (int, str)) else list(n)
        tables = [gallery(specs, nv, cuts=cuts, threads=threads, mem_limit=mem_limit) for nv in ns]
    frames = []
    for g in tables:
        rows = [(g.at[i, "pattern"], g.attrs["n"], q, g.at[i, q]) for i in range(len(g)) for q in qs]
        frames.append(pd.DataFrame(rows, columns=["pattern", "n", "quantity", "value"]))
    out = pd.concat(frames, ignore_index=True)
    return out.astype({"pattern": "string", "n": "int64", "quantity": "string", "value": "Int64"})
