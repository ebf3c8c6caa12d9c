"""mixgraph.distances against `mixgraph distances --format json`, and BFS (networkx) from the definition."""

import numpy as np
import pytest

import mixgraph

N = 80


def args_for(spec, n):
    return ["distances", "-p", spec] + ([] if n is None else ["-n", n])


def test_every_family_matches_the_cli(cli, all_specs):
    for spec in all_specs:
        n = None if spec.startswith("mtx:") else N
        p = mixgraph.Pattern(spec, n)
        s, t = 3, p.n - 2
        r = mixgraph.distances(p, source=s, target=t, counts=True)
        j = cli(*args_for(spec, n), "--source", s, "--target", t, "--counts")
        assert r.to_dict() == j, spec
        assert mixgraph.distances(spec, n, summary=True).to_dict() == cli(*args_for(spec, n), "--summary"), spec
        if p.family != "translation-invariant":
            continue
        ap = mixgraph.distances(p, all_pairs=True)
        assert ap.to_dict() == cli(*args_for(spec, n), "--all-pairs"), spec


def test_heads_rows_match_the_cli(cli):
    # heads:P1;P2: the combined pattern's figures and each head's own (the CLI's `heads` field)
    spec = "heads:window:8;pow2+cache"
    for extra in ([], ["--summary"]):
        r = mixgraph.distances(spec, 64, summary=bool(extra))
        assert [h["pattern"] for h in r.heads] == ["window:8", "pow2+cache"]
        assert r.to_dict() == cli("distances", "-p", spec, "-n", 64, *extra)
    assert "heads" not in mixgraph.distances("pow2", 64).to_dict()


def test_unreachable_convention():
    r = mixgraph.distances("window:4", 40, source=10, target=5)
    assert r.dist.dtype == np.uint32
    assert (r.dist[:9] == mixgraph.UNREACHABLE).all()  # positions before the source
    assert r.distance == mixgraph.UNREACHABLE  # target 5 < source 10
    d = r.to_dict()
    assert d["dist"][:9] == [None] * 9 and d["distance"] is None
    prof = mixgraph.distances("offsets:3,5", 20).profile
    assert prof[1] == mixgraph.UNREACHABLE and prof[3] == 1 and prof[8] == 2


def bfs_reference(p, source):
    """Hops from x_source to every y_i on the shared-pattern graph G (edge j -> i when i reads j)."""
    nx = pytest.importorskip("networkx")
    lengths = nx.single_source_shortest_path_length(p.to_networkx(), source)
    return [lengths.get(i, mixgraph.UNREACHABLE) for i in range(1, p.n + 1)]


def test_single_source_and_matrix_against_bfs():
    for spec in ["pow2", "sq1+cache", "fib", "offsets:2,3+cache"]:
        p = mixgraph.Pattern(spec, 70)
        m = mixgraph.distances(p, matrix=True).matrix
        assert m.shape == (70, 70)
        for s in (1, 7, 40):
            ref = bfs_reference(p, s)
            assert mixgraph.distances(p, source=s).dist.tolist() == ref, (spec, s)
            assert m[:, s - 1].tolist() == ref, (spec, s)
        t = 66
        to = mixgraph.distances(p, target=t).dist_to_target
        assert to.tolist() == m[t - 1, :].tolist()


def test_path_counts_pow2():
    """pow2: popcount(m)! shortest paths at offset m (each order of the bits of m)."""
    from math import factorial

    r = mixgraph.distances("pow2", 300, source=1, counts=True)
    for i in range(1, 301):
        m = i - 1
        assert r.path_counts[i - 1] == factorial(bin(m).count("1")), i


def test_path_length_table_matches_the_cli(cli):
    specs = ["pow2", "sq1+cache", "window:4"]
    r = mixgraph.path_lengths(specs, "64..1024")
    j = cli("distances", *[a for s in specs for a in ("-p", s)], "--sweep", "64..1024")
    assert r.to_dict() == j
    assert [row["n"] for row in r.sweep[0]["rows"]] == [64, 128, 256, 512, 1024]
    one = mixgraph.path_lengths("fib", "100,300,1000")
    assert one.to_dict() == cli("distances", "-p", "fib", "--sweep", "100,300,1000")
    # the rows' diameters agree with distances() at each n
    for row in one.sweep[0]["rows"]:
        assert row["diameter"] == mixgraph.distances("fib", row["n"], summary=True).diameter
