"""mixgraph.rank against `mixgraph rank --format json`, and numpy ranks of the dense M = (I-B)^{-1} A."""

import numpy as np
import pytest

import mixgraph


def test_matches_the_cli(cli, mtx_specs):
    for spec in ["pow2", "pow2+cache", "sq1", "window:3", "ssm", "attention", "fib+cache"] + mtx_specs:
        n = None if spec.startswith("mtx:") else 48
        args = ["rank", "-p", spec] + ([] if n is None else ["-n", n])
        assert mixgraph.rank(spec, n).to_dict() == cli(*args), spec
    r = mixgraph.rank("sq1+cache", 300, method="flow", cuts=[10, 150, 299])
    assert r.to_dict() == cli("rank", "-p", "sq1+cache", "-n", 300, "--method", "flow", "--cuts", "10,150,299")
    assert r.cut_rank_numeric is None and r.cuts.tolist() == [10, 150, 299]
    r = mixgraph.rank("pow2", 64, cuts=5, dyadic=True)
    assert r.to_dict() == cli("rank", "-p", "pow2", "-n", 64, "--cuts", 5, "--dyadic")


def test_numeric_ranks_against_numpy():
    pytest.importorskip("scipy")
    for spec in ["pow2+cache", "sq1", "window:3"]:
        p = mixgraph.Pattern(spec, 64)
        A, B = p.weights(seed=1)
        M = np.linalg.solve(np.eye(64) - B.toarray(), A.toarray())
        r = mixgraph.rank(p, seed=1)
        ref = [np.linalg.matrix_rank(M[k:, :k], tol=1e-9 * np.linalg.norm(M, 2)) for k in r.cuts.tolist()]
        assert r.cut_rank_numeric.tolist() == ref, spec
        assert r.cut_rank_flow.tolist() == ref, spec
