"""mixgraph.experiments: the task generators against their definitions (checked sequence by sequence in
plain Python), determinism, checkpoint and resume, the tiny preset's outcome (attention learns copy, local:2
cannot reach), the table's graph quantities against the package's own analyses, Spearman against scipy, the
JSON schema and the command line."""

import dataclasses
import json
import math
import os
import pathlib
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
import mixgraph  # noqa: E402
from mixgraph import experiments as ex  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
TINY = ex.PRESETS["tiny"]
TINY_COPY = ex.make_task("copy", **TINY.tasks["copy"])


def gen(seed):
    return torch.Generator().manual_seed(seed)


# ---- generators ----


def test_copy_targets_are_the_source():
    t = ex.make_task("copy", n=12, vocab=5)
    assert t.length == 24 and t.vocab == 5
    b = t.sample(64, gen(3))
    assert b.inputs.shape == b.targets.shape == (64, 24)
    for x, y in zip(b.inputs.tolist(), b.targets.tolist()):
        s = x[:12]
        assert all(1 <= v <= 5 for v in s)
        assert x[12] == ex.SEP and x[13:] == s[:-1]  # teacher forcing: the copy so far, shifted by one
        assert y[:12] == [ex.IGNORE] * 12 and y[12:] == s  # output n + j must be s_j
    assert torch.equal(t.sample(64, gen(3)).inputs, b.inputs)  # the generator alone decides
    assert not torch.equal(t.sample(64, gen(4)).inputs, b.inputs)


def test_recall_answers_are_the_queried_values():
    t = ex.make_task("recall", pairs=6, queries=4, vocab=20)
    assert t.length == 16
    b = t.sample(50, gen(1))
    for x, y in zip(b.inputs.tolist(), b.targets.tolist()):
        keys, values = x[0:12:2], x[1:12:2]
        assert len(set(keys)) == 6 and all(1 <= k <= 10 for k in keys) and all(11 <= v <= 20 for v in values)
        table = dict(zip(keys, values))
        queries = x[12:]
        assert len(set(queries)) == 4 and set(queries) <= set(keys)
        assert y[:12] == [ex.IGNORE] * 12
        assert y[12:] == [table[q] for q in queries]


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_multihop_answers_follow_the_chains(hops):
    t = ex.make_task("multihop", chains=5, hops=hops, vocab=30)
    npairs = 5 * hops
    assert t.length == 2 * npairs + 5
    b = t.sample(40, gen(hops))
    for x, y in zip(b.inputs.tolist(), b.targets.tolist()):
        src, dst = x[0:2 * npairs:2], x[1:2 * npairs:2]
        assert len(set(src)) == npairs  # every token points to at most one other: the lookups are defined
        nxt = dict(zip(src, dst))
        assert y[:2 * npairs] == [ex.IGNORE] * (2 * npairs)
        for q, answer in zip(x[2 * npairs:], y[2 * npairs:]):
            walk = [q]
            for _ in range(hops):
                walk.append(nxt[walk[-1]])
            assert answer == walk[-1]
            assert answer not in nxt and len(set(walk)) == hops + 1  # exactly `hops` lookups, no shortcut


def test_bad_task_parameters_are_refused():
    for name, kw, msg in (("copy", {"n": 0}, "positive"), ("recall", {"pairs": 40, "vocab": 64}, "vocab"),
                          ("recall", {"pairs": 4, "queries": 5}, "at most"),
                          ("multihop", {"chains": 20, "hops": 3, "vocab": 50}, "distinct"),
                          ("copy", {"m": 3}, "no parameter"), ("sort", {}, "unknown task")):
        with pytest.raises(mixgraph.UsageError, match=msg):
            ex.make_task(name, **kw)


# ---- model and training ----


def test_weight_kind_follows_the_family():
    kinds = {s: ex.weight_kind(mixgraph.Pattern(s, 32)) for s in ("ssm", "pow2", "attention", "pow2+cache")}
    assert kinds == {"ssm": "gates", "pow2": "offset", "attention": "offset", "pow2+cache": "position"}
    m = ex.build_model("ssm", TINY_COPY, 1, TINY.settings)
    assert m(TINY_COPY.sample(2, gen(0)).inputs).shape == (2, TINY_COPY.length, TINY_COPY.vocab + 1)


def _state(path):
    return torch.load(path)["model"]


