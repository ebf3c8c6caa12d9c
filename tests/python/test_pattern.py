"""mixgraph.Pattern against the CLI's `pattern --profile --format json` and brute force from reads()."""

import numpy as np
import pytest

import mixgraph

N = 96


def n_for(spec):
    return None if spec.startswith("mtx:") else N


def test_every_family_matches_the_cli(cli, all_specs):
    for spec in all_specs:
        n = n_for(spec)
        p = mixgraph.Pattern(spec, n)
        args = ["pattern", "-p", spec, "--profile"] + ([] if n is None else ["-n", n])
        assert p.to_dict() == cli(*args), spec
        j = cli(*args)
        assert (p.n, p.nnz_A, p.nnz_B, p.family) == (j["n"], j["nnz_A"], j["nnz_B"], j["family"])
        if p.family != "matrix":
            assert p.offsets.tolist() == j["offsets"]
        else:
            assert p.offsets is None


def test_reads_match_the_cli_rows(cli, all_specs):
    for spec in all_specs:
        n = n_for(spec)
        p = mixgraph.Pattern(spec, n)
        rows = [1, 2, p.n // 2, p.n]
        args = ["pattern", "-p", spec, "--rows", ",".join(map(str, rows))] + ([] if n is None else ["-n", n])
        j = cli(*args)
        for i in rows:
            assert p.reads(i)[0].tolist() == j["rows"][str(i)], (spec, i)


def test_profile_from_reads_brute_force(all_specs):
    """decode cost = |{j < i read through A or B}|, |C_i| = |{j <= i : some t > i reads j}|, by definition."""
    for spec in all_specs:
        p = mixgraph.Pattern(spec, n_for(spec))
        n = p.n
        reads = [set(p.reads(i)[0].tolist()) | set(p.reads(i)[1].tolist()) for i in range(1, n + 1)]
        decode = [len({j for j in reads[i - 1] if j < i}) for i in range(1, n + 1)]
        last = [0] * (n + 1)
        for t in range(1, n + 1):
            for j in reads[t - 1]:
                if j < t:
                    last[j] = max(last[j], t)
        cache = [sum(1 for j in range(1, i + 1) if last[j] > i) for i in range(1, n + 1)]
        assert p.decode_cost().tolist() == decode, spec
        assert p.cache_sizes().tolist() == cache, spec
        assert int(p.max_cache) == max(cache) and int(p.max_decode_cost) == max(decode)
        b = sum(len(p.reads(i)[0]) for i in range(1, n + 1))
        a = sum(len(p.reads(i)[1]) for i in range(1, n + 1))
        assert (p.nnz_B, p.nnz_A) == (b, a), spec


def test_kept_sets_only_for_cache_efficient():
    assert mixgraph.Pattern("pow2", 64).kept_set_sizes() is None
    k = mixgraph.Pattern("pow2+cache", 64).kept_set_sizes()
    assert k.dtype == np.uint32 and k.shape == (64,)


def test_arrays_are_read_only_views_without_copies():
    p = mixgraph.Pattern("sq1+cache", 4096)
    a, b = p.decode_cost(), p.decode_cost()
    assert np.shares_memory(a, b)
    assert a.ctypes.data == b.ctypes.data
    assert not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 7
    assert np.shares_memory(p.offsets, p.offsets)
    del p  # the arrays keep the pattern alive
    assert int(a.sum()) == int(b.sum())


def test_n_as_text_and_the_readme_example():
    assert mixgraph.Pattern("pow2", "2^10").n == 1024
    assert mixgraph.Pattern("pow2", 1 << 20).decode_cost().max() == 20


def test_scipy_and_networkx_views():
    scipy = pytest.importorskip("scipy.sparse")
    p = mixgraph.Pattern("pow2+cache", 50)
    A, B = p.to_scipy()
    assert scipy.issparse(A) and A.shape == (50, 50)
    for i in range(1, 51):
        b, a = p.reads(i)
        assert (B.getrow(i - 1).indices + 1).tolist() == b.tolist()
        assert (A.getrow(i - 1).indices + 1).tolist() == a.tolist()
    nx = pytest.importorskip("networkx")
    g = p.to_networkx()
    assert isinstance(g, nx.DiGraph) and g.number_of_edges() == p.nnz_B
    assert sorted(g.predecessors(50)) == p.reads(50)[0].tolist()


def test_new_families_and_unions_read_as_defined():
    """dilated, strided, sink/global, block and unions: reads(i) (1-indexed) from their definitions."""
    n = 70
    shared = {
        "dilated:4,3": lambda i, j: (i - j) % 3 == 0 and 1 <= (i - j) // 3 <= 4,
        "strided:2,5": lambda i, j: i - j <= 2 or (i - j) % 5 == 0,
        "sink:3": lambda i, j: j <= 3,
        "global:3": lambda i, j: j <= 3,
        "window:4|sink:2": lambda i, j: i - j <= 4 or j <= 2,
    }
    for spec, rel in shared.items():
        p = mixgraph.Pattern(spec, n)
        for i in range(1, n + 1):
            b = [j for j in range(1, i) if rel(i, j)]
            assert p.reads(i)[0].tolist() == b, (spec, i)
            assert p.reads(i)[1].tolist() == b + [i], (spec, i)
    p = mixgraph.Pattern("block:8", n)
    for i in range(1, n + 1):
        assert p.reads(i)[0].tolist() == []
        assert p.reads(i)[1].tolist() == [j for j in range(1, i + 1) if (j - 1) // 8 == (i - 1) // 8]
    with pytest.raises(mixgraph.UsageError):
        mixgraph.Pattern("window:8|sink:2+cache", n)
