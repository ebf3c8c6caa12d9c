"""stack:P1,P2,... specs from Python: mixgraph.stack (the CLI's pattern), distances, rank and congestion give
the CLI's JSON for the same stack; the summed decode cost and the product's cut ranks are checked against
computations from the single layers; a stack is refused where it cannot be a single-layer Pattern."""

import numpy as np
import pytest

import mixgraph

STACKS = ["stack:ssm,window:8", "stack:(pow2,sq1)*2", "stack:bigbird:8,1,2;ssm"]


def same(result, want):
    got = result.to_dict()
    for k in ("schema", "mixgraph_version", "command", "parameters"):
        got.pop(k, None)
    assert got == want


@pytest.mark.parametrize("spec", STACKS)
def test_stack_commands_equal_the_cli(cli, spec):
    same(mixgraph.stack(spec, 96, profile=True), cli("pattern", "-p", spec, "-n", 96, "--profile"))
    same(mixgraph.stack(spec, 96, summary=True), cli("pattern", "-p", spec, "-n", 96, "--summary"))
    same(mixgraph.distances(spec, 96), cli("distances", "-p", spec, "-n", 96))
    same(mixgraph.distances(spec, 96, source=5), cli("distances", "-p", spec, "-n", 96, "--source", 5))
    same(mixgraph.rank(spec, 96), cli("rank", "-p", spec, "-n", 96))
    same(mixgraph.rank(spec, 96, method="flow", cuts=[10, 50], seed=4),
         cli("rank", "-p", spec, "-n", 96, "--method", "flow", "--cuts", "10,50", "--seed", 4))
    same(mixgraph.rank(spec, 96, cuts=7), cli("rank", "-p", spec, "-n", 96, "--cuts", 7))
    untimed = {"seconds", "total_seconds"}
    got = {k: v for k, v in mixgraph.congestion(spec, 48, routing="all").to_dict().items() if k not in untimed}
    want = cli("congestion", "-p", spec, "-N", 48, "--routing", "all")
    for r in got.get("routings", []) + want.get("routings", []):
        for k in untimed:
            r.pop(k, None)
    same_keys = {k: want[k] for k in got}
    assert set(got) == set(want) and got == same_keys


@pytest.mark.parametrize("spec,layers", [("stack:ssm,window:8", ["ssm", "window:8"]),
                                         ("stack:(pow2,sq1)*2", ["pow2", "sq1", "pow2", "sq1"])])
def test_stack_sums_its_layers(spec, layers):
    n = 128
    s = mixgraph.stack(spec, n, profile=True)
    assert s.depth == len(layers) and [l["pattern"] for l in s.layers] == layers
    ps = [mixgraph.Pattern(l, n) for l in layers]
    assert s.decode_cost == sum(p.decode_cost().astype(np.int64) for p in ps).tolist()
    assert s.cache_size == sum(p.cache_sizes().astype(np.int64) for p in ps).tolist()
    assert s.nnz_B == sum(p.nnz_B for p in ps)


def test_stack_rank_against_the_dense_product():
    """The numeric cut ranks of a stack are those of M = M_L ... M_1, layer l with the seeded weights
    seed + l - 1 (Pattern.weights), M_l = (I - B_l)^{-1} A_l, computed here with numpy."""
    pytest.importorskip("scipy")
    spec, layers, n, seed = "stack:ssm,window:4,sq1", ["ssm", "window:4", "sq1"], 64, 3
    r = mixgraph.rank(spec, n, cuts="all", seed=seed, method="dense")
    m = np.eye(n)
    for l, name in enumerate(layers):
        a, b = mixgraph.Pattern(name, n).weights(seed + l)
        ml = np.linalg.solve(np.eye(n) - b.toarray(), a.toarray())
        m = ml @ m
    ref = []
    for k in range(1, n):
        block = m[k:, :k]
        sv = np.linalg.svd(block, compute_uv=False)
        ref.append(int((sv > 1e-9 * sv[0]).sum()) if sv.size and sv[0] > 0 else 0)
    assert r.cuts == list(range(1, n))
    assert r.numeric_method == "dense" and r.numeric == ref
    # the default: the exact ranks of the product and the Menger ranks, both equal to it (generic weights)
    d = mixgraph.rank(spec, n, cuts="all", seed=seed)
    assert d.numeric_method == "exact" and d.numeric == ref and d.flow == ref


