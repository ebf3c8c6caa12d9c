"""Every command's `--format json` output (and the report's report.json and tables/*.json) validates against
its schema file in docs/schemas/, and the schemas are strict enough to reject a planted violation."""

import copy
import json
import os

import pytest

from cases import capped_report_args, json_cases, report_args
from conftest import SCHEMAS, load_schema

jsonschema = pytest.importorskip("jsonschema", reason="python3-jsonschema is not installed")
Validator = jsonschema.Draft202012Validator


def validate(doc, stem):
    schema = load_schema(stem)
    Validator.check_schema(schema)
    errors = sorted(Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors]


def first_keys(doc):
    return list(doc)[:4]


def test_every_schema_file_is_a_valid_schema():
    files = sorted(SCHEMAS.glob("*.schema.json"))
    assert len(files) >= 13
    for f in files:
        with open(f) as fh:
            s = json.load(fh)
        Validator.check_schema(s)
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema", f.name
        assert s["additionalProperties"] is False, f.name


def field_names(schema):
    """Every property name a schema gives, at any depth (maps keyed by data have no property names)."""
    out = set()
    if isinstance(schema, dict):
        out |= set(schema.get("properties", {}))
        for v in schema.get("properties", {}).values():
            out |= field_names(v)
        for k in ("items", "additionalProperties", "if", "then"):
            out |= field_names(schema.get(k))
        for k in ("oneOf", "anyOf", "allOf"):
            for v in schema.get(k, []):
                out |= field_names(v)
    return out


def undocumented_fields(schema, text):
    return sorted(f for f in field_names(schema) if f"`{f}`" not in text)


def test_every_json_field_is_documented():
    """docs/formats.md names (in backticks) every field of every schema."""
    text = (SCHEMAS.parent / "formats.md").read_text()
    missing = {f.name: undocumented_fields(json.loads(f.read_text()), text)
               for f in sorted(SCHEMAS.glob("*.schema.json"))}
    assert {k: v for k, v in missing.items() if v} == {}
    planted = {"properties": {"n": {"type": "integer"}, "deep": {"type": "array", "items": {
        "properties": {"not_a_documented_field": {"type": "integer"}}}}}}
    assert undocumented_fields(planted, text) == ["deep", "not_a_documented_field"]


def test_every_command_validates(cli, tmp_path):
    seen = set()
    for stem, args in json_cases(str(tmp_path)):
        doc = json.loads(cli(args, "json"))
        assert first_keys(doc) == ["schema", "mixgraph_version", "command", "parameters"], args
        assert doc["schema"] == f"mixgraph.{stem}/1", args
        assert validate(doc, stem) == [], args
        seen.add(stem)
    assert seen == {"pattern", "distances", "congestion", "rank", "rank.loglinear", "rank.ssm", "rank.heads",
                    "solve", "validate", "verify", "info", "pattern.stack", "distances.stack", "rank.stack",
                    "gallery", "verify.list"}


def test_report_json_and_tables_validate(cli, tmp_path):
    out = str(tmp_path / "rep")
    printed = json.loads(cli(report_args(out), "json"))
    with open(os.path.join(out, "report.json")) as f:
        manifest = json.load(f)
    assert first_keys(manifest) == ["schema", "mixgraph_version", "command", "parameters"]
    assert validate(manifest, "report") == []
    assert validate(printed, "report") == []
    tables = [f for f in manifest["files"] if f.startswith("tables/") and f.endswith(".json")]
    assert len(tables) >= 10
    for name in tables:
        with open(os.path.join(out, name)) as f:
            t = json.load(f)
        assert list(t)[0] == "schema"
        assert validate(t, "report.table") == [], name
        for row in t["rows"]:
            assert list(row) == t["columns"], name  # rows keep the column order


