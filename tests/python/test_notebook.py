"""The report's notebook: executed with nbconvert with the mixgraph package importable and without it; every
figure is redrawn with matplotlib from the data file beside it, and those files hold the right numbers."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mixgraph

NBCONVERT = shutil.which("jupyter-nbconvert")


@pytest.fixture(scope="module")
def rep(tmp_path_factory):
    d = tmp_path_factory.mktemp("nb") / "rep"
    mixgraph.report(d, ["pow2", "sq1+cache"], 32)
    return d


def test_data_beside_every_figure(rep):
    nb = json.loads((rep / "report.ipynb").read_text())
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    figures = [f for f in json.loads((rep / "report.json").read_text())["files"] if f.endswith(".png")]
    assert figures
    for f in figures:
        stem = f[:-4]
        data = [stem + ext for ext in (".npy", ".csv") if (rep / (stem + ext)).exists()]
        assert len(data) == 1, f
        assert any(json.dumps(data[0]) in c for c in code), f"no notebook cell draws {data[0]}"
    # the A mask of pow2 against the pattern's own reads (uint8: 1 where row i reads column j, else 0)
    m = np.load(rep / "figures" / "A_pow2.npy")
    p = mixgraph.Pattern("pow2", 32)
    want = np.zeros((32, 32), dtype=np.uint8)
    for i in range(1, 33):
        want[i - 1, p.reads(i)[1] - 1] = 1
    np.testing.assert_array_equal(m, want)


def execute(rep, env, name):
    out = subprocess.run([NBCONVERT, "--to", "notebook", "--execute", "--output", name,
                          "--ExecutePreprocessor.timeout=600", str(rep / "report.ipynb")],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads((rep / name).read_text())


def drawn(nb):
    """(figure cells, of them with a PNG output drawn by this run, the setup cell's printed line)."""
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    fig = [c for c in cells if "figure_data[" in "".join(c["source"])]
    with_png = [c for c in fig if any("image/png" in o.get("data", {}) for o in c["outputs"])]
    text = "".join("".join(o.get("text", "")) for o in cells[0]["outputs"])
    return fig, with_png, text


@pytest.mark.skipif(NBCONVERT is None, reason="jupyter-nbconvert is not installed")
def test_executes_with_the_module(rep):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(pathlib.Path(mixgraph.__file__).parents[1]),
                                                    env.get("PYTHONPATH", "")] if p)
    fig, with_png, text = drawn(execute(rep, env, "with_module.ipynb"))
    assert fig and len(with_png) == len(fig)
    assert "from the mixgraph package" in text


@pytest.mark.skipif(NBCONVERT is None, reason="jupyter-nbconvert is not installed")
def test_executes_without_the_module(rep, tmp_path):
    # a mixgraph package first on the path that fails to import hides any installed one
    hide = tmp_path / "hide" / "mixgraph"
    hide.mkdir(parents=True)
    (hide / "__init__.py").write_text("raise ImportError('mixgraph hidden for this test')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(hide.parent)
    probe = subprocess.run([sys.executable, "-c", "import mixgraph"], env=env, capture_output=True)
    assert probe.returncode != 0
    fig, with_png, text = drawn(execute(rep, env, "without_module.ipynb"))
    assert fig and len(with_png) == len(fig)
    assert "from the report's files" in text


def test_helpers_draw_on_a_given_axes_return_the_figure_and_respect_rcparams(rep, monkeypatch):
    # the setup cell's helpers, run on their own (Agg): heatmap() and lines() on the report's own data
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pytest.importorskip("pandas")
    pytest.importorskip("IPython")
    nb = json.loads((rep / "report.ipynb").read_text())
    setup = "".join(next(c for c in nb["cells"] if c["cell_type"] == "code")["source"])
    monkeypatch.chdir(rep)
    shows = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: shows.append(1))
    env = {}
    exec(compile(setup, "setup", "exec"), env)
    m = np.load("figures/d_pow2.npy")
    fig, (a, b) = plt.subplots(1, 2)
    assert env["heatmap"](m, xlabel="j", integer=True, ax=a) is fig
    assert a.get_xlabel() == "j" and len(a.images) == 1
    np.testing.assert_array_equal(np.ma.filled(a.images[0].get_array().astype(float), np.nan), m)
    assert env["lines"]("figures/cut_rank.csv", ylabel="r", ax=b) is fig
    assert b.get_ylabel() == "r" and b.lines
    plt.close(fig)
    with plt.rc_context({"figure.figsize": (3.3, 2.5)}):
        f = env["lines"](env["pd"].read_csv("figures/cut_rank.csv"))
        assert tuple(f.get_size_inches()) == (3.3, 2.5)
        plt.close(f)
    assert not shows, "a helper called plt.show()"
