"""Fields whose values were right but whose labels said something else than docs/cli.md and docs/formats.md:
each checked against an independent computation (another CLI run, or the lists in the same output)."""

import json
import subprocess

import pytest


@pytest.fixture(scope="module")
def run(cli):
    def go(*args):
        out = subprocess.run([cli.path, *map(str, args), "--format", "json"], capture_output=True, text=True)
        assert out.returncode == 0, f"{args}: exit {out.returncode}: {out.stderr}"
        return json.loads(out.stdout)

    return go


@pytest.mark.parametrize("heads", [["pow2", "pow2"], ["pow2", "sq1"], ["window:2|offsets:7", "pow2"]])
def test_rank_contrast_of_heads_caches_every_head(run, heads):
    """formats.md: the contrast of heads:P1;P2 is heads:P1+cache;P2+cache (a trailing +cache would cache the
    last head only), and its figures are that pattern's own flow ranks on the same cuts."""
    spec = "heads:" + ";".join(heads)
    n = 64
    r = run("rank", "-p", spec, "-n", n)
    want = "heads:" + ";".join(h + "+cache" for h in heads)
    assert r["contrast"]["pattern"] == want
    ref = run("rank", "-p", want, "-n", n, "--method", "flow", "--cuts", ",".join(map(str, r["cuts"])))
    assert r["contrast"]["max_cut_rank"] == ref["max_cut_rank"]
    assert r["contrast"]["max_cut_rank_at"] == ref["max_cut_rank_at"]
    assert r["contrast"]["max_cache"] == ref["max_cache"]


def first_cut_reaching_max(cuts, ranks):
    top = max(ranks)
    return next(k for k, v in zip(cuts, ranks) if v == top)


@pytest.mark.parametrize("spec,extra", [("block:1", []), ("block:1", ["--cuts", "5,9,12"]), ("ssm", []),
                                         ("pow2", ["--cuts", "4"]), ("block:4", [])])
def test_max_cut_rank_at_is_the_first_cut_reaching_the_max(run, spec, extra):
    """formats.md: max_cut_rank_at is the first K reaching the max, also when every rank is 0 (block:1: A
    diagonal, B empty), where it is the first cut computed."""
    r = run("rank", "-p", spec, "-n", 16, *extra)
    ranks = r["cut_rank_flow"]
    assert r["max_cut_rank"] == max(ranks)
    assert r["max_cut_rank_at"] == first_cut_reaching_max(r["cuts"], ranks)


def test_max_cut_rank_at_of_stacks_and_gallery(run):
    """The stack's argmax_cut and the gallery's max_cut_rank_at follow the same rule."""
    s = run("rank", "-p", "stack:block:1,block:1", "-n", 16)
    assert s["max_cut_rank"] == 0 and s["argmax_cut"] == first_cut_reaching_max(s["cuts"], s["flow"])
    g = run("gallery", "-n", 16, "--cuts", "4", "-p", "block:1")
    cuts = run("rank", "-p", "block:1", "-n", 16, "--method", "flow", "--cuts", 4)
    assert g["designs"][0]["max_cut_rank_at"] == cuts["max_cut_rank_at"] == cuts["cuts"][0]


@pytest.mark.parametrize("spec", ["stack:ssm,window:4", "stack:block:4,ssm", "stack:(local:2)*3"])
def test_stack_summary_keeps_the_histogram(run, spec):
    """--summary leaves out per-position lists only (cli.md); the histogram is per distance, as for one
    pattern: the same as without --summary, and it counts the reachable pairs."""
    full = run("distances", "-p", spec, "-n", 40)
    summ = run("distances", "-p", spec, "-n", 40, "--summary")
    assert "profile" not in summ
    assert summ["histogram"] == full["histogram"]
    assert sum(summ["histogram"]) == summ["reachable_pairs"]
    single = run("distances", "-p", "window:4", "-n", 40, "--summary")
    assert "histogram" in single  # the single-pattern rule the stack now follows


@pytest.mark.parametrize("spec,family", [("heads:pow2;sq1", "translation-invariant"),
                                         ("heads:window:3;offsets:5,7", "translation-invariant"),
                                         ("heads:pow2;sink:2", "matrix"), ("heads:pow2+cache;sq1", "matrix"),
                                         ("heads:pow2;ssm", "matrix")])
def test_heads_family_as_cli_md_says(run, spec, family):
    """cli.md: heads whose heads are all translation-invariant with one A mode are the translation-invariant
    union of their offsets (as the union P1|P2), else explicit rows."""
    p = run("pattern", "-p", spec, "-n", 64)
    assert p["family"] == family
    union = run("pattern", "-p", spec[len("heads:"):].replace(";", "|"), "-n", 64)
    assert p["family"] == union["family"]
    for k in ("nnz_A", "nnz_B", "total_decode_cost", "max_cache"):
        assert p[k] == union[k], k
