"""Claims written in Python (@mixgraph.claim): verify runs them beside the built-in claims with the CLI's
record fields and verdict rule, and the runner enforces their scope."""

import numpy as np
import pytest

import mixgraph
from mixgraph import _claims


@pytest.fixture
def registry():
    """Claims registered by a test are removed after it."""
    before = set(_claims._REGISTRY)
    yield
    for i in list(_claims._REGISTRY):
        if i not in before:
            _claims.unregister(i)


def popcount(m):
    return np.array([bin(int(v)).count("1") for v in m])


def register_popcount(calls):
    @mixgraph.claim(id="test.cor4.5-popcount", source="Fagnou et al., arXiv 2605.31367", number="Cor. 4.5",
                    statement="For 2^k, delta(m) = popcount(m)", applies_to=["pow2"], n=[64, 1000])
    def check(spec, n):
        calls.append((spec, n))
        prof = mixgraph.distances(spec, n).profile
        m = np.arange(n)
        bad = np.nonzero(prof != popcount(m))[0]
        return f"m = {bad[0]}: delta = {prof[bad[0]]} != popcount" if bad.size else None
    return check


def test_record_has_the_cli_fields_and_passes(registry, cli):
    calls = []
    register_popcount(calls)
    r = mixgraph.verify("test.cor4.5-popcount")
    (rec,) = r.claims
    want = cli("verify", "--claim", "fagnou.prop4.2", "--n-max", 64)
    assert list(rec) == list(want["claims"][0])
    assert sorted(r.summary) == sorted(want["summary"])
    assert rec["status"] == "PASSED" and rec["passed"] is True and rec["instances"] == 2
    assert calls == [("pow2", 64), ("pow2", 1000)]
    assert rec["checked"] == "pow2; n = 64, 1000"
    assert r.summary == {"errors": 0, "failed": 0, "not_applicable": 0, "passed": 1}
    assert r.header["schema"] == "mixgraph.verify/1"
    assert list(r.to_pandas()["status"]) == ["PASSED"]
    assert "test.cor4.5-popcount" in mixgraph.claim_ids()


def test_json_matches_the_cli_schema(registry):
    """Header, records and summary of a run mixing built-in and Python claims validate against
    docs/schemas/mixgraph.verify.schema.json, as the CLI's output does."""
    jsonschema = pytest.importorskip("jsonschema")
    import json
    import pathlib

    schema = json.loads((pathlib.Path(__file__).resolve().parents[2] / "docs" / "schemas" /
                         "mixgraph.verify.schema.json").read_text())
    register_popcount([])
    mixgraph.claim(id="test.none", source="t", statement="s", applies_to=["pow2"])(lambda s, n: None)
    r = mixgraph.verify(["fagnou.prop4.2", "test.cor4.5-popcount", "test.none"], patterns=["pow2", "sq1"],
                        n_max=1000)
    doc = json.loads(json.dumps({**r.header, **r.to_dict()}))
    jsonschema.validate(doc, schema)
    assert [c["status"] for c in doc["claims"]] == ["PASSED", "PASSED", "PASSED"]
    with pytest.raises(mixgraph.UsageError, match="test.none"):
        mixgraph.verify(["test.none", "no.such.claim"])


def test_scope_is_enforced_by_the_runner(registry):
    """A check that would pass anything is NOT APPLICABLE for a pattern outside applies_to: never called."""
    calls = []

    @mixgraph.claim(id="test.ignores-patterns", source="test", statement="anything holds", applies_to=["pow2"])
    def check(spec, n):
        calls.append(spec)

    r = mixgraph.verify("test.ignores-patterns", patterns=["sq1"])
    (rec,) = r.claims
    assert rec["status"] == "NOT APPLICABLE" and rec["passed"] is None and calls == []
    assert rec["not_applicable"][0]["pattern"] == "sq1" and "pow2" in rec["not_applicable"][0]["reason"]
    assert r.summary["not_applicable"] == 1
    both = mixgraph.verify("test.ignores-patterns", patterns=["sq1", "pow2"]).claims[0]
    assert both["status"] == "PASSED" and calls == ["pow2"] and both["not_applicable"][0]["pattern"] == "sq1"


