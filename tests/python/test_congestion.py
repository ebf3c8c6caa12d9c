"""mixgraph.congestion against `mixgraph congestion --format json`; loads recounted from the paths."""

import numpy as np

import mixgraph


def drop_times(j):
    for r in j["routings"]:
        r.pop("seconds")
    return j


def test_matches_the_cli(cli, mtx_specs):
    cases = [("pow2", 40), ("sq1", 40), ("pow2+cache", 40), ("window:4", 30), ("fib", 25), ("ssm", 12),
             ("local:3", 10), (mtx_specs[0], None), (mtx_specs[1], None)]
    for spec, N in cases:
        r = mixgraph.congestion(spec, N, lp=True)
        args = ["congestion", "-p", spec, "--lp"] + ([] if N is None else ["-N", N])
        assert drop_times(r.to_dict()) == drop_times(cli(*args)), spec


def test_routing_choice_and_seed(cli):
    r = mixgraph.congestion("sq1", 50, routing="random", seed=7)
    assert [x["name"] for x in r.routings] == ["random"]
    assert drop_times(r.to_dict()) == drop_times(cli("congestion", "-p", "sq1", "-N", 50, "--routing", "random",
                                                     "--seed", 7))


def test_loads_recounted_from_paths():
    N = 64
    r = mixgraph.congestion(mixgraph.Pattern("pow2", 2 * N), N, routing="all", paths=True)
    assert r.lower_bound <= r.upper_bound
    for rt in r.routings:
        paths = r.paths[rt["name"]]
        assert len(paths) == N
        loads = np.zeros(2 * N, dtype=np.int64)
        for i, path in enumerate(paths, start=1):
            assert path[0] == i and path[-1] == i + N
            assert (np.diff(path.astype(np.int64)) > 0).all()
            loads[path.astype(np.int64) - 1] += 1
        assert loads.tolist() == rt["loads"].tolist()
        assert rt["congestion"] == loads.max()


def test_impossible_copy():
    r = mixgraph.congestion("local:3", 10)
    assert r.copy_possible is False and r.upper_bound is None
    assert r.to_dict()["impossible_inputs"] == list(range(1, 11))
