"""to_pandas() of the results of validate, verify, report and the sweeps (the CLI's --format csv tables)."""


def _pattern_sweep(f):
    return f["sweep"]


def _congestion_rows(f):
    rows = []
    for r in f["rows"]:
        lb = r["lower_bounds"]
        rows.append({"pattern": r["pattern"], "N": r["copy_length"], "copy_distance": r["copy_distance"],
                     "prop47": lb.get("prop47"), "cut": lb.get("cut"), "lp": lb.get("lp"), "ip": lb.get("ip"),
                     "lower_bound": r["lower_bound"], "lower_bound_name": r["lower_bound_name"],
                     "prop48_bound": r["prop48_bound"], "best_routing": r["best_routing"],
                     "congestion": r["congestion"], "gap": r["gap"], "optimal": r["optimal"]})
    return rows


def _claims(f):
    keys = ("id", "source", "number", "status", "passed", "checked", "worst", "counterexample", "error",
            "seconds", "statement")
    return [{k: c.get(k) for k in keys} for c in f["claims"]]


def rows(kind, f):
    """The table's rows (list of dicts) for these kinds of result, else None."""
    if kind == "pattern" and isinstance(f.get("sweep"), list):
        return _pattern_sweep(f)
    if kind == "congestion" and "rows" in f:
        return _congestion_rows(f)
    if kind == "verify":
        return _claims(f)
    if kind == "validate":
        return f["checks"]
    if kind == "report":
        return f["table1"]
    return None