def test_capped_report_validates(cli, tmp_path):
    """A report with capped distances (a sampled lower bound, a stack's distances skipped), text cells in Table
    1's shortest_path and skipped sections: report.json validates and says what was capped."""
    out = str(tmp_path / "rep")
    cli(capped_report_args(out), "json")
    with open(os.path.join(out, "report.json")) as f:
        manifest = json.load(f)
    assert validate(manifest, "report") == []
    sections = {s["id"]: s for s in manifest["sections"]}
    dist = sections["distances"]["results"]["sq1+cache"]
    assert dist["capped"] is True and dist["method"] == "sampled"
    assert isinstance(dist["diameter_lower_bound"], int) and dist["diameter_lower_bound"] >= 1
    assert "diameter" not in dist
    assert sections["stacks"]["results"]["stack:block:4,ssm"]["capped"] is True
    assert sections["verify"]["status"].startswith("skipped") and "results" not in sections["verify"]
    shortest = {r["pattern"]: r["shortest_path"] for r in manifest["table1"]}
    assert isinstance(shortest["sq1+cache"], str) and isinstance(shortest["local:3"], str)
    assert shortest["stack:block:4,ssm"] is None  # not computed: missing
    # the schema is strict about the new keys: a capped flag as text, a lower bound as a float, a done
    # section without results are rejected
    for key, bad in (("capped", "yes"), ("diameter_lower_bound", 5.5)):
        d = copy.deepcopy(manifest)
        next(s for s in d["sections"] if s["id"] == "distances")["results"]["sq1+cache"][key] = bad
        assert validate(d, "report") != [], key
    d = copy.deepcopy(manifest)
    del next(s for s in d["sections"] if s["id"] == "distances")["results"]
    assert validate(d, "report") != []
    for t in [f for f in manifest["files"] if f.startswith("tables/") and f.endswith(".json")]:
        with open(os.path.join(out, t)) as f:
            assert validate(json.load(f), "report.table") == [], t


def planted(doc):
    """Violations a strict schema must reject: a required field gone, a field of the wrong type, an unknown
    field, a null where a count is required, a wrong schema id."""
    out = []
    d = copy.deepcopy(doc)
    del d["n"]
    out.append(("missing n", d))
    d = copy.deepcopy(doc)
    d["n"] = "64"
    out.append(("n as text", d))
    d = copy.deepcopy(doc)
    d["unexpected_field"] = 1
    out.append(("unknown field", d))
    d = copy.deepcopy(doc)
    d["nnz_B"] = None
    out.append(("null count", d))
    d = copy.deepcopy(doc)
    d["schema"] = "mixgraph.pattern/2"
    out.append(("wrong schema id", d))
    return out


def test_schemas_reject_planted_violations(cli):
    doc = json.loads(cli(["pattern", "-p", "pow2", "-n", "64", "--profile"], "json"))
    assert validate(doc, "pattern") == []
    for what, bad in planted(doc):
        assert validate(bad, "pattern") != [], what
    d = json.loads(cli(["distances", "-p", "offsets:3,5", "-n", "20"], "json"))
    d["profile"][1] = "inf"  # unreachable must be null, not text
    assert validate(d, "distances") != []
    c = json.loads(cli(["congestion", "-p", "pow2", "-n", "16"], "json"))
    c["routings"][0]["congestion"] = 1.5  # a count is an integer
    assert validate(c, "congestion") != []
    c = json.loads(cli(["congestion", "-p", "pow2", "-n", "16"], "json"))
    c["optimal"] = "yes"  # booleans are JSON booleans
    assert validate(c, "congestion") != []
    g = json.loads(cli(["gallery", "-n", "16", "--cuts", "2", "-p", "local:3"], "json"))
    assert validate(g, "gallery") == [] and g["designs"][0]["copy_possible"] is False
    g["designs"][0]["diameter"] = "1*"  # the text table's mark is not a JSON value
    assert validate(g, "gallery") != []
    g = json.loads(cli(["gallery", "-n", "16", "--cuts", "2", "-p", "local:3"], "json"))
    g["designs"][0]["copy_congestion_lower"] = "impossible"  # missing is null
    assert validate(g, "gallery") != []
