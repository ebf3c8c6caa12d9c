"""Result objects of mixgraph's analyses: attributes hold numpy arrays, to_dict() gives the CLI's JSON."""

import numpy as np

from . import _tables, _tidy
from ._core import UNREACHABLE

# Fields whose entries are distances: UNREACHABLE becomes None (JSON null) in to_dict().
_DISTANCE_FIELDS = frozenset({"profile", "dist", "dist_to_target", "distance"})


def _plain(value, key=None):
    if isinstance(value, np.ndarray):
        out = value.tolist()
        if key in _DISTANCE_FIELDS:
            out = [None if v == UNREACHABLE else v for v in out]
        return out
    if isinstance(value, dict):
        return {k: _plain(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if key in _DISTANCE_FIELDS and value == UNREACHABLE:
        return None
    return value


class Result:
    """The result of one analysis.

    Every field of the CLI's ``--format json`` output (without the header fields ``schema``,
    ``mixgraph_version``, ``command`` and ``parameters``) is an attribute; per-position and per-cut lists
    are numpy arrays (uint32 / uint64, entry 0 = position 1 or the first cut). Distances use
    ``mixgraph.UNREACHABLE`` (2**32 - 1) for "no path". ``to_dict()`` gives the JSON fields exactly:
    lists as lists and UNREACHABLE as None.

    ``to_json(lists)`` (from the compiled core) runs the CLI's own JSON serialiser on the result: to_dict()
    is its output, and the attributes are its fields (``lists=False``: without the per-position lists,
    computed on first use) overlaid with ``fields`` (the numpy arrays).
    """

    def __init__(self, kind, fields, extra=None, to_json=None):
        self._kind = kind
        self._arrays = dict(fields)
        self._extra = dict(extra or {})
        self._to_json = to_json
        self._scalars = None

    def _json_fields(self):
        if self._to_json is None:
            return {}
        if self._scalars is None:
            self._scalars = self._to_json(False)
        return self._scalars

    @property
    def _fields(self):
        """The attributes that are JSON fields: the serialiser's fields with the numpy arrays over them."""
        return {**self._json_fields(), **self._arrays}

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        for store in (self._arrays, self._extra, self._json_fields()):
            if name in store:
                return store[name]
        raise AttributeError(f"{self._kind} result has no field {name!r}")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._fields) | set(self._extra))

    def keys(self):
        """The names of the JSON fields, in the CLI's order."""
        return list(self.to_dict()) if self._to_json is not None else list(self._fields)

    def to_dict(self):
        """The same fields and values as the CLI's ``--format json`` output (lists, None = unreachable)."""
        if self._to_json is not None:
            return self._to_json(True)
        d = _plain(self._fields)
        if "path_counts" in self._fields:
            dist = self._fields["dist"]
            d["path_counts"] = [None if dv == UNREACHABLE else int(c)
                                for dv, c in zip(dist.tolist(), self._fields["path_counts"].tolist())]
        return d

    def tables(self):
        """The names of the long tables this result holds, for ``to_pandas(name)`` (docs/python.md, "Tidy
        tables"): e.g. 'profile', 'histogram', 'eccentricity', 'cut_ranks', 'loads', 'layers'."""
        return _tidy.names(self._kind, self._fields)

    def to_pandas(self, table=None):
        """The result's table as a pandas DataFrame (needs pandas; ImportError otherwise).

        table: None gives the table the CLI's ``--format csv`` prints (below); a name from ``tables()``
        gives that table in long form with the columns and dtypes of docs/python.md, "Tidy tables"
        (nullable Int64 <NA> for unreachable distances and missing values).

        Without table, the CLI's ``--format csv`` table: distances with source/target: one row per
        position (``position``, ``dist_from_source``, ``path_count``, ``dist_to_target``), else the
        profile (``m``, ``delta``) or, for path_lengths, one row per pattern and n; rank: one row per cut;
        congestion: one row per routing (congestion_sweep: per pattern and N); pattern_sweep: per n;
        verify: per claim; validate: per check; report: Table 1. Unreachable distances are <NA> (pandas'
        nullable UInt32). Results without such a table (stacks, interaction ranks, ...) give their first
        table of ``tables()``."""
        import pandas as pd

        f = self._fields
        if table is not None:
            return _tidy.frame(self._kind, f, table)
        table = _tables.rows(self._kind, f)
        if table is not None:
            return pd.DataFrame(table)

        def dist_col(a):
            return pd.array([None if v == UNREACHABLE else v for v in a.tolist()], dtype="UInt32")

        if "depth" in f and self._kind in ("distances", "rank"):  # a stack's: lists, not arrays
            return _tidy.frame(self._kind, f, _tidy.names(self._kind, f)[0])
        if "sweep" in f:
            return pd.DataFrame([dict(pattern=t["pattern"], **r) for t in f["sweep"] for r in t["rows"]])
        if self._kind == "distances":
            if "dist" in f or "dist_to_target" in f:
                cols = {"position": np.arange(1, f["n"] + 1)}
                if "dist" in f:
                    cols["dist_from_source"] = dist_col(f["dist"])
                if "path_counts" in f:
                    cols["path_count"] = np.where(f["dist"] == UNREACHABLE, 0, f["path_counts"])
                if "dist_to_target" in f:
                    cols["dist_to_target"] = dist_col(f["dist_to_target"])
                return pd.DataFrame(cols)
            if "profile" in f:
                return pd.DataFrame({"m": np.arange(f["profile"].size), "delta": dist_col(f["profile"])})
            return pd.DataFrame([{k: f[k] for k in ("pattern", "n", "diameter", "mean_distance", "reachable_pairs",
                                                    "unreachable_pairs", "figures_from") if k in f}])
        if self._kind == "rank" and "cut_rank_flow" in f:
            cols = {"cut": f["cuts"]}
            for key, name in (("cut_rank_numeric", "rank_numeric"), ("cut_rank_flow", "rank_flow")):
                if f[key] is not None:
                    cols[name] = f[key]
            cols["cache_at_cut"] = f["cache_at_cut"]
            return pd.DataFrame(cols)
        if self._kind == "congestion":
            return pd.DataFrame([{"name": r["name"], "congestion": r["congestion"],
                                  "argmax_position": r["argmax_position"], "positions_at_max": r["positions_at_max"],
                                  "path_length_min": r["path_length"]["min"],
                                  "path_length_mean": r["path_length"]["mean"],
                                  "path_length_max": r["path_length"]["max"]} for r in f["routings"]])
        have = _tidy.names(self._kind, f)
        if have:  # stacks, interaction ranks, ...: their first long table
            return _tidy.frame(self._kind, f, have[0])
        raise TypeError(f"a {self._kind} result has no table")

    def __repr__(self):
        shown = []
        for k, v in self._fields.items():
            if isinstance(v, np.ndarray):
                shown.append(f"{k}=<{v.dtype} array of {v.size}>")
            elif isinstance(v, (list, dict)):
                shown.append(f"{k}=<{type(v).__name__} of {len(v)}>")
            else:
                shown.append(f"{k}={v!r}")
            if len(shown) >= 8:
                shown.append("...")
                break
        return f"mixgraph.Result[{self._kind}](" + ", ".join(shown) + ")"
