"""Result objects of mixgraph's analyses: attributes hold numpy arrays, to_dict() gives the CLI's JSON."""

import numpy as np

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
    """

    def __init__(self, kind, fields, extra=None):
        self._kind = kind
        self._fields = dict(fields)
        self._extra = dict(extra or {})

    def __getattr__(self, name):
        for d in ("_fields", "_extra"):
            store = self.__dict__.get(d, {})
            if name in store:
                return store[name]
        raise AttributeError(f"{self._kind} result has no field {name!r}")

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._fields) | set(self._extra))

    def keys(self):
        """The names of the JSON fields, in the CLI's order."""
        return list(self._fields)

    def to_dict(self):
        """The same fields and values as the CLI's ``--format json`` output (lists, None = unreachable)."""
        d = _plain(self._fields)
        if "path_counts" in self._fields:
            dist = self._fields["dist"]
            d["path_counts"] = [None if dv == UNREACHABLE else int(c)
                                for dv, c in zip(dist.tolist(), self._fields["path_counts"].tolist())]
        return d

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
