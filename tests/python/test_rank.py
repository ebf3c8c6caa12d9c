"""mixgraph.rank against `mixgraph rank --format json`, and numpy ranks of the dense M = (I-B)^{-1} A."""

import numpy as np
import pytest

import mixgraph


def test_matches_the_cli(cli, mtx_specs):
    for spec in ["pow2", "pow2+cache", "sq1", "window:3", "ssm", "attention", "fib+cache", "heads:pow2;sq1"] + mtx_specs:
        n = None if spec.startswith("mtx:") else 48
        args = ["rank", "-p", spec] + ([] if n is None else ["-n", n])
        assert mixgraph.rank(spec, n).to_dict() == cli(*args), spec
    r = mixgraph.rank("sq1+cache", 300, method="flow", cuts=[10, 150, 299])
    assert r.to_dict() == cli("rank", "-p", "sq1+cache", "-n", 300, "--method", "flow", "--cuts", "10,150,299")
    assert r.cut_rank_numeric is None and r.cuts.tolist() == [10, 150, 299]
    r = mixgraph.rank("pow2", 64, cuts=5, dyadic=True)
    assert r.to_dict() == cli("rank", "-p", "pow2", "-n", 64, "--cuts", 5, "--dyadic")


def test_rank_and_congestion_parse_the_spec_once():
    # a spec string is parsed once per call (mixgraph._core counts the parses); a Pattern is not parsed again
    parses = mixgraph._core._spec_parse_count
    p = mixgraph.Pattern("sq1", 32)
    calls = [
        lambda: mixgraph.rank("pow2+cache", 64, method="flow"),
        lambda: mixgraph.congestion("pow2+cache", 16),
        lambda: mixgraph.rank(p, method="flow"),
        lambda: mixgraph.congestion(p, 16),
    ]
    for call, want in zip(calls, [1, 1, 0, 0]):
        before = parses()
        call()
        assert parses() - before == want


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


def test_exact_method_matches_the_cli(cli, mtx_specs):
    # ranks over GF(2^61 - 1) with generic weights: the CLI's --method exact, same fields and numbers
    for spec, n, cuts in [("pow2+cache", 2000, 7), ("sq1", 96, None), ("window:3", 5000, [17, 2500, 4999])]:
        args = ["rank", "-p", spec, "-n", n, "--method", "exact"]
        if cuts is not None:
            args += ["--cuts", cuts if isinstance(cuts, int) else ",".join(map(str, cuts))]
        r = mixgraph.rank(spec, n, method="exact", cuts=cuts)
        assert r.to_dict() == cli(*args), spec
        assert r.numeric_method == "exact" and r.cut_rank_numeric is not None and r.cut_rank_flow is None
    with pytest.raises(mixgraph.UsageError, match="exact"):  # file weights are not generic
        mixgraph.rank(mtx_specs[0], method="exact")


def test_exact_ranks_against_numpy():
    pytest.importorskip("scipy")
    # generic ranks: the rank of M's block for almost every real weight; numpy on the seeded weights
    for spec in ["pow2+cache", "fib", "local:3"]:
        p = mixgraph.Pattern(spec, 80)
        A, B = p.weights(seed=3)
        M = np.linalg.solve(np.eye(80) - B.toarray(), A.toarray())
        r = mixgraph.rank(p, method="exact", seed=3)
        ref = [np.linalg.matrix_rank(M[k:, :k], tol=1e-9 * np.linalg.norm(M, 2)) for k in r.cuts.tolist()]
        assert r.cut_rank_numeric.tolist() == ref, spec


def test_progress_stages_and_ctrl_c():
    import _thread
    import threading
    import time

    seen = []
    r = mixgraph.rank("pow2", 64, dyadic=True, progress=lambda s, d, t: seen.append((s, d, t)))
    stages = [e for e in seen if not e[0].startswith("cut ranks: ")]  # the per-cut calls: test_rank_progress
    assert stages == [("cut ranks", 1, 3), ("dyadic blocks", 2, 3), ("contrast", 3, 3)]
    assert len(seen) == 3 + 2 * 63
    assert r.to_dict() == mixgraph.rank("pow2", 64, dyadic=True).to_dict()
    # Ctrl-C 0.3 s into a rank run of several seconds: KeyboardInterrupt within a second
    timer = threading.Timer(0.3, _thread.interrupt_main)
    t0 = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        mixgraph.rank("pow2+cache", 1 << 15, method="exact", cuts=32)
    assert time.monotonic() - t0 < 1.3
    timer.join()
