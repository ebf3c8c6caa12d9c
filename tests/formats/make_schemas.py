#!/usr/bin/env python3
"""Draft docs/schemas/*.schema.json from sample outputs (the cases of cases.py): types, required fields
(present in every sample), additionalProperties false. A maintainer's tool: run it when a schema version
changes, then review the diff by hand; the committed files are the contract the tests check against.

    MIXGRAPH_CLI=build/tools/mixgraph python3 tests/formats/make_schemas.py
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from cases import capped_report_args, json_cases, report_args  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Objects keyed by data (pattern specs, positions, class names, column names): a map of values.
MAPS = {"rows_map", "residuals", "results", "lower_bound_notes", "table_row"}
# Objects whose fields follow the options: any field allowed.
OPEN = {"parameters"}
# Fields that are null in some builds or inputs and numbers in others.
NULLABLE_INT = {"prop47", "cut", "lp", "ip", "prop48_bound", "upper_bound", "congestion", "gap", "lower_bound",
                "copy_distance", "min_distance", "distance_sum", "distance", "max_delta", "copy_congestion_lower",
                "copy_congestion_upper", "diameter_lower_bound"}
NULLABLE_NUM = {"kappa", "lp_value", "exponent", "relative_rms", "other_log_relative_rms", "bound_exponent",
                "lower_order_exponent", "smallest_kept", "largest_dropped", "ratio"}


def type_of(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def infer(values, key=None):
    types = {type_of(v) for v in values}
    if "number" in types and "integer" in types:
        types.discard("integer")
    if key in NULLABLE_INT:
        types |= {"integer", "null"}
    if key in NULLABLE_NUM:
        types |= {"number", "null"}
    s = {"type": sorted(types)[0] if len(types) == 1 else sorted(types)}
    objs = [v for v in values if isinstance(v, dict)]
    arrs = [v for v in values if isinstance(v, list)]
    if objs:
        if key in OPEN:
            s["type"] = "object"
        elif key in MAPS or (key == "rows" and all(not isinstance(x, list) for x in values)):
            inner = [x for o in objs for x in o.values()]
            s["additionalProperties"] = infer(inner, "item") if inner else {}
        else:
            keys = []
            for o in objs:
                for k in o:
                    if k not in keys:
                        keys.append(k)
            s["properties"] = {k: infer([o[k] for o in objs if k in o], k) for k in keys}
            req = [k for k in keys if all(k in o for o in objs)]
            if req:
                s["required"] = req
            s["additionalProperties"] = False
    if arrs:
        items = [x for a in arrs for x in a]
        s["items"] = infer(items, key + "[]" if key else None) if items else {}
    return s


def obj(**props):
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


INT, STR = {"type": "integer"}, {"type": "string"}
# Fields the samples leave empty or always null: their documented shape.
FIXES = {
    "congestion": {"skipped": {"items": obj(name=STR, reason=STR)}},
    "gallery": {"copy_congestion_lower_from": {"type": ["null", "string"]},
                "copy_congestion_upper_from": {"type": ["null", "string"]}},
    "pattern": {"decided_class": {"type": ["null", "string"]}},
    "rank": {"disagreements": {"items": obj(cut=INT, numeric=INT, flow=INT)}, "numeric_above_flow": {"items": INT},
             "violations": {"items": INT}},
    "report": {"notes": {"items": obj(kind=STR, text=STR)}},
    "solve": {"input": {"type": ["null", "string"]}, "output": {"type": ["null", "string"]}},
    "verify": {"counterexample": {"type": ["null", "string"]}, "error": {"type": ["null", "string"]},
               "not_applicable": {"items": obj(pattern=STR, reason=STR)}},
}


def fix(s, fixes):
    if isinstance(s, dict):
        for k, v in s.get("properties", {}).items():
            if k in fixes:
                v.update(fixes[k])
            fix(v, fixes)
        for k in ("items", "additionalProperties"):
            if isinstance(s.get(k), dict):
                fix(s[k], fixes)


def top(stem, docs, title):
    s = infer(docs)
    fix(s, FIXES.get(stem, {}))
    # one n / a sweep (pattern, distances) or one row / rows (congestion): the fields each variant requires
    groups = {}
    for d in docs:
        groups.setdefault("sweep" in d or isinstance(d.get("rows"), list), []).append(d)
    if len(groups) > 1:
        s["oneOf"] = [{"required": [k for k in g[0] if all(k in d for d in g)]} for _, g in sorted(groups.items())]
    s["properties"]["schema"] = {"const": f"mixgraph.{stem}/1"}
    if "command" in s["properties"] and stem != "report.table":
        cmds = sorted({d["command"] for d in docs})
        s["properties"]["command"] = {"enum": cmds}
    out = {"$schema": "https://json-schema.org/draft/2020-12/schema",
           "$id": f"https://mixgraph.invalid/schemas/mixgraph.{stem}.schema.json",
           "title": f"mixgraph.{stem}/1", "description": title}
    out.update(s)
    return out


def main():
    cli = os.environ.get("MIXGRAPH_CLI") or os.path.join(ROOT, "build", "tools", "mixgraph")
    docs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for stem, args in json_cases(tmp):
            out = subprocess.run([cli, *args, "--format", "json"], capture_output=True, text=True, check=True)
            docs.setdefault(stem, []).append(json.loads(out.stdout))
        docs["report"], tables = [], []
        for k, make_args in enumerate((report_args, capped_report_args)):
            rep = os.path.join(tmp, f"rep{k}")
            subprocess.run([cli, *make_args(rep), "--format", "json"], capture_output=True, check=True)
            with open(os.path.join(rep, "report.json")) as f:
                docs["report"].append(json.load(f))
        rep = os.path.join(tmp, "rep0")
        for name in docs["report"][0]["files"]:
            if name.startswith("tables/") and name.endswith(".json"):
                with open(os.path.join(rep, name)) as f:
                    t = json.load(f)
                t["rows"] = [{"table_row": r} for r in t["rows"]]
                tables.append(t)
        docs["report.table"] = tables
    for stem, ds in docs.items():
        s = top(stem, ds, f"`mixgraph {ds[0].get('command', 'report')} --format json` (docs/formats.md)")
        if stem == "report.table":
            s["description"] = "tables/<name>.json of `mixgraph report` (docs/formats.md)"
            s["properties"]["rows"]["items"] = {"type": "object", "additionalProperties": {
                "type": ["integer", "number", "string", "boolean", "null"]}}
        path = os.path.join(ROOT, "docs", "schemas", f"mixgraph.{stem}.schema.json")
        with open(path, "w") as f:
            json.dump(s, f, indent=1)
            f.write("\n")
        print("wrote", path)


if __name__ == "__main__":
    main()