def test_same_seed_same_bits_and_resume_equals_uninterrupted(tmp_path):
    s = TINY.settings
    a = ex.train_one("attention", TINY_COPY, 3, s, device="cpu", checkpoint=str(tmp_path / "a.pt"))
    b = ex.train_one("attention", TINY_COPY, 3, s, device="cpu", checkpoint=str(tmp_path / "b.pt"))
    assert (a["accuracy"], a["eval_loss"], a["train_loss"]) == (b["accuracy"], b["eval_loss"], b["train_loss"])
    for k, v in _state(tmp_path / "a.pt").items():
        assert torch.equal(v, _state(tmp_path / "b.pt")[k]), k
    # interrupted after 25 steps (not a multiple of checkpoint_every), then resumed
    calls = []
    with pytest.raises(ex.Interrupted, match="step 25 of 60"):
        ex.train_one("attention", TINY_COPY, 3, s, device="cpu", checkpoint=str(tmp_path / "c.pt"),
                     stop=lambda: calls.append(1) or len(calls) == 25)
    assert torch.load(tmp_path / "c.pt")["step"] == 25 and torch.load(tmp_path / "c.pt")["result"] is None
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp")] == []  # no half-written file left
    seen = []
    c = ex.train_one("attention", TINY_COPY, 3, s, device="cpu", checkpoint=str(tmp_path / "c.pt"),
                     progress=lambda stage, step, steps, info: seen.append(step))
    assert seen[0] == 26 and seen[-1] == 60  # resumed, not restarted
    assert (c["accuracy"], c["eval_loss"], c["train_loss"]) == (a["accuracy"], a["eval_loss"], a["train_loss"])
    for k, v in _state(tmp_path / "a.pt").items():
        assert torch.equal(v, _state(tmp_path / "c.pt")[k]), k
    # a finished checkpoint is reused without training; another run's checkpoint is refused
    seen.clear()
    assert ex.train_one("attention", TINY_COPY, 3, s, device="cpu", checkpoint=str(tmp_path / "c.pt"),
                        progress=lambda *a: seen.append(1))["accuracy"] == a["accuracy"] and seen == []
    with pytest.raises(mixgraph.UsageError, match="another run"):
        ex.train_one("attention", TINY_COPY, 4, s, device="cpu", checkpoint=str(tmp_path / "c.pt"))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny")
    p = TINY
    r = ex.run(p.patterns, list(p.tasks), p.seeds, p.settings, task_params=p.tasks, out=str(out), device="cpu")
    return r, out


def test_tiny_attention_learns_copy_and_local2_does_not(tiny):
    r, _ = tiny
    acc = {row["pattern"]: row["accuracy_mean"] for row in r.table}
    # local:2 with one layer sees offsets 0..2; copying needs offset 8: chance is 1/4, whatever the seed
    assert acc["attention"] >= 0.95 and acc["local:2"] <= 0.35, acc


def test_jobs_train_the_same_bits_in_worker_processes(tiny, tmp_path):
    """Two runs at once, each in a spawned worker: the same runs (every field but the seconds) and the same
    checkpoint states as one after the other."""
    r, out = tiny
    p = TINY
    r2 = ex.run(p.patterns, list(p.tasks), p.seeds, p.settings, task_params=p.tasks, out=str(tmp_path),
                device="cpu", graph=None, jobs=2)
    strip = lambda runs: [{k: v for k, v in x.items() if k != "seconds"} for x in runs]  # noqa: E731
    assert strip(r2.runs) == strip(r.runs)
    for spec in p.patterns:
        a = torch.load(ex.checkpoint_path(str(out), spec, TINY_COPY, 1))["model"]
        b = torch.load(ex.checkpoint_path(str(tmp_path), spec, TINY_COPY, 1))["model"]
        assert all(torch.equal(v, b[k]) for k, v in a.items()), spec
    with pytest.raises(mixgraph.UsageError, match="jobs must be a positive integer"):
        ex.run(p.patterns, "copy", [1], p.settings, jobs=0)
    custom = ex.Task("copy", {}, 16, 4, TINY_COPY.sample)  # not what make_task("copy") makes
    with pytest.raises(mixgraph.UsageError, match="named tasks only"):
        ex.run(p.patterns, custom, [1], p.settings, device="cpu", graph=None, jobs=2)
    with pytest.raises(mixgraph.UsageError, match="picklable"):
        ex.run(p.patterns, list(p.tasks), [1], p.settings, task_params=p.tasks, device="cpu", graph=None, jobs=2,
               progress=lambda *a: None)


