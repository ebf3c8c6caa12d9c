"""Figures of mixgraph's results with matplotlib, for notebooks and papers.

matplotlib is imported when a function here is first called, never by ``import mixgraph``. Every function
takes a result (or the data) and an optional ``ax``; without one it makes a figure with
``plt.subplots()`` (so ``figure.figsize``, ``figure.dpi`` and every other rcParam apply). It returns the
Axes it drew on (``ax.figure`` is the Figure), sets labels and a title you can change, never calls
``plt.show()`` and never sets fonts, sizes or colours itself: styles, ``plt.rc_context`` and ``ax.set_*``
restyle everything afterwards. Colours come from the property cycle.

    import mixgraph, mixgraph.plot
    ax = mixgraph.plot.heatmap(mixgraph.distances("sq1", 256, matrix=True))
    ax.figure.savefig("sq1.pdf")
"""

import numpy as np

from ._core import UNREACHABLE

__all__ = ["congestion", "cut_ranks", "gallery_bars", "heatmap", "profile"]


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots()[1]


def _field(obj, name, default=None):
    if isinstance(obj, dict):
        return obj.get(name, default)
    try:
        return getattr(obj, name)
    except AttributeError:
        return default


def heatmap(data, ax=None, *, cmap=None, colorbar=True, title=None):
    """The distance matrix d(i, j) as an image, unreachable pairs masked (drawn in the colormap's 'bad'
    colour, transparent by default, so the axes background shows).

    data: a distances Result with ``matrix`` (``mixgraph.distances(p, n, matrix=True)``) or an n x n array
    with ``matrix[i-1, j-1] = d(i, j)`` and ``mixgraph.UNREACHABLE`` (or a negative value or NaN) where no
    path exists. Row = target i (output), column = source j (input), both 1-indexed, i down. cmap: a
    colormap or name (default rcParams['image.cmap']). colorbar: add a colour bar labelled 'distance
    (hops)'. Returns the Axes; the image is ``ax.images[0]`` (its array is masked where unreachable)."""
    m = _field(data, "matrix", data)
    m = np.asarray(m)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        from ._core import UsageError

        raise UsageError(f"heatmap needs an n x n distance matrix (got shape {m.shape}); pass "
                         "mixgraph.distances(..., matrix=True)")
    if m.dtype == np.uint32:
        bad = m == UNREACHABLE
    elif m.dtype.kind == "f":
        bad = ~np.isfinite(m) | (m < 0)
    else:
        bad = m < 0
    img = np.ma.masked_array(m.astype(np.float64), mask=bad)
    ax = _axes(ax)
    n = m.shape[0]
    im = ax.imshow(img, cmap=cmap, origin="upper", interpolation="nearest", extent=(0.5, n + 0.5, n + 0.5, 0.5))
    ax.set_xlabel("source j")
    ax.set_ylabel("target i")
    spec = _field(data, "pattern", None) if not isinstance(data, np.ndarray) else None
    ax.set_title(title if title is not None else (f"d(i, j), {spec}" if spec else "d(i, j)"))
    if colorbar:
        ax.figure.colorbar(im, ax=ax, label="distance (hops)")
    return ax


def _profile_frame(p):
    """(label, positions, decode cost, cache size) of a Pattern, a stack Result with profile=True or a
    DataFrame with position, decode_cost, cache_size columns."""
    if hasattr(p, "decode_cost") and callable(p.decode_cost):  # a Pattern
        return p.spec, np.arange(1, p.n + 1), p.decode_cost(), p.cache_sizes()
    if hasattr(p, "columns"):  # a DataFrame
        label = p.attrs.get("pattern", None)
        return label, np.asarray(p["position"]), np.asarray(p["decode_cost"]), np.asarray(p["cache_size"])
    d = np.asarray(_field(p, "decode_cost")), np.asarray(_field(p, "cache_size"))
    return _field(p, "pattern"), np.arange(1, d[0].size + 1), d[0], d[1]


def profile(patterns, ax=None, *, quantity="cache", logy=False, title=None):
    """Per-position cache or decode cost of one or more patterns, one line each (labelled by spec).

    patterns: a Pattern, a stack Result (``mixgraph.stack(spec, n, profile=True)``), a DataFrame with
    ``position``, ``decode_cost`` and ``cache_size`` (``Pattern.to_pandas()``), or a list of them.
    quantity: 'cache' (|C_i|, the values a decoder keeps at step i) or 'decode' (the reads of token i).
    Returns the Axes (lines in ``ax.lines``, in the order given)."""
    if quantity not in ("cache", "decode"):
        from ._core import UsageError

        raise UsageError(f"quantity must be 'cache' or 'decode' (got {quantity!r})")
    items = patterns if isinstance(patterns, (list, tuple)) else [patterns]
    ax = _axes(ax)
    for p in items:
        label, x, dec, cache = _profile_frame(p)
        ax.plot(x, cache if quantity == "cache" else dec, label=label, drawstyle="steps-post")
    ax.set_xlabel("position i")
    ax.set_ylabel("cache size |C_i|" if quantity == "cache" else "decode cost (reads of token i)")
    if logy:
        ax.set_yscale("log")
    ax.set_title(title if title is not None else ("cache profile" if quantity == "cache" else "decode cost"))
    if any(_profile_frame(p)[0] for p in items):
        ax.legend()
    return ax


