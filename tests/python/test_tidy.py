"""Result.to_pandas(table): the long tables (profiles, histograms, sweeps, per-head, per-layer, per-cut) with
their documented columns and dtypes, checked against independent computations (numpy brute force)."""

import numpy as np
import pytest

import mixgraph

pd = pytest.importorskip("pandas")

U = mixgraph.UNREACHABLE


def coin_change(offsets, n):
    """delta(m): fewest offsets (with repetition) summing to m, None where impossible."""
    inf = 1 << 40
    d = [0] + [inf] * (n - 1)
    for m in range(1, n):
        d[m] = min([d[m - o] + 1 for o in offsets if o <= m] or [inf])
    return [None if v >= inf else v for v in d]


def dtypes(df):
    return dict(df.dtypes.astype(str))


def test_profile_with_unreachable_is_nullable():
    r = mixgraph.distances("offsets:3,5", 64)
    df = r.to_pandas("profile")
    assert dtypes(df) == {"m": "int64", "delta": "Int64"}
    want = coin_change([3, 5], 64)
    assert list(df["m"]) == list(range(64))
    assert [None if v is pd.NA else int(v) for v in df["delta"]] == want
    assert df["delta"].isna().sum() == 4  # 1, 2, 4, 7


def test_histogram_and_eccentricity_from_the_matrix():
    r = mixgraph.distances("sq1+cache", 96, matrix=True)
    assert {"histogram", "eccentricity"} <= set(r.tables())
    m = r.matrix.astype(np.int64)
    below = np.tril(np.ones_like(m, dtype=bool), -1) & (r.matrix != U)
    h = r.to_pandas("histogram")
    assert dtypes(h) == {"distance": "int64", "pairs": "int64"}
    want = np.bincount(m[below], minlength=len(h))
    assert np.array_equal(h["pairs"].to_numpy(), want)
    e = r.to_pandas("eccentricity")
    assert dtypes(e) == {"position": "int64", "eccentricity": "Int64"}
    assert np.array_equal(e["eccentricity"].to_numpy(dtype="int64", na_value=-1),
                          np.where(r.eccentricity == U, -1, r.eccentricity.astype(np.int64)))


def test_cut_ranks_long_form():
    r = mixgraph.rank("pow2+cache", 64)
    df = r.to_pandas("cut_ranks")
    assert dtypes(df) == {"cut": "int64", "series": "string", "value": "Int64"}
    assert list(pd.unique(df["series"])) == ["numeric", "flow", "cache"]
    wide = r.to_pandas()
    for series, col in (("numeric", "rank_numeric"), ("flow", "rank_flow"), ("cache", "cache_at_cut")):
        part = df[df["series"] == series]
        assert np.array_equal(part["cut"].to_numpy(), wide["cut"].to_numpy())
        assert np.array_equal(part["value"].to_numpy(dtype="int64"), wide[col].to_numpy(dtype="int64"))
    # the numeric ranks against numpy's rank of the dense operator's blocks
    A, B = mixgraph.Pattern("pow2+cache", 64).weights(seed=1)
    M = np.linalg.solve(np.eye(64) - B.toarray(), A.toarray())
    num = df[df["series"] == "numeric"]
    for k, v in zip(num["cut"], num["value"]):
        assert np.linalg.matrix_rank(M[k:, :k]) == v


def test_stack_tables(cli):
    spec = "stack:ssm,window:8"
    d = mixgraph.distances(spec, 128)
    bd = d.to_pandas("by_depth")
    assert dtypes(bd)["layer_pattern"] == "string" and list(bd["depth"]) == [1, 2]
    want = cli("distances", "-p", spec, "-n", 128)
    assert bd.to_dict("records") == want["by_depth"]
    assert d.to_pandas().equals(d.to_pandas(d.tables()[0]))
    s = mixgraph.stack(spec, 128, profile=True)
    prof = s.to_pandas("profile")
    layers = [mixgraph.Pattern(p, 128) for p in ("ssm", "window:8")]
    assert np.array_equal(prof["decode_cost"], sum(p.decode_cost().astype(np.int64) for p in layers))
    assert np.array_equal(prof["cache_size"], sum(p.cache_sizes().astype(np.int64) for p in layers))
    lay = s.to_pandas("layers")
    assert list(lay["pattern"]) == ["ssm", "window:8"] and list(lay["layer"]) == [1, 2]
    src = mixgraph.distances(spec, 128, source=5).to_pandas("distances")
    assert dtypes(src) == {"position": "int64", "dist_from_source": "Int64"}
    want = cli("distances", "-p", spec, "-n", 128, "--source", 5)["distances"]
    assert [None if v is pd.NA else v for v in src["dist_from_source"]] == want
    assert src["dist_from_source"][:4].isna().all()
    rk = mixgraph.rank(spec, 128, cuts=[32, 64])
    rl = rk.to_pandas("layers")
    assert list(rl.columns) == ["layer", "pattern"] and list(rl["pattern"]) == ["ssm", "window:8"]
    cl = mixgraph.congestion(spec, 64).to_pandas("layers")
    assert list(cl["layer"]) == [1, 2] and list(cl["pattern"]) == ["ssm", "window:8"]
    cr = rk.to_pandas("cut_ranks")
    assert list(cr["value"][cr["series"] == "flow"]) == list(rk.flow)


