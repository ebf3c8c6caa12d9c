"""to_pandas(): the CLI's --format csv tables as DataFrames (skipped without pandas)."""

import io
import subprocess

import numpy as np
import pytest

import mixgraph

pd = pytest.importorskip("pandas")


def cli_csv(cli, *args):
    out = subprocess.run([cli.path, *map(str, args), "--format", "csv"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return pd.read_csv(io.StringIO(out.stdout), na_values=["inf"])


def same(df, ref, cols):
    for c in cols:
        a = df[c].astype("float64").to_numpy()
        b = ref[c].astype("float64").to_numpy()
        assert np.array_equal(a, b, equal_nan=True), c


def test_tables_match_the_cli_csv(cli):
    p = mixgraph.Pattern("pow2+cache", 200)
    same(p.to_pandas(), cli_csv(cli, "pattern", "-p", "pow2+cache", "-n", 200, "--profile"),
         ["position", "decode_cost", "cache_size", "kept_set_size"])
    d = mixgraph.distances("window:4", 60, source=5, target=50, counts=True).to_pandas()
    same(d, cli_csv(cli, "distances", "-p", "window:4", "-n", 60, "--source", 5, "--target", 50, "--counts"),
         ["position", "dist_from_source", "path_count", "dist_to_target"])
    assert d["dist_from_source"].isna().sum() == 4
    prof = mixgraph.distances("offsets:3,5", 50).to_pandas()
    same(prof, cli_csv(cli, "distances", "-p", "offsets:3,5", "-n", 50), ["m", "delta"])
    r = mixgraph.rank("sq1", 64).to_pandas()
    same(r, cli_csv(cli, "rank", "-p", "sq1", "-n", 64), ["cut", "rank_numeric", "rank_flow", "cache_at_cut"])
    t = mixgraph.path_lengths(["pow2", "fib"], "64..256").to_pandas()
    same(t, cli_csv(cli, "distances", "-p", "pow2", "-p", "fib", "--sweep", "64..256"),
         ["n", "diameter", "copy_distance", "unreachable_pairs"])
    c = mixgraph.congestion("pow2", 40).to_pandas()
    assert c["name"].tolist() == [x["name"] for x in mixgraph.congestion("pow2", 40).routings]
