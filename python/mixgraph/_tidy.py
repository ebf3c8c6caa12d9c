"""Result.to_pandas(table): every table a result holds (profiles, histograms, sweeps, per-head, per-layer and
per-cut tables) as a long pandas DataFrame with documented columns and dtypes. Counts and positions are
int64; values that may be missing ("unreachable" distances, ranks not computed, an impossible copy) are
pandas' nullable Int64 (<NA>); text is the nullable string dtype."""

import numpy as np

from ._core import UNREACHABLE

# The tables by kind of result: name -> (field the table needs, builder). The first one present is the
# default of to_pandas() where the CLI's --format csv table (Result.to_pandas()) does not apply.


def _ints(seq, unreachable=True):
    """A nullable Int64 array: None (JSON null) and, for distances, UNREACHABLE become <NA>."""
    import pandas as pd

    if isinstance(seq, np.ndarray):
        vals = seq.astype(np.int64)
        mask = seq == UNREACHABLE if unreachable and seq.dtype == np.uint32 else np.zeros(seq.shape, bool)
        return pd.arrays.IntegerArray(np.where(mask, 0, vals), mask)
    return pd.array([None if v is None or (unreachable and v == UNREACHABLE) else int(v) for v in seq],
                    dtype="Int64")


def _df(cols, dtypes=None):
    import pandas as pd

    df = pd.DataFrame(cols)
    return df.astype(dtypes) if dtypes else df


def _profile(f):
    p = f["profile"]
    return _df({"m": np.arange(len(p), dtype=np.int64), "delta": _ints(p)})


def _histogram(f):
    h = f["histogram"]
    return _df({"distance": np.arange(len(h), dtype=np.int64), "pairs": np.asarray(h, dtype=np.int64)})


def _eccentricity(f):
    e = f["eccentricity"]
    return _df({"position": np.arange(1, len(e) + 1, dtype=np.int64), "eccentricity": _ints(e)})


def _by_depth(f):
    return _df(f["by_depth"], {"depth": "int64", "layer_pattern": "string", "diameter": "int64",
                               "mean_distance": "float64", "reachable_pairs": "int64", "unreachable_pairs": "int64"})


def _stack_distances(f):
    d = f["distances"]
    return _df({"position": np.arange(1, len(d) + 1, dtype=np.int64), "dist_from_source": _ints(d)})


def _heads(f):
    import pandas as pd

    h = f["heads"]
    if isinstance(h, dict):  # rank: per head, one row per head and cut
        rows = [(i, ph["pattern"], int(c), int(r)) for i, ph in enumerate(h["per_head"])
                for c, r in zip(f["cuts"], ph["cut_rank_flow"])]
        return pd.DataFrame(rows, columns=["head", "pattern", "cut", "rank_flow"]).astype(
            {"head": "int64", "pattern": "string", "cut": "int64", "rank_flow": "int64"})
    df = pd.DataFrame(h)
    df.insert(0, "head", np.arange(len(df), dtype=np.int64))
    return df.astype({"pattern": "string"})


def _growth(f):
    import pandas as pd

    rows = []
    for t in f["sweep"]:
        for q, g in t["growth"].items():
            rows.append((t["pattern"], q, g["class"], g["relative_residual"]))
    return pd.DataFrame(rows, columns=["pattern", "quantity", "class", "relative_residual"]).astype(
        {"pattern": "string", "quantity": "string", "class": "string", "relative_residual": "float64"})


def _fits(f):
    import pandas as pd

    rows = [(q, g["class"], g["relative_residual"]) for q, g in f["fits"].items()]
    return pd.DataFrame(rows, columns=["quantity", "class", "relative_residual"]).astype(
        {"quantity": "string", "class": "string", "relative_residual": "float64"})


def _cut_ranks(f):
    """Long: one row per cut and series (numeric, flow, cache)."""
    import pandas as pd

    cuts = np.asarray(f["cuts"], dtype=np.int64)
    series = []
    for key, name in (("cut_rank_numeric", "numeric"), ("numeric", "numeric"), ("cut_rank_flow", "flow"),
                      ("flow", "flow"), ("cache_at_cut", "cache")):
        if key in f and f[key] is not None:
            series.append((name, f[key]))
    parts = [pd.DataFrame({"cut": cuts, "series": name, "value": _ints(v, unreachable=False)})
             for name, v in series]
    df = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame({"cut": [], "series": [], "value": []})
    return df.astype({"cut": "int64", "series": "string", "value": "Int64"})


def _dyadic(f):
    return _df(f["dyadic_blocks"], {"block_size": "int64", "blocks": "int64", "max_rank": "int64"})