def _bounds(results):
    """(design, lower, upper) per design from a gallery DataFrame or congestion Results."""
    if hasattr(results, "columns"):
        return [(str(r["pattern"]), r["copy_congestion_lower"], r["copy_congestion_upper"])
                for _, r in results.iterrows()]
    items = results if isinstance(results, (list, tuple)) else [results]
    return [(_field(r, "pattern"), _field(r, "lower_bound"), _field(r, "upper_bound")) for r in items]


def _num(v):
    try:
        import pandas as pd

        if v is pd.NA:
            return None
    except ImportError:
        pass
    return None if v is None else float(v)


def congestion(results, ax=None, *, logy=False, title=None):
    """Copy-task congestion per design: the certified lower bound and the best checked routing (upper
    bound), joined by a line; where they meet the optimum is known. Designs whose copy task is impossible
    are marked 'impossible' on the axis.

    results: a gallery DataFrame (``mixgraph.gallery``: copy_congestion_lower / _upper) or a list of
    congestion Results (lower_bound, upper_bound). logy: logarithmic value axis. Returns the Axes (x =
    designs in order; the lower bounds are ``ax.lines[0]``, the upper bounds ``ax.lines[1]``)."""
    rows = _bounds(results)
    ax = _axes(ax)
    x = np.arange(len(rows))
    lo = np.array([np.nan if _num(r[1]) is None else _num(r[1]) for r in rows])
    hi = np.array([np.nan if _num(r[2]) is None else _num(r[2]) for r in rows])
    ax.plot(x, lo, linestyle="none", marker="^", label="lower bound (certified)")
    ax.plot(x, hi, linestyle="none", marker="v", label="upper bound (best routing)")
    ax.vlines(x, lo, hi, colors="0.6", linewidth=1)
    labels = [r[0] if not np.isnan(lo[k]) else f"{r[0]}\n(impossible)" for k, r in enumerate(rows)]
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=45, ha="right")
    ax.set_ylabel("copy congestion")
    if logy:
        ax.set_yscale("log")
    ax.set_title(title if title is not None else "copy-task congestion bounds")
    ax.legend()
    return ax


def cut_ranks(results, ax=None, *, cache=True, title=None):
    """Cut rank r(K) against the cut K for one or more rank Results (``mixgraph.rank``, single layers and
    stacks), one line each (the flow rank, else the numeric one), with the decode cache |C_K| dashed
    (cache=True, where the result has it). Returns the Axes (rank lines first, then the cache lines)."""
    items = results if isinstance(results, (list, tuple)) else [results]
    ax = _axes(ax)
    lines = []
    for r in items:
        cuts = np.asarray(_field(r, "cuts"))
        ranks = None
        for key in ("cut_rank_flow", "flow", "cut_rank_numeric", "numeric"):
            v = _field(r, key)
            if v is not None:
                ranks = np.asarray(v)
                break
        (line,) = ax.plot(cuts, ranks, label=f"{_field(r, 'pattern')} r(K)")
        lines.append((r, line))
    if cache:
        for r, line in lines:
            c = _field(r, "cache_at_cut")
            if c is not None:
                ax.plot(np.asarray(_field(r, "cuts")), np.asarray(c), linestyle="--", color=line.get_color(),
                        label=f"{_field(r, 'pattern')} |C_K|")
    ax.set_xlabel("cut K")
    ax.set_ylabel("cut rank r(K)")
    ax.set_title(title if title is not None else "cut-rank profile")
    ax.legend()
    return ax


def gallery_bars(df, quantity="max_cache", ax=None, *, log=False, title=None):
    """One bar per design of a gallery DataFrame (``mixgraph.gallery``) for one column (``quantity``, e.g.
    'max_cache', 'max_decode_cost', 'diameter', 'copy_distance', 'max_cut_rank'). Missing values (<NA>: the
    copy task impossible) get no bar and 'n/a' on the axis. log: logarithmic value axis. Returns the Axes
    (bars in ``ax.patches``, one per design in order, height 0 where missing)."""
    if quantity not in df.columns:
        from ._core import UsageError

        raise UsageError(f"gallery has no column {quantity!r}; columns: {', '.join(df.columns)}")
    vals = [_num(v) for v in df[quantity]]
    ax = _axes(ax)
    x = np.arange(len(vals))
    ax.bar(x, [0 if v is None else v for v in vals])
    ax.set_xticks(x)
    ax.set_xticklabels([str(p) if v is not None else f"{p} (n/a)" for p, v in zip(df["pattern"], vals)],
                       rotation=45, ha="right")
    if log:
        ax.set_yscale("log")
    ax.set_ylabel(quantity.replace("_", " "))
    n = df.attrs.get("n")
    ax.set_title(title if title is not None else (f"{quantity.replace('_', ' ')}, n = {n}" if n else quantity))
    return ax
