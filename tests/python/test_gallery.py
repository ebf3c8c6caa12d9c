"""mixgraph.gallery / compare: the CLI's `gallery --format json` numbers as DataFrames, checked against the CLI
and against the single analyses (Pattern, stack, distances, congestion, rank) run one by one."""

import pytest

import mixgraph

pd = pytest.importorskip("pandas")

N = 258  # the copy task's N = 129 is odd: offsets 4 and 6 cannot copy it
SPECS = ["ssm", "window:8", "pow2", "pow2+cache", "window:6|sink:2", "heads:window:8;pow2+cache",
         "stack:ssm,window:8", "offsets:3,5", "offsets:4,6"]


@pytest.fixture(scope="module")
def table():
    return mixgraph.gallery(SPECS, N, cuts=8)


def cell(v):
    return None if v is pd.NA else (v.item() if hasattr(v, "item") else v)


def test_equals_the_cli(table, cli):
    args = ["gallery", "-n", N, "--cuts", 8]
    for s in SPECS:
        args += ["-p", s]
    want = cli(*args)["designs"]
    assert list(table["pattern"]) == SPECS == [d["pattern"] for d in want]
    for (_, row), d in zip(table.iterrows(), want):
        for k, v in d.items():
            assert cell(row[k]) == v, (d["pattern"], k)
        if "depth" not in d:
            assert row["depth"] == 1


def test_dtypes_are_documented(table):
    assert dict(table.dtypes.astype(str)) == mixgraph._gallery.GALLERY_COLUMNS
    assert table.attrs == {"n": N, "cuts": 8}


def test_equals_the_single_analyses(table):
    """Every number from the analyses run one at a time (the stack through mixgraph.stack and the stack
    forms of distances / congestion / rank)."""
    for _, row in table.iterrows():
        spec = row["pattern"]
        if spec.startswith("stack:"):
            prof = mixgraph.stack(spec, N)
            d = mixgraph.distances(spec, N, summary=True)
            assert row["depth"] == prof.depth
        else:
            prof = mixgraph.Pattern(spec, N)
            d = mixgraph.distances(prof, summary=True)
        assert (row["total_decode_cost"], row["max_decode_cost"], row["max_cache"]) == \
            (prof.total_decode_cost, prof.max_decode_cost, prof.max_cache), spec
        assert (row["diameter"], row["unreachable_pairs"]) == (d.diameter, d.unreachable_pairs), spec
        c = mixgraph.congestion(spec, N // 2)
        assert bool(row["copy_possible"]) == c.copy_possible, spec
        if c.copy_possible:
            assert (row["copy_distance"], row["copy_congestion_lower"]) == (c.copy_distance, c.lower_bound), spec
            assert row["copy_congestion_upper"] == c.upper_bound
        else:
            assert row["copy_distance"] is pd.NA and row["copy_congestion_lower"] is pd.NA
        cuts = sorted({int(k * N / 9 + 0.5) for k in range(1, 9)})  # the CLI's 8 evenly spaced cuts
        r = mixgraph.rank(spec, N, method="flow", cuts=cuts)
        flow = list(r.flow if spec.startswith("stack:") else r.cut_rank_flow)
        assert row["max_cut_rank"] == max(flow), spec
        assert flow[cuts.index(int(row["max_cut_rank_at"]))] == row["max_cut_rank"], spec


def test_unreachable_pairs_and_impossible_copies(table):
    t = table.set_index("pattern")
    assert t.loc["offsets:3,5", "unreachable_pairs"] > 0  # offsets 3 and 5 never make 1, 2, 4 or 7
    assert t.loc["offsets:3,5", "copy_possible"]
    row = t.loc["offsets:4,6"]
    assert not row["copy_possible"]
    for k in ("copy_distance", "copy_congestion_lower", "copy_congestion_upper", "copy_congestion_lower_from"):
        assert row[k] is pd.NA, k


def test_compare_is_the_long_form(table):
    long = mixgraph.compare(SPECS, [N, 2 * N], cuts=8)
    assert list(long.columns) == ["pattern", "n", "quantity", "value"]
    assert dict(long.dtypes.astype(str)) == {"pattern": "string", "n": "int64", "quantity": "string",
                                             "value": "Int64"}
    q = mixgraph._gallery.QUANTITIES
    assert len(long) == 2 * len(SPECS) * len(q)
    first = long[long["n"] == N]
    assert list(first["pattern"]) == [s for s in SPECS for _ in q]
    assert list(first["quantity"]) == list(q) * len(SPECS)
    for _, r in first.iterrows():
        want = table.set_index("pattern").loc[r["pattern"], r["quantity"]]
        assert (r["value"] is pd.NA and want is pd.NA) or r["value"] == want
    bigger = mixgraph.gallery(SPECS, 2 * N, cuts=8).set_index("pattern")
    for _, r in long[long["n"] == 2 * N].iterrows():
        want = bigger.loc[r["pattern"], r["quantity"]]
        assert (r["value"] is pd.NA and want is pd.NA) or r["value"] == want
    sub = mixgraph.compare(["pow2"], N, quantities="max_cache", cuts=8)
    assert list(sub["quantity"]) == ["max_cache"] and sub["value"][0] == table["max_cache"][2]


def test_takes_patterns_and_refuses_bad_input():
    p = mixgraph.Pattern("sq1", 64)
    assert mixgraph.gallery([p], 64)["max_cache"][0] == p.max_cache
    with pytest.raises(mixgraph.UsageError, match="unknown quantity"):
        mixgraph.compare(["pow2"], 64, quantities=["nope"])
    with pytest.raises(mixgraph.UsageError):
        mixgraph.gallery(["nosuchpattern"], 64)
    with pytest.raises(mixgraph.UsageError):
        mixgraph.gallery([3], 64)


FAMILIES = ["pow2", "pow2+cache", "window:6|sink:2", "heads:window:8;pow2+cache", "stack:ssm,window:8",
            "bigbird:4,2,4", "loglinear", "attention", "block:8", "strided:4,8", "dilated:4,2"]


@pytest.mark.parametrize("spec", FAMILIES)
def test_every_family_is_taken_by_every_analysis(spec):
    """The same spec string works in distances, rank, congestion, gallery and compare, and their tables; the
    single-layer-only calls point a stack to the calls that take it."""
    d, r, c = mixgraph.distances(spec, 64), mixgraph.rank(spec, 64), mixgraph.congestion(spec, 32)
    for res in (d, r, c):
        assert isinstance(res.to_pandas(), pd.DataFrame)  # empty where a copy is impossible (no routing)
        assert res.tables() and all(len(res.to_pandas(t)) > 0 for t in res.tables())
    g = mixgraph.gallery([spec], 64)
    assert g["diameter"][0] == d.diameter and g["max_cut_rank"][0] <= r.max_cut_rank
    if spec.startswith("stack:"):
        assert mixgraph.stack(spec, 64).depth == g["depth"][0] == 2
        with pytest.raises(ValueError, match="mixgraph.stack"):
            mixgraph.Pattern(spec, 64)
    else:
        assert mixgraph.Pattern(spec, 64).max_cache == g["max_cache"][0]
        with pytest.raises(mixgraph.UsageError, match="mixgraph.Pattern"):
            mixgraph.stack(spec, 64)
