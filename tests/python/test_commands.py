"""validate, verify, report, the sweeps and the interaction ranks from Python against the CLI's JSON (the
same code runs in-process; times are the only fields allowed to differ), plus checks of the numbers
against independent computations where they are cheap."""

import json
import pathlib

import numpy as np
import pytest

import mixgraph

TIMES = {"seconds", "total_seconds"}


def untimed(v):
    """v without its timing fields (wall times differ between any two runs)."""
    if isinstance(v, dict):
        return {k: untimed(x) for k, x in v.items() if k not in TIMES}
    if isinstance(v, list):
        return [untimed(x) for x in v]
    return v


def test_validate(cli):
    for spec in ["pow2", "sq1+cache", "window:3", "attention"]:
        r = mixgraph.validate(spec, 96, backend="cpu", seed=3)
        assert untimed(r.to_dict()) == untimed(cli("validate", "-p", spec, "-n", 96, "--backend", "cpu",
                                                  "--seed", 3)), spec
        assert r.all_passed and all(c["passed"] for c in r.checks)
        assert r.header["schema"].startswith("mixgraph.validate/")


def test_validate_gpu_required():
    if mixgraph.validate("pow2", 16).backend == "gpu":
        pytest.skip("a GPU is present")
    with pytest.raises(mixgraph.GpuRequired):
        mixgraph.validate("pow2", 16, backend="gpu")


def test_verify_records(cli):
    ids = mixgraph.claim_ids()
    assert "fagnou.cor4.5" in ids and len(ids) == len(set(ids))
    picked = ["fagnou.cor4.5", "fagnou.prop4.4", "fagnou.cor4.5.log2-bound", "guo.loglinear.buckets"]
    seen = []
    r = mixgraph.verify(picked, n_max=256, progress=lambda stage, done, total: seen.append((stage, done, total)))
    args = ["verify", "--n-max", 256] + [a for c in picked for a in ("--claim", c)]
    assert untimed(r.to_dict()) == untimed(cli(*args))
    assert [c["id"] for c in r.claims] == picked
    assert {c["status"] for c in r.claims} <= {"PASSED", "FAILED", "NOT APPLICABLE", "ERROR"}
    # the printed log2 bound is known to fail at i - j = 3 (delta = 2 > log2 3 is false; 2 > 1.58)
    assert r.claims[2]["status"] == "FAILED" and r.claims[2]["counterexample"]
    assert r.summary["passed"] + r.summary["failed"] + r.summary["errors"] + r.summary["not_applicable"] == 4
    assert seen and seen[-1][1:] == (4, 4) and seen[-1][0] == "guo.loglinear.buckets"
    df = pytest.importorskip("pandas") and r.to_pandas()
    assert list(df["id"]) == picked and "status" in df.columns


def test_verify_unknown_claim():
    with pytest.raises(mixgraph.UsageError, match="no-such-claim"):
        mixgraph.verify("no-such-claim")


def test_verify_and_report_parse_each_spec_once(tmp_path):
    # the claims build every length and instance from the specs parsed once by the run (mixgraph._core
    # counts the parses; docs/testing.md "Parse counts")
    parses = mixgraph._core._spec_parse_count
    before = parses()
    r = mixgraph.verify(patterns=["pow2"], n_max=64)  # every claim, on the one asked pattern
    assert parses() - before == 1
    assert r.summary["errors"] == 0 and r.summary["passed"] > 0
    before = parses()
    mixgraph.verify("fagnou.cache-chain", patterns=["sq1+cache", "pow2+cache"], n_max=256)
    assert parses() - before == 2
    before = parses()
    mixgraph.verify(n_max=32)  # every claim on its own patterns: each distinct spec once
    own = parses() - before
    before = parses()
    mixgraph.verify(n_max=64)
    assert parses() - before == own > 1  # the same specs at more lengths: no more parses
    before = parses()
    mixgraph.report(tmp_path / "rep", ["pow2"], 64)  # every section, "verify" included
    assert parses() - before == 1


def read_tree(d):
    """Every table and data file of a report directory (not the figures' pixels), by relative path."""
    out = {}
    for f in sorted(pathlib.Path(d).rglob("*")):
        if f.is_file() and f.suffix in (".csv", ".json", ".npy", ".md"):
            out[str(f.relative_to(d))] = f.read_bytes()
    return out


def test_report_same_directory_as_the_cli(cli, tmp_path):
    pd = pytest.importorskip("pandas")
    pats = ["pow2", "sq1+cache"]
    r = mixgraph.report(tmp_path / "py", pats, 64)
    cli("report", "--out", tmp_path / "cli", "-p", "pow2", "-p", "sq1+cache", "-n", 64)
    py_files = sorted(str(p.relative_to(tmp_path / "py")) for p in (tmp_path / "py").rglob("*") if p.is_file())
    cli_files = sorted(str(p.relative_to(tmp_path / "cli")) for p in (tmp_path / "cli").rglob("*") if p.is_file())
    assert py_files == cli_files and "report.ipynb" in py_files
    a, b = read_tree(tmp_path / "py"), read_tree(tmp_path / "cli")
    for name in a:
        if name in ("report.json", "report.md"):
            continue
        if name.endswith(".csv"):  # the same table up to its wall-time column
            da, db = (pd.read_csv(d / name).drop(columns=["seconds"], errors="ignore") for d in
                      (tmp_path / "py", tmp_path / "cli"))
            pd.testing.assert_frame_equal(da, db, obj=name)
        elif name.endswith(".json"):
            assert untimed(json.loads(a[name])) == untimed(json.loads(b[name])), name
        else:
            assert a[name] == b[name], name
    ja, jb = (json.loads((tmp_path / d / "report.json").read_text()) for d in ("py", "cli"))
    for j in (ja, jb):
        j["parameters"].pop("out")
        j["parameters"].pop("format", None)
    assert untimed(ja) == untimed(jb)
    assert r.files == ja["files"] and [s["id"] for s in r.sections] == [s["id"] for s in ja["sections"]]
    with pytest.raises(mixgraph.UsageError, match="not empty"):
        mixgraph.report(tmp_path / "py", pats, 64)
    mixgraph.report(tmp_path / "py", ["ssm"], 32, force=True)
    assert json.loads((tmp_path / "py" / "report.json").read_text())["parameters"]["patterns"] == ["ssm"]


