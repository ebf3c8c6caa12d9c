"""docs/notebooks/compare_designs.ipynb runs under nbconvert: its gallery numbers equal the CLI's
`gallery --format json`, it draws its figures (four mixgraph.plot kinds and a restyled one) and its claim
written in Python passes beside the built-in one, with the pattern outside its scope NOT APPLICABLE."""

import json
import os
import pathlib
import shutil
import subprocess

import pytest

import mixgraph

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "notebooks" / "compare_designs.ipynb"
NBCONVERT = shutil.which("jupyter-nbconvert")


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    if NBCONVERT is None:
        pytest.skip("jupyter-nbconvert is not installed")
    d = tmp_path_factory.mktemp("compare")
    shutil.copy(NOTEBOOK, d / "nb.ipynb")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(pathlib.Path(mixgraph.__file__).parents[1]),
                                                    env.get("PYTHONPATH", "")] if p)
    out = subprocess.run([NBCONVERT, "--to", "notebook", "--execute", "--output", "run.ipynb",
                          "--ExecutePreprocessor.timeout=300", str(d / "nb.ipynb")],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads((d / "run.ipynb").read_text())


def tagged(nb, tag):
    (cell,) = [c for c in nb["cells"] if tag in c.get("metadata", {}).get("tags", [])]
    return "".join("".join(o.get("text", "")) for o in cell["outputs"] if o.get("name") == "stdout")


def test_numbers_equal_the_cli(executed, cli):
    numbers = json.loads(tagged(executed, "numbers"))
    rows, n = numbers["designs"], numbers["n"]
    designs = [r["pattern"] for r in rows]
    assert len(designs) == 6 and len(set(designs)) == 6
    args = ["gallery", "-n", n]
    for s in designs:
        args += ["-p", s]
    want = cli(*args)["designs"]
    for r, w in zip(rows, want):
        for k, v in w.items():
            assert r[k] == v, (w["pattern"], k)


def test_draws_the_figures(executed):
    code = [c for c in executed["cells"] if c["cell_type"] == "code"]
    pngs = [c for c in code if any("image/png" in o.get("data", {}) for o in c["outputs"])]
    drawn = " ".join("".join(c["source"]) for c in pngs)
    for kind in ("gallery_bars", "congestion", "profile", "cut_ranks", "heatmap"):
        assert f"mixgraph.plot.{kind}(" in drawn, kind
    assert any("rc_context" in "".join(c["source"]) for c in pngs)
    restyled = [c for c in pngs if "rc_context" in "".join(c["source"])][0]
    assert "[3.3 2.4]" in "".join("".join(o.get("text", "")) for o in restyled["outputs"])


def test_runs_a_claim_written_in_python(executed):
    claims = json.loads(tagged(executed, "claims"))
    assert [c["id"] for c in claims] == ["fagnou.prop4.2", "notebook.cor4.5-popcount"]
    assert [c["status"] for c in claims] == ["PASSED", "PASSED"]
    assert claims[1]["instances"] == 2 and [s["pattern"] for s in claims[1]["not_applicable"]] == ["sq1"]