def test_table_graph_quantities_are_the_packages_analyses(tiny):
    r, _ = tiny
    for row in r.table:
        n = row["n"]
        d = mixgraph.distances(row["pattern"], n, summary=True)
        assert (row["diameter"], row["unreachable_pairs"]) == (d.diameter, d.unreachable_pairs)
        c = mixgraph.congestion(row["pattern"], n // 2)
        want = c.copy_distance if c.copy_distance is not None and c.copy_distance < 2**32 - 1 else None
        assert row["copy_distance"] == want
        assert row["max_cut_rank"] == mixgraph.rank(row["pattern"], n, method="flow", cuts=16).max_cut_rank


def test_output_files_validate_against_the_schema(tiny):
    jsonschema = pytest.importorskip("jsonschema")
    pd = pytest.importorskip("pandas")
    r, out = tiny
    schema = json.loads((ROOT / "docs" / "schemas" / "mixgraph.experiment.schema.json").read_text())
    doc = json.loads((out / "results.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert list(doc)[:4] == ["schema", "mixgraph_version", "command", "parameters"]
    bad = json.loads(json.dumps(doc))
    bad["table"][0]["accuracy_mean"] = 1.5
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)
    table = pd.read_csv(out / "table.csv")
    assert list(table.columns) == list(ex.results.TABLE_COLUMNS)
    assert list(table["pattern"]) == ["attention", "local:2"]
    # docs/formats.md's dtypes (local:2 cannot copy: its empty cells make those columns float64)
    assert {c: str(t) for c, t in table.dtypes.items()} == dict(
        task="object", pattern="object", n="int64", seeds="int64", accuracy_mean="float64", accuracy_std="float64",
        accuracy_min="float64", accuracy_max="float64", diameter="int64", unreachable_pairs="int64",
        copy_distance="float64", copy_congestion_lower="float64", copy_congestion_upper="float64",
        max_cut_rank="int64")
    assert table["accuracy_std"].isna().all() and table["copy_distance"].isna().tolist() == [False, True]
    runs = pd.read_csv(out / "runs.csv")
    assert [str(t) for t in runs.dtypes] == ["object", "object", "int64", "int64", "object", "float64", "float64",
                                             "int64", "float64", "int64", "float64", "object"]
    assert list(runs["accuracy"]) == [x["accuracy"] for x in r.runs]
    # a rerun into the same folder reuses the finished checkpoints: the same numbers, no training
    again = ex.run(TINY.patterns, list(TINY.tasks), TINY.seeds, TINY.settings, task_params=TINY.tasks, out=str(out),
                   device="cpu", progress=lambda *a: pytest.fail("trained again"))
    assert again.runs == r.runs


def test_summary_and_spearman_against_references():
    scipy_stats = pytest.importorskip("scipy.stats")
    import statistics

    runs = [{"task": "copy", "pattern": p, "n": 16, "accuracy": a, "seed": s}
            for p, accs in (("a", [0.9, 0.7, 0.8]), ("b", [0.5, 0.5, 0.2]), ("c", [0.1, 0.3, 0.2]))
            for s, a in enumerate(accs)]
    graph = {("a", 16): {"diameter": 1, "unreachable_pairs": 0, "max_cut_rank": 8},
             ("b", 16): {"diameter": 4, "unreachable_pairs": 0, "max_cut_rank": 8},
             ("c", 16): {"diameter": 1, "unreachable_pairs": 5, "max_cut_rank": 2}}
    table = ex.summarize(runs, graph)
    assert [row["accuracy_std"] for row in table] == pytest.approx([statistics.stdev([0.9, 0.7, 0.8]),
                                                                    statistics.stdev([0.5, 0.5, 0.2]),
                                                                    statistics.stdev([0.1, 0.3, 0.2])])
    corr = {c["quantity"]: c["spearman"] for c in ex.correlations(table)}
    assert corr["diameter"] == pytest.approx(-1.0)  # c has unreachable pairs: an infinite diameter, ranked last
    assert corr["max_cut_rank"] == pytest.approx(scipy_stats.spearmanr([0.8, 0.4, 0.2], [8, 8, 2])[0])
    assert corr["copy_distance"] is None  # every value infinite: constant
    g = torch.Generator().manual_seed(5)
    for _ in range(20):
        x = torch.randint(0, 4, (9,), generator=g).tolist()
        y = torch.randint(0, 5, (9,), generator=g).tolist()
        want = scipy_stats.spearmanr(x, y)[0]
        got = ex.spearman(x, y)
        assert (got is None and math.isnan(want)) or got == pytest.approx(want)


def test_plot_returns_the_axes(tiny):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r, _ = tiny
    fig, ax = plt.subplots()
    assert ex.accuracy_vs_congestion(r, ax=ax) is ax
    assert "local:2" in ax.get_title()  # its copy is impossible: no congestion bound to place it at
    assert len(ax.texts) == 1 and ax.texts[0].get_text() == "attention"
    plt.close(fig)


def test_device_choice():
    assert ex.resolve_device("cpu").type == "cpu"
    assert ex.resolve_device("auto").type in ("cpu", "cuda")
    with pytest.raises(mixgraph.UsageError, match="device"):
        ex.resolve_device("tpu")
    if not torch.cuda.is_available():
        assert ex.resolve_device("auto").type == "cpu"
        with pytest.raises(mixgraph.UsageError, match="no CUDA device"):
            ex.resolve_device("cuda")


def test_auto_device_trains_a_pattern_cuda_does_not_take_on_the_cpu(monkeypatch):
    """device='auto' asks per pattern whether its mixer runs on the device found; one that does not trains
    on the CPU, and its runs say so (here every pattern is refused by a stand-in CUDA device)."""
    from mixgraph.experiments import runner

    asked = []
    monkeypatch.setattr(runner, "resolve_device", lambda device: torch.device("cuda"))
    monkeypatch.setattr(runner, "pattern_runs_on", lambda dev, s, n, h: asked.append((dev.type, s, n, h)) or False)
    s = dataclasses.replace(TINY.settings, steps=2, eval_sequences=8)
    r = ex.run(list(TINY.patterns), "copy", [1, 2], s, task_params=TINY.tasks, graph=None)
    assert sorted(asked) == [("cuda", p, 16, s.heads) for p in sorted(TINY.patterns)]  # once per pattern
    assert [x["device"] for x in r.runs] == ["cpu"] * 4 and r.parameters["device"] == "cuda"
    if torch.cuda.is_available():
        from mixgraph.experiments.train import pattern_runs_on

        assert pattern_runs_on(torch.device("cuda"), "pow2", 16, 2)
    assert ex.train.pattern_runs_on(torch.device("cpu"), "pow2+cache", 16, 2)


def _cli(*args):
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-m", "mixgraph.experiments", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_command_line(tmp_path, capsys):
    out = _cli("--preset", "tiny", "--steps", "3", "--eval-sequences", "8", "--format", "json", "-q",
               "--output", str(tmp_path), "--plot", str(tmp_path / "acc.png"))
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["parameters"]["settings"]["steps"] == 3 and doc["parameters"]["settings"]["d"] == 16
    assert [r["pattern"] for r in doc["table"]] == ["attention", "local:2"]
    assert (tmp_path / "acc.png").stat().st_size > 0 and (tmp_path / "results.json").exists()
    from mixgraph.experiments.cli import main

    for argv, msg in ((["-p", "pow2", "--task", "sort"], "unknown task 'sort'; the tasks are copy, recall, multihop"),
                      (["-p", "nosuch:3"], "nosuch"), (["--task-param", "copy.n", "-p", "pow2"], "TASK.NAME=VALUE"),
                      (["--preset", "tiny", "--heads", "3"], "multiple of heads"), (["--bogus"], "--bogus"),
                      (["--steps", "ten"], "invalid int value"),
                      (["--preset", "tiny", "--out", str(tmp_path), "--steps", "4"], "another run")):
        try:
            code = main(argv + ["-q"])
        except SystemExit as e:  # argparse's own errors
            code = e.code
        assert code == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("mixgraph: error: ") and msg in err[0], (argv, err)


def test_mixgraph_experiment_runs_the_module(tmp_path):
    """The CLI's `experiment` command replaces itself with Python running this module: same arguments,
    output and exit codes; a one-line error when the interpreter or the package is missing."""
    cli = os.path.abspath(os.environ.get("MIXGRAPH_CLI") or str(ROOT / "build" / "tools" / "mixgraph"))
    if not os.path.exists(cli):
        pytest.skip("the mixgraph CLI is not built (set MIXGRAPH_CLI)")

    def run(*args, **env):
        e = dict(os.environ, MIXGRAPH_PYTHON=sys.executable)  # the package's path made absolute (cwd changes)
        e["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in e.get("PYTHONPATH", "").split(os.pathsep) if p)
        e.update(env)
        return subprocess.run([cli, "experiment", *args], capture_output=True, text=True, env=e, timeout=120,
                              cwd=tmp_path)

    h = run("--help")
    assert h.returncode == 0 and h.stdout.startswith("usage: mixgraph experiment") and "multihop" in h.stdout
    bad = run("-p", "pow2", "--task", "sort")
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "mixgraph: error: unknown task 'sort'; the tasks are copy, recall, multihop"]
    missing = str(tmp_path / "no-such-python")
    gone = run("--preset", "tiny", MIXGRAPH_PYTHON=missing)
    assert gone.returncode == 1 and gone.stdout == ""
    assert gone.stderr.splitlines() == [gone.stderr.strip()] and "cannot be started" in gone.stderr
    # --python PATH names the interpreter (MIXGRAPH_PYTHON is its older alias): a bad path is one line, exit 1
    bad_py = run("--python", missing, "--preset", "tiny")
    assert bad_py.returncode == 1 and bad_py.stdout == ""
    assert bad_py.stderr.splitlines() == [bad_py.stderr.strip()]
    assert f"'{missing}' cannot be started" in bad_py.stderr and "give --python" in bad_py.stderr
    assert run(f"--python={missing}", "--preset", "tiny").stderr == bad_py.stderr
    # --python wins over MIXGRAPH_PYTHON: a good --python with a bad variable runs the module
    good = run("--python", sys.executable, "-p", "pow2", "--task", "sort", MIXGRAPH_PYTHON=missing)
    assert good.returncode == 2 and "unknown task 'sort'" in good.stderr
    no_path = run("-p", "pow2", "--python")
    assert no_path.returncode == 2 and no_path.stderr.strip().splitlines() == [
        "mixgraph: error: --python needs the path of a Python 3 interpreter (for example --python /usr/bin/python3)"]
    h_py = run("--python", sys.executable, "--help")
    assert h_py.returncode == 0 and "--python PATH" in h_py.stdout
    helped = run("--help", MIXGRAPH_PYTHON=missing)  # --help works everywhere: it says what is missing
    assert helped.returncode == 0 and helped.stdout.startswith("usage: mixgraph experiment")
    assert "cannot be started" in helped.stdout
    if subprocess.run([sys.executable, "-c", "import mixgraph"], env=dict(os.environ, PYTHONPATH=str(tmp_path)),
                      cwd=tmp_path, capture_output=True).returncode != 0:
        no_pkg = run("--preset", "tiny", PYTHONPATH=str(tmp_path))
        assert no_pkg.returncode == 1 and no_pkg.stderr.strip().splitlines() == [no_pkg.stderr.strip()]
        assert "needs the mixgraph Python package and PyTorch" in no_pkg.stderr
        helped = run("--help", PYTHONPATH=str(tmp_path))
        assert helped.returncode == 0 and helped.stdout.startswith("usage: mixgraph experiment")
        assert "No module named 'mixgraph'" in helped.stdout


def _interrupted_tiny(tmp_path, *args, runs):
    """The tiny preset with endless steps, SIGINT once `runs` runs have printed their first step: (exit code,
    stdout, stderr)."""
    import signal

    p = subprocess.Popen([sys.executable, "-m", "mixgraph.experiments", "--preset", "tiny", "--steps", "100000",
                          "--checkpoint-every", "100000", "--no-graph", "--output", str(tmp_path), *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        started = set()
        while len(started) < runs:
            line = p.stderr.readline()
            assert line, "no run printed progress"
            if "step 1/100000" in line:
                started.add(line.split(":")[0])
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    return p.returncode, out, err


def test_ctrl_c_writes_the_checkpoint_and_exits_130(tmp_path):
    """SIGINT during training: the run stops at the end of its step, its checkpoint is written (with the
    step, no result) and the command exits with 130, saying how to resume."""
    code, out, err = _interrupted_tiny(tmp_path, runs=1)
    assert code == 130, err
    assert err.strip().splitlines()[-1].startswith("mixgraph: error: interrupted: copy attention seed 1: stopped")
    assert "run the same command again to resume" in err and out == ""
    ck = torch.load(ex.checkpoint_path(str(tmp_path), "attention", TINY_COPY, 1))
    assert 1 <= ck["step"] < 100000 and ck["result"] is None and ck["optimizer"] is not None
    assert not (tmp_path / "results.json").exists()


def test_ctrl_c_with_jobs_stops_every_worker_after_its_checkpoint(tmp_path):
    """SIGINT to the parent of two worker processes: both runs in progress write their checkpoints, the
    command exits with 130, and no worker is left behind."""
    code, out, err = _interrupted_tiny(tmp_path, "--jobs", "2", runs=2)
    assert code == 130, err
    assert "2 runs stopped at the end of a step" in err and "run the same command again to resume" in err
    for spec in TINY.patterns:
        ck = torch.load(ex.checkpoint_path(str(tmp_path), spec, TINY_COPY, 1))
        assert 1 <= ck["step"] < 100000 and ck["result"] is None
    assert out == "" and not (tmp_path / "results.json").exists()


def test_paper9_runs_end_to_end_at_toy_size():
    """Every one of the nine rows trains on every task (gates for ssm, per-position weights for the +cache
    rows) and gets its graph quantities and correlations; sizes cut down to seconds."""
    import dataclasses

    p = ex.preset("paper9")
    assert p.patterns == ex.PAPER9 and len(p.patterns) == 9 and list(p.tasks) == ["copy", "recall", "multihop"]
    s = dataclasses.replace(p.settings, d=8, heads=2, layers=1, steps=2, batch=4, eval_sequences=8)
    small = {"copy": {"n": 8}, "recall": {"pairs": 4, "queries": 4}, "multihop": {"chains": 3}}
    r = ex.run(p.patterns, list(p.tasks), [1], s, task_params=small, device="cpu", cuts=4)
    assert [(row["task"], row["pattern"]) for row in r.table] == [(t, q) for t in p.tasks for q in p.patterns]
    kinds = {row["pattern"]: row["weights"] for row in r.runs}
    assert kinds["ssm"] == "gates" and kinds["pow2+cache"] == kinds["sq1+cache"] == "position"
    assert {kinds[q] for q in ("attention", "local:8", "window:8", "dense", "pow2", "sq1")} == {"offset"}
    assert all(0 <= row["accuracy_mean"] <= 1 and row["max_cut_rank"] >= 1 for row in r.table)
    assert len(r.correlations) == 15 and {c["patterns"] for c in r.correlations} == {9}


def test_graph_of_the_model_is_the_stack_of_its_layers():
    """graph='model': the quantities of settings.layers layers in sequence, as mixgraph's stack analyses
    give them (local:2 twice reaches 4 positions back: more pairs, still no copy of 8 tokens)."""
    import dataclasses

    s = dataclasses.replace(TINY.settings, layers=2, steps=1, eval_sequences=8)
    r = ex.run(["local:2", "window:2"], "copy", [1], s, task_params=TINY.tasks, device="cpu", graph="model")
    assert r.parameters["graph"] == "model"
    one = ex.run(["local:2", "window:2"], "copy", [1], s, task_params=TINY.tasks, device="cpu", graph="layer")
    for row, single in zip(r.table, one.table):
        stack = f"stack:{row['pattern']};{row['pattern']}"
        d = mixgraph.distances(stack, 16, summary=True)
        assert (row["diameter"], row["unreachable_pairs"]) == (d.diameter, d.unreachable_pairs)
        c = mixgraph.congestion(stack, 8)
        assert row["copy_distance"] == (c.copy_distance if row["pattern"] == "window:2" else None)
        assert row["max_cut_rank"] == mixgraph.rank(stack, 16, method="flow", cuts=16).max_cut_rank
    assert r.table[0]["unreachable_pairs"] < one.table[0]["unreachable_pairs"]  # two layers reach 4 back, not 2
    with pytest.raises(mixgraph.UsageError, match="graph must be"):
        ex.run(["local:2"], "copy", [1], s, task_params=TINY.tasks, device="cpu", graph="stack")