def test_congestion_loads_and_bounds():
    c = mixgraph.congestion("pow:3", 40, routing="shift", paths=True)
    loads = c.to_pandas("loads")
    assert dtypes(loads) == {"routing": "string", "position": "int64", "load": "int64"}
    count = np.zeros(80, dtype=np.int64)
    for path in c.paths["shift"]:
        count[np.asarray(path) - 1] += 1
    assert np.array_equal(loads["load"].to_numpy(), count)
    lb = c.to_pandas("lower_bounds")
    assert dtypes(lb) == {"certificate": "string", "bound": "Int64"}
    assert {k: (None if v is pd.NA else v) for k, v in zip(lb["certificate"], lb["bound"])} == c.lower_bounds


def test_sweeps_and_interaction_ranks():
    t = mixgraph.path_lengths(["pow2", "sq1"], "64..256")
    g = t.to_pandas("growth")
    assert set(g["quantity"]) == {"diameter", "copy_distance", "mean_distance"} and len(g) == 6
    even = mixgraph.path_lengths("offsets:4,6", "64,65").to_pandas("sweep")
    assert dtypes(even)["copy_distance"] == "Int64" and dtypes(even)["source_of_figures"] == "string"
    assert even["copy_distance"][0] == coin_change([4, 6], 65)[64] == 11  # ten 6s and a 4
    assert even["copy_distance"][1] is pd.NA  # 4s and 6s never sum to 65
    s = mixgraph.pattern_sweep("pow2+cache", "64..256")
    f = s.to_pandas("fits")
    assert set(f["quantity"]) == set(s.fits)
    ll = mixgraph.loglinear(64, numeric_limit=64)
    b = ll.to_pandas("buckets")
    assert np.array_equal(b["buckets"], [1 + bin(t).count("1") for t in range(64)])
    ssm = mixgraph.ssm_rank(32, example="rotation")
    res = ssm.to_pandas("residuals")
    assert list(res["heads"]) == list(range(1, len(ssm.residual_by_heads) + 1))
    sv = ssm.to_pandas("singular_values")
    assert np.allclose(sv["sigma"], ssm.singular_values)


def test_unknown_table_names_the_ones_there():
    r = mixgraph.distances("pow2", 64)
    with pytest.raises(mixgraph.UsageError, match="'profile'"):
        r.to_pandas("loads")


def test_per_head_tables_equal_each_head_alone():
    spec, heads = "heads:window:8;pow2+cache", ["window:8", "pow2+cache"]
    r = mixgraph.rank(spec, 64, cuts=[8, 16, 32])
    assert "heads" in r.tables()
    t = r.to_pandas("heads")
    assert dtypes(t) == {"head": "int64", "pattern": "string", "cut": "int64", "rank_flow": "int64"}
    for h, p in enumerate(heads):
        alone = mixgraph.rank(p, 64, method="flow", cuts=[8, 16, 32])
        part = t[t["head"] == h]
        assert list(part["pattern"]) == [p] * 3 and list(part["rank_flow"]) == list(alone.cut_rank_flow)
    d = mixgraph.distances(spec, 64).to_pandas("heads")
    for h, p in enumerate(heads):
        alone = mixgraph.distances(p, 64, summary=True)
        row = d[d["head"] == h].iloc[0]
        assert (row["pattern"], row["diameter"]) == (p, alone.diameter)
        assert row["unreachable_pairs"] == alone.unreachable_pairs
        assert row["mean_distance"] == pytest.approx(alone.mean_distance)