def test_pattern_sweep(cli):
    for spec in ["pow2", "sq1+cache", "fib"]:
        r = mixgraph.pattern_sweep(spec, "64..1024")
        assert untimed(r.to_dict()) == untimed(cli("pattern", "-p", spec, "--sweep", "64..1024")), spec
        df = r.to_pandas()
        for n, mx in zip(df["n"], df["max_decode_cost"]):  # against the Pattern's own decode costs
            assert mx == mixgraph.Pattern(spec, int(n)).decode_cost().max()


def test_congestion_sweep(cli):
    r = mixgraph.congestion_sweep(["pow2", "sq1"], "8..64", seed=2)
    assert untimed(r.to_dict()) == untimed(cli("congestion", "-p", "pow2", "-p", "sq1", "--sweep", "8..64",
                                               "--seed", 2))
    df = r.to_pandas()
    assert len(df) == 2 * 4
    for _, row in df.iterrows():  # one-point congestion runs agree with the table
        c = mixgraph.congestion(row["pattern"], int(row["N"]), seed=2)
        assert c.copy_distance == row["copy_distance"]


def test_interaction_ranks(cli):
    ll = mixgraph.loglinear(200, numeric_limit=128)
    assert untimed(ll.to_dict()) == untimed(cli("rank", "loglinear", "--T", 200, "--numeric-limit", 128))
    ss = mixgraph.ssm_rank(24, state=3, p=2, d=2, seed=5)
    assert untimed(ss.to_dict()) == untimed(cli("rank", "ssm", "-n", 24, "--state", 3, "--p", 2, "--d", 2,
                                                "--seed", 5))
    rot = mixgraph.ssm_rank(16, example="rotation")
    assert untimed(rot.to_dict()) == untimed(cli("rank", "ssm", "-n", 16, "--example", "rotation"))
    hd = mixgraph.heads_rank(["pow2", "sq1"], 32, 2, 2)
    assert untimed(hd.to_dict()) == untimed(cli("rank", "heads", "--pattern", "pow2", "--pattern", "sq1", "-n",
                                                32, "--p", 2, "--d", 2))


def test_loglinear_buckets_against_popcount():
    """Query t (0-indexed) sees 1 + popcount(t) non-empty buckets: an independent count."""
    r = mixgraph.loglinear(300, numeric_limit=64)
    want = [1 + bin(t).count("1") for t in range(300)]
    assert r.buckets_per_query == want and r.max_levels == max(want)
    assert r.queries_with_buckets == np.bincount(want).tolist()


def test_validate_with_weight_files(cli, tmp_path):
    """validate's weight options (weights_a, weights_b, gates, input_gates) give the CLI's JSON for the same
    files, and the checks then run on the files' weights."""
    p = mixgraph.Pattern("sq1+cache", 96)
    rng = np.random.default_rng(5)
    fa, fb = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(fa, rng.uniform(0.1, 1.0, (2, p.nnz_A)))
    np.save(fb, rng.uniform(0.0, 0.01, (2, p.nnz_B)))  # small B rows: (I - B)^{-1} stays tame
    r = mixgraph.validate("sq1+cache", 96, backend="cpu", seed=3, heads=2, weights_a=fa, weights_b=str(fb))
    want = cli("validate", "-p", "sq1+cache", "-n", 96, "--backend", "cpu", "--seed", 3, "--heads", 2,
               "--weights-a", fa, "--weights-b", fb)
    assert untimed(r.to_dict()) == untimed(want)
    assert r.all_passed and any("weights from files" in c["name"] for c in r.checks), r.checks
    seeded = mixgraph.validate("sq1+cache", 96, backend="cpu", seed=3, heads=2)
    assert [c["name"] for c in seeded.checks] != [c["name"] for c in r.checks]

    fg, fu = tmp_path / "g.npy", tmp_path / "u.npy"
    np.save(fg, rng.uniform(0.1, 0.9, (64, 3)))
    np.save(fu, rng.uniform(0.5, 1.5, (64, 3)))
    r = mixgraph.validate("ssm", 64, backend="cpu", heads=3, gates=fg, input_gates=fu)
    want = cli("validate", "-p", "ssm", "-n", 64, "--backend", "cpu", "--heads", 3, "--gates", fg,
               "--input-gates", fu)
    assert untimed(r.to_dict()) == untimed(want)
    assert r.all_passed


def test_validate_weight_file_errors(tmp_path):
    with pytest.raises(mixgraph.InputError):
        mixgraph.validate("sq1+cache", 96, backend="cpu", weights_b=tmp_path / "missing.npy")
    # an array is saved to a temporary .npy and read as the CLI reads the file: a wrong shape is bad data
    with pytest.raises(mixgraph.InputError):
        mixgraph.validate("sq1+cache", 96, backend="cpu", weights_a=np.ones((2, 3)))