def test_family_scope_and_predicates(registry):
    seen = []

    @mixgraph.claim(id="test.ti", source="test", statement="s", applies_to="translation-invariant", n=[32],
                    patterns=["pow2"])
    def ti(spec, n):
        seen.append(spec)

    r = mixgraph.verify("test.ti", patterns=["pow2", "pow2+cache", "stack:ssm,ssm", "sq1"]).claims[0]
    assert seen == ["pow2", "sq1"] and r["status"] == "PASSED"
    assert [s["pattern"] for s in r["not_applicable"]] == ["pow2+cache", "stack:ssm,ssm"]

    def small_windows(spec):
        """window patterns"""
        return spec.startswith("window:")

    mixgraph.claim(id="test.pred", source="test", statement="s", applies_to=small_windows,
                   patterns=["window:2"], n=[16])(lambda spec, n: None)
    rec = mixgraph.verify("test.pred").claims[0]
    assert rec["status"] == "PASSED" and rec["applies_to"] == "window patterns"
    assert mixgraph.verify("test.pred", patterns=["ssm"]).claims[0]["status"] == "NOT APPLICABLE"


def test_a_false_statement_fails_like_the_builtin_one(registry):
    """d(i, j) <= log2(i - j) as printed: the Python check finds the built-in claim's counterexamples."""

    @mixgraph.claim(id="test.log2", source="test", number="Cor. 4.5 (as printed)", statement="delta(m) <= log2 m",
                    applies_to=["pow2"], n=[256])
    def log2(spec, n):
        prof = mixgraph.distances(spec, n).profile.astype(float)
        m = np.arange(1, n)
        bad = m[prof[1:] > np.log2(m)]
        return {"counterexamples": [f"i-j = {k}: d = {int(prof[k])} > log2({k}) = {np.log2(k):.4f}" for k in bad],
                "worst": float(np.max(prof[1:] - np.log2(m))), "instances": int(m.size)}

    r = mixgraph.verify(["fagnou.cor4.5.log2-bound", "test.log2"], n_max=256)
    builtin, mine = r.claims
    assert [c["id"] for c in r.claims] == ["fagnou.cor4.5.log2-bound", "test.log2"]
    assert builtin["status"] == mine["status"] == "FAILED" and mine["passed"] is False
    assert mine["counterexample"].startswith(builtin["counterexample"][:40])
    assert mine["counterexample"].endswith("(8 in all)")  # 2^p - 1 for p = 1..8
    assert mine["instances"] == 255 and mine["worst"].startswith("1 at pow2 n=256")
    assert r.summary == {"errors": 0, "failed": 2, "not_applicable": 0, "passed": 0}


def test_errors_and_empty_ranges(registry):
    @mixgraph.claim(id="test.raises", source="test", statement="s", applies_to="any", patterns=["pow2"], n=[16])
    def raises(spec, n):
        raise ZeroDivisionError("boom")

    rec = mixgraph.verify("test.raises").claims[0]
    assert rec["status"] == "ERROR" and "boom" in rec["error"] and rec["passed"] is None
    mixgraph.claim(id="test.big", source="test", statement="s", applies_to="any", patterns=["pow2"], n=[4096])(
        lambda spec, n: None)
    rec = mixgraph.verify("test.big", n_max=100).claims[0]
    assert rec["status"] == "ERROR" and "below" in rec["error"]
    with pytest.raises(mixgraph.UsageError):
        mixgraph.verify("test.big", patterns=["nosuchpattern"])
    with pytest.raises(mixgraph.UsageError):
        mixgraph.verify("test.big", n_max=1)


def test_registration_rules(registry):
    with pytest.raises(mixgraph.UsageError, match="built-in"):
        mixgraph.claim(id="fagnou.prop4.2", source="x", statement="y")
    with pytest.raises(mixgraph.UsageError):
        mixgraph.claim(id="test.nosource", statement="y")
    with pytest.raises(mixgraph.UsageError, match="patterns="):
        mixgraph.claim(id="test.nopatterns", source="x", statement="y", applies_to="translation-invariant")
    with pytest.raises(mixgraph.UsageError):  # a misspelt family is a spec that does not parse
        mixgraph.claim(id="test.typo", source="x", statement="y", applies_to=["translation_invariant"],
                       patterns=["pow2"])
    mixgraph.claim(id="test.again", source="a", statement="first", patterns=["pow2"])(lambda s, n: None)
    mixgraph.claim(id="test.again", source="a", statement="second", patterns=["pow2"])(lambda s, n: None)
    assert mixgraph.verify("test.again").claims[0]["statement"] == "second"


def test_progress_counts_every_claim(registry):
    mixgraph.claim(id="test.p", source="a", statement="s", patterns=["pow2"], n=[8])(lambda s, n: None)
    seen = []
    mixgraph.verify(["fagnou.prop4.2", "test.p"], n_max=64, progress=lambda st, d, t: seen.append((st, d, t)))
    assert seen[-1] == ("test.p", 2, 2) and ("fagnou.prop4.2", 1, 2) in seen