def test_a_stack_is_not_a_single_layer_pattern():
    with pytest.raises(ValueError, match="not a single-layer pattern"):
        mixgraph.Pattern("stack:ssm,window:8", 64)
    with pytest.raises(mixgraph.UsageError, match="not a single-layer pattern"):
        mixgraph.solve("stack:ssm,window:8", np.ones((64, 1)))
    with pytest.raises(mixgraph.UsageError, match="a single-layer pattern is mixgraph.Pattern"):
        mixgraph.stack("pow2", 64)
    for call, word in [(lambda: mixgraph.distances("stack:ssm,ssm", 64, target=3), "target"),
                       (lambda: mixgraph.distances("stack:ssm,ssm", 64, counts=True), "counts"),
                       (lambda: mixgraph.rank("stack:ssm,ssm", 64, dyadic=True), "dyadic"),
                       (lambda: mixgraph.congestion("stack:ssm,ssm", 32, paths=True), "paths")]:
        with pytest.raises(mixgraph.UsageError, match=f"does not take {word}"):
            call()
    with pytest.raises(mixgraph.UsageError):  # refused by the command itself, with the CLI's message
        mixgraph.rank("stack:ssm,ssm", 64, method="sketch")


def test_stack_exact_rank_and_lp_bounds_are_the_clis(cli):
    # the exact rank of the product and the LP bounds on the stacked graph, as the CLI's JSON gives them
    same(mixgraph.rank("stack:window:3,pow2", 64, method="exact", cuts=[8, 32, 50]),
         cli("rank", "-p", "stack:window:3,pow2", "-n", 64, "--method", "exact", "--cuts", "8,32,50"))
    got = mixgraph.congestion("stack:ssm,window:4", 6, lp=True).to_dict()
    want = cli("congestion", "-p", "stack:ssm,window:4", "-N", 6, "--lp")
    for d in [got, want] + got.get("routings", []) + want.get("routings", []):
        for k in ("seconds", "total_seconds", "schema", "mixgraph_version", "command", "parameters"):
            d.pop(k, None)
    assert got == want and "lp" in got["lower_bounds"]


def test_stack_rank_takes_progress_and_pattern_sweep_refuses():
    r = mixgraph.rank("stack:ssm,window:8", 64, progress=lambda s, d, t: None)
    assert r.to_dict() == mixgraph.rank("stack:ssm,window:8", 64).to_dict()
    # one call per cut: the numeric loop's counts (exact by default, dense on request), then the flow loop's
    for method, stage, loops in [("both", "cut ranks: exact", 2), ("dense", "cut ranks: dense", 1)]:
        calls = []
        mixgraph.rank("stack:ssm,window:8", 64, cuts=5, method=method,
                      progress=lambda s, d, t: calls.append((s, d, t)))
        per_cut = [(s, d, t) for s, d, t in calls if s.startswith("cut ranks")]
        total = 5 * loops
        assert [d for _, d, _ in per_cut] == list(range(1, total + 1))
        assert {t for _, _, t in per_cut} == {total}
        assert [s for s, _, _ in per_cut] == ([stage] * 5 + ["cut ranks: flow"] * 5)[:total]

    def stop(stage, done, total):  # a KeyboardInterrupt from the callback stops the loop at its next cut
        seen.append(done)
        if stage == "cut ranks: flow" and done == 2:
            raise KeyboardInterrupt
    seen = []
    with pytest.raises(KeyboardInterrupt):
        mixgraph.rank("stack:ssm,window:8", 2000, method="flow", cuts=50, progress=stop)
    assert seen[-1] == 2
    with pytest.raises(mixgraph.UsageError, match="does not take sweep"):  # the Python argument's name
        mixgraph.pattern_sweep("stack:ssm,window:8", "64..128")