def _layers(f):
    import pandas as pd

    layers = f["layers"]
    if layers and isinstance(layers[0], str):  # rank of a stack: the layers' specs
        layers = [{"pattern": p} for p in layers]
    df = pd.DataFrame(layers)
    if "layer" not in df.columns:
        df.insert(0, "layer", np.arange(1, len(df) + 1, dtype=np.int64))
    return df.astype({c: "string" for c in ("pattern", "family", "a_mode") if c in df.columns})


def _stack_profile(f):
    d, c = f["decode_cost"], f["cache_size"]
    return _df({"position": np.arange(1, len(d) + 1, dtype=np.int64), "decode_cost": np.asarray(d, np.int64),
                "cache_size": np.asarray(c, np.int64)})


def _loads(f):
    import pandas as pd

    parts = [pd.DataFrame({"routing": r["name"], "position": np.arange(1, len(r["loads"]) + 1, dtype=np.int64),
                           "load": np.asarray(r["loads"], dtype=np.int64)})
             for r in f["routings"] if r.get("loads") is not None]
    return pd.concat(parts, ignore_index=True).astype({"routing": "string"})


def _lower_bounds(f):
    import pandas as pd

    lb = f["lower_bounds"]
    return pd.DataFrame({"certificate": pd.array(list(lb), dtype="string"), "bound": _ints(list(lb.values()), False)})


def _residuals(f):
    r = f["residual_by_heads"]
    return _df({"heads": np.arange(1, len(r) + 1, dtype=np.int64), "residual": np.asarray(r, dtype=np.float64)})


def _singular_values(f):
    s = f["singular_values"]
    return _df({"index": np.arange(1, len(s) + 1, dtype=np.int64), "sigma": np.asarray(s, dtype=np.float64)})


def _buckets(f):
    b = f["buckets_per_query"]
    return _df({"t": np.arange(len(b), dtype=np.int64), "buckets": np.asarray(b, dtype=np.int64)})


def _path_lengths(f):
    import pandas as pd

    rows = [dict(pattern=t["pattern"], **r) for t in f["sweep"] for r in t["rows"]]
    df = pd.DataFrame(rows)
    for c in ("copy_distance", "max_delta"):
        if c in df.columns:
            df[c] = _ints(list(df[c].astype(object).where(df[c].notna(), None)), False)
    return df.astype({c: "string" for c in ("pattern", "source_of_figures") if c in df.columns})


# kind -> [(table name, fields it needs, builder)], in default order
TABLES = {
    "distances": [("profile", ("profile",), _profile), ("histogram", ("histogram",), _histogram),
                  ("eccentricity", ("eccentricity",), _eccentricity), ("by_depth", ("by_depth",), _by_depth),
                  ("distances", ("distances",), _stack_distances), ("heads", ("heads",), _heads),
                  ("sweep", ("sweep",), _path_lengths), ("growth", ("sweep",), _growth)],
    "rank": [("cut_ranks", ("cuts",), _cut_ranks), ("dyadic_blocks", ("dyadic_blocks",), _dyadic),
             ("heads", ("heads", "cuts"), _heads), ("layers", ("layers",), _layers),
             ("residuals", ("residual_by_heads",), _residuals),
             ("singular_values", ("singular_values",), _singular_values),
             ("buckets", ("buckets_per_query",), _buckets)],
    "congestion": [("lower_bounds", ("lower_bounds",), _lower_bounds), ("loads", ("routings",), _loads),
                   ("layers", ("layers",), _layers), ("heads", ("heads",), _heads)],
    "pattern": [("profile", ("decode_cost", "cache_size"), _stack_profile), ("layers", ("layers",), _layers),
                ("heads", ("heads",), _heads), ("fits", ("fits",), _fits)],
}


def _present(f, needs):
    return all(k in f and f[k] is not None and not (isinstance(f[k], (list, dict)) and len(f[k]) == 0)
               for k in needs)


def names(kind, f):
    """The names of the tables this result holds (to_pandas(name) builds one)."""
    out = [name for name, needs, _ in TABLES.get(kind, []) if _present(f, needs)]
    if kind == "congestion" and "routings" in f and not any(r.get("loads") is not None for r in f["routings"]):
        out = [t for t in out if t != "loads"]
    return out


def frame(kind, f, table):
    """The table ``table`` of a result as a DataFrame; UsageError naming the tables it holds otherwise."""
    from ._core import UsageError

    for name, needs, build in TABLES.get(kind, []):
        if name == table and table in names(kind, f):
            return build(f)
    have = names(kind, f)
    raise UsageError(f"a {kind} result has no table {table!r}"
                     + (f"; it has {', '.join(repr(h) for h in have)}" if have else ""))
