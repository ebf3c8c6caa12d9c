"""The results of an experiment: per-run rows, the table per (task, pattern) beside the pattern's graph
quantities at the task's length, and the Spearman rank correlations between accuracy and each quantity."""

import csv
import io
import json
import math
import os
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from . import checkpoint as ckpt

SCHEMA = "mixgraph.experiment/1"

#: the graph quantities of each pattern, from mixgraph.gallery at n = the task's length T
GRAPH_COLUMNS = ("diameter", "unreachable_pairs", "copy_distance", "copy_congestion_lower", "copy_congestion_upper",
                 "max_cut_rank")

#: the quantities correlated with accuracy (per task, over the patterns run)
CORRELATED = ("diameter", "copy_distance", "copy_congestion_lower", "copy_congestion_upper", "max_cut_rank")

RUN_COLUMNS = ("task", "pattern", "seed", "n", "weights", "accuracy", "eval_loss", "scored", "train_loss", "steps",
               "seconds", "device")

TABLE_COLUMNS = ("task", "pattern", "n", "seeds", "accuracy_mean", "accuracy_std", "accuracy_min", "accuracy_max") + \
    GRAPH_COLUMNS

CORRELATION_COLUMNS = ("task", "quantity", "spearman", "patterns")

#: pandas dtypes of Results.frame(): Int64 (nullable) for the graph quantities, <NA> where not defined
DTYPES = dict({c: "string" for c in ("task", "pattern", "weights", "device", "quantity")},
              **{c: "int64" for c in ("seed", "n", "scored", "steps", "seeds", "patterns")},
              **{c: "float64" for c in ("accuracy", "eval_loss", "train_loss", "seconds", "accuracy_mean",
                                        "accuracy_std", "accuracy_min", "accuracy_max", "spearman")},
              **{c: "Int64" for c in GRAPH_COLUMNS})


def stacked(spec: str, depth: int) -> str:
    """The spec of `depth` layers of spec in sequence (``stack:P;P;...``; spec itself for one layer)."""
    return spec if depth == 1 else "stack:" + ";".join([spec] * depth)


def graph_quantities(specs: Sequence[str], n: int, cuts: int = 16, depth: int = 1) -> Dict[str, dict]:
    """spec -> {diameter, unreachable_pairs, copy_distance, copy_congestion_lower, copy_congestion_upper,
    max_cut_rank} at n tokens (mixgraph.gallery; the copy task on n/2 + n/2 tokens; None where the copy is
    impossible), of one layer of the pattern or, with depth > 1, of that many layers in sequence."""
    from .._gallery import gallery_json

    unique = list(dict.fromkeys(specs))
    designs = gallery_json([stacked(s, depth) for s in unique], n, cuts).designs  # in the order given
    return {s: {k: d.get(k) for k in GRAPH_COLUMNS} for s, d in zip(unique, designs)}


def ranking_value(quantity: str, row: dict) -> float:
    """The value a pattern is ranked by: the quantity, or +inf where it is infinite (diameter with
    unreachable pairs: no path between some pair; copy distance and congestion where the copy is
    impossible)."""
    v = row.get(quantity)
    if quantity == "diameter" and (row.get("unreachable_pairs") or 0) > 0:
        return math.inf
    return math.inf if v is None else float(v)


def _ranks(values: Sequence[float]) -> List[float]:
    """Ranks 1..m, ties given the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> Optional[float]:
    """Spearman's rank correlation (Pearson's on the tie-averaged ranks; +inf ranks above every finite
    value); None with fewer than 3 points or when either side is constant."""
    if len(x) != len(y) or len(x) < 3:
        return None
    rx, ry = _ranks(list(x)), _ranks(list(y))
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def summarize(runs: Iterable[dict], graph: Dict[Tuple[str, int], dict]) -> List[dict]:
    """One row per (task, pattern), in the order first seen: accuracy over seeds (mean, sample standard
    deviation (None for one seed), min, max) and the graph quantities at the task's n."""
    groups: Dict[Tuple[str, str], List[dict]] = {}
    for r in runs:
        groups.setdefault((r["task"], r["pattern"]), []).append(r)
    table = []
    for (task, spec), rs in groups.items():
        acc = [r["accuracy"] for r in rs]
        mean = sum(acc) / len(acc)
        std = math.sqrt(sum((a - mean) ** 2 for a in acc) / (len(acc) - 1)) if len(acc) > 1 else None
        n = rs[0]["n"]
        row = {"task": task, "pattern": spec, "n": n, "seeds": len(acc), "accuracy_mean": mean, "accuracy_std": std,
               "accuracy_min": min(acc), "accuracy_max": max(acc)}
        g = graph.get((spec, n), {})
        row.update({k: g.get(k) for k in GRAPH_COLUMNS})
        table.append(row)
    return table


def correlations(table: Sequence[dict]) -> List[dict]:
    """Per task and quantity of CORRELATED: Spearman's rho between mean accuracy and the quantity over the
    task's patterns (ranking_value: infinite where no path or no copy). Rows without graph quantities are
    left out."""
    out = []
    for task in dict.fromkeys(r["task"] for r in table):
        rows = [r for r in table if r["task"] == task and r.get("max_cut_rank") is not None]
        for q in CORRELATED:
            rho = spearman([r["accuracy_mean"] for r in rows], [ranking_value(q, r) for r in rows])
            out.append({"task": task, "quantity": q, "spearman": rho, "patterns": len(rows)})
    return out


class Results:
    """An experiment's output: ``runs`` (one dict per pattern, task and seed), ``table`` (per task and
    pattern), ``correlations`` (per task and quantity), ``parameters`` (what was run), as lists of dicts;
    ``to_dict()`` is results.json, ``frame(name)`` a pandas DataFrame of one of the three."""

    def __init__(self, runs: List[dict], table: List[dict], correlations: List[dict], parameters: dict) -> None:
        self.runs, self.table, self.correlations, self.parameters = runs, table, correlations, parameters

    def to_dict(self) -> dict:
        from .. import __version__

        return {"schema": SCHEMA, "mixgraph_version": __version__, "command": "experiment",
                "parameters": self.parameters, "runs": self.runs, "table": self.table,
                "correlations": self.correlations}

    def frame(self, name: str = "table"):
        import pandas as pd

        cols = {"table": TABLE_COLUMNS, "runs": RUN_COLUMNS, "correlations": CORRELATION_COLUMNS}[name]
        df = pd.DataFrame(getattr(self, name), columns=list(cols))
        return df.astype({c: DTYPES[c] for c in cols if c in DTYPES})

    def write(self, folder: str) -> List[str]:
        """results.json, table.csv, runs.csv and correlations.csv in folder (each written atomically);
        returns their paths."""
        paths = []
        doc = json.dumps(_finite(self.to_dict()), indent=1) + "\n"
        paths.append(os.path.join(folder, "results.json"))
        ckpt.write_text(doc, paths[-1])
        for name, cols in (("table", TABLE_COLUMNS), ("runs", RUN_COLUMNS), ("correlations", CORRELATION_COLUMNS)):
            paths.append(os.path.join(folder, f"{name}.csv"))
            ckpt.write_text(to_csv(getattr(self, name), cols), paths[-1])
        return paths


def _finite(obj):
    """NaN and infinities as null (JSON has neither)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def to_csv(rows: Sequence[dict], cols: Sequence[str]) -> str:
    """Rows as CSV text with a header; None as an empty field, floats with repr's round-trip digits."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in rows:
        w.writerow(["" if r.get(c) is None else r.get(c) for c in cols])
    return buf.getvalue()
