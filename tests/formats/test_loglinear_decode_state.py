"""`loglinear` is analysed as attention's mask; pattern, gallery and report.json give the decode state of
log-linear attention beside it (docs/formats.md). The states a token reads are the buckets that `rank
loglinear` counts independently (max_levels), and every output gives the same object."""

import json
import os
import subprocess

import pytest


@pytest.fixture(scope="module")
def run(cli):
    def go(*args, fmt="json"):
        out = subprocess.run([cli.path, *map(str, args), "--format", fmt], capture_output=True, text=True)
        assert out.returncode == 0, f"{args}: exit {out.returncode}: {out.stderr}"
        return json.loads(out.stdout) if fmt == "json" else out.stdout

    return go


@pytest.mark.parametrize("n", [1, 2, 3, 64, 100, 1000, 4096])
def test_states_are_the_buckets_of_rank_loglinear(run, n):
    d = run("pattern", "-p", "loglinear", "-n", n)["decode_state"]
    ll = run("rank", "loglinear", "--T", n, "--numeric-limit", 2)
    assert d["max_states"] == ll["max_levels"]
    assert d["max_states_position"] == ll["max_levels_query"] + 1  # 0-indexed query t, position t + 1
    assert d["levels"] == ll["level_indices_used"]
    assert d["max_kept_states"] == d["max_states"] - 1
    counts = ll["queries_with_buckets"]  # [b] = queries with b buckets: sum_b b count_b states read
    assert d["total_states"] == sum(b * c for b, c in enumerate(counts))


def test_every_output_gives_the_same_decode_state(run, tmp_path):
    n = 64
    d = run("pattern", "-p", "loglinear", "-n", n)["decode_state"]
    g = run("gallery", "-n", n, "--cuts", 4, "-p", "loglinear", "-p", "ssm")["designs"]
    assert g[0]["decode_state"] == d and "figures_of" in g[0]
    assert "decode_state" not in g[1]  # only loglinear's mask is not its decoder
    out = str(tmp_path / "rep")
    run("report", "-p", "loglinear", "-p", "ssm", "-n", n, "--sections", "summary", "--out", out)
    with open(os.path.join(out, "report.json")) as f:
        results = next(s for s in json.load(f)["sections"] if s["id"] == "summary")["results"]
    assert results["loglinear"]["decode_state"] == d
    assert "decode_state" not in results["ssm"]
    sweep = run("pattern", "-p", "loglinear", "--sweep", "16..64")["sweep"]
    assert sweep[-1]["decode_state"] == d
    text = run("gallery", "-n", n, "--cuts", 4, "-p", "loglinear", fmt="table")
    assert "loglinear (mask)" in text and f"at most {d['max_states']} states read per token" in text
    assert "decode_state" not in run("pattern", "-p", "loglinear", "-n", n, fmt="csv")
