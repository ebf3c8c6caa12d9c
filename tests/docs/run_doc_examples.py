"""Every example in README.md and docs/*.md that shows an output is run, and its output compared.

Python `>>>` examples run under doctest (ELLIPSIS, NORMALIZE_WHITESPACE) with the package on PYTHONPATH
(the build tree), one namespace per markdown file, in a temporary directory; an example that shows no
output is run and its output is not compared. `$ mixgraph ...` examples run the CLI (MIXGRAPH_CLI, else
build/tools/mixgraph) in a temporary directory; its stdout, then its stderr, must match the lines shown
(`...` on a line of its own: any lines; inside a line: any text). A command that exits nonzero shows
`(exit N)` as its last line. The grammar of the examples and the skip markers: doc_examples.py.

    PYTHONPATH=build/python MIXGRAPH_CLI=build/tools/mixgraph python3 -m pytest -q tests/docs/run_doc_examples.py
"""

import doctest
import importlib
import io
import json
import os
import pathlib
import shlex
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import doc_examples as de  # noqa: E402

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE

try:  # frames print as in a notebook (docs/python.md's tables), not cut to an 80-column terminal
    import pandas as _pd

    _pd.set_option("display.width", 120)
    _pd.set_option("display.max_columns", 20)
except ImportError:
    pass


def cli_path():
    p = os.environ.get("MIXGRAPH_CLI") or str(de.ROOT / "build" / "tools" / "mixgraph")
    return os.path.abspath(p) if os.path.exists(p) else None  # the examples run in a temporary directory


class _Checker(doctest.OutputChecker):
    """doctest's comparison, except that an example showing no output accepts any output."""

    def check_output(self, want, got, optionflags):
        return want == "" or super().check_output(want, got, optionflags)


_namespaces = {}  # markdown file -> (globals, working directory): the examples of a page build on each other


def _requirement_missing(names):
    for name in names:
        if name == "glpk":
            cli = cli_path()
            out = subprocess.run([cli, "info", "--format", "json"], capture_output=True, text=True) if cli else None
            if out is None or out.returncode != 0 or not json.loads(out.stdout)["features"]["lp"]:
                return "mixgraph was built without GLPK (or the CLI is not built)"
            continue
        if name == "cuda":
            try:
                torch = importlib.import_module("torch")
            except ImportError:
                return "torch is not importable (the example uses CUDA tensors)"
            if not torch.cuda.is_available():
                return "no CUDA device visible to torch"
            continue
        try:
            importlib.import_module(name)
        except ImportError:
            return f"{name} is not importable"
    return ""


@pytest.mark.parametrize("block", de.python_blocks(), ids=lambda b: b.where)
def test_python_example(block, tmp_path_factory):
    if block.skip:
        pytest.skip(f"{block.where}: {block.skip}")
    pytest.importorskip("mixgraph", reason="the mixgraph Python package is not built / not on PYTHONPATH")
    missing = _requirement_missing(block.requires)
    if missing:
        pytest.skip(f"{block.where}: {missing}")
    key = block.path
    if key not in _namespaces:
        _namespaces[key] = ({"__name__": "__doc_example__"}, tmp_path_factory.mktemp(block.path.stem))
    globs, cwd = _namespaces[key]
    text = "\n".join(block.lines) + "\n"
    test = doctest.DocTestParser().get_doctest(text, globs, block.where, str(block.path), block.line - 1)
    report = io.StringIO()
    runner = doctest.DocTestRunner(checker=_Checker(), optionflags=FLAGS)
    old = os.getcwd()
    os.chdir(cwd)
    try:
        runner.run(test, out=report.write, clear_globs=False)
    finally:
        os.chdir(old)
        globs.update(test.globs)  # DocTest runs on a copy of the namespace: keep what the block defined
    if runner.failures:
        pytest.fail(report.getvalue(), pytrace=False)


@pytest.mark.parametrize("ex", de.shell_examples(), ids=lambda e: e.where)
def test_shell_example(ex, tmp_path):
    if ex.block.skip:
        pytest.skip(f"{ex.where}: {ex.block.skip}")
    path = cli_path()
    if path is None:
        pytest.skip("the mixgraph CLI is not built (set MIXGRAPH_CLI)")
    argv = shlex.split(ex.command, comments=True)  # a trailing "# ..." is a comment, as in a shell
    assert argv[0] == "mixgraph", f"{ex.where}: a shell example runs `mixgraph`, not {argv[0]!r}"
    want = list(ex.want)
    want_rc = 0
    if want and want[-1].strip().startswith("(exit ") and want[-1].strip().endswith(")"):
        want_rc = int(want.pop().strip()[6:-1])
    r = subprocess.run([path, *argv[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    got = r.stdout.splitlines() + r.stderr.splitlines()
    shown = "\n".join(want)
    printed = "\n".join(got)
    assert r.returncode == want_rc, f"{ex.where}: `{ex.command}` exited {r.returncode}, the doc shows {want_rc}\n{printed}"
    assert de.lines_match(want, got), f"{ex.where}: `{ex.command}`\n--- shown:\n{shown}\n--- printed:\n{printed}"


def test_examples_found():
    """The finder itself: the pages with examples give some of each kind (else the tests above test nothing)."""
    assert len(de.python_blocks()) >= 10
    assert len(de.shell_examples()) >= 3


def test_line_matching():
    """The shell comparison can fail: wrong text, a missing line, an extra line."""
    assert de.lines_match(["a  b", "..."], ["a b", "x", "y"])
    assert de.lines_match(["...", "z"], ["z"])
    assert de.lines_match(["t ... s"], ["t 1.5 s"])
    assert not de.lines_match(["a b"], ["a c"])
    assert not de.lines_match(["a", "b"], ["a"])
    assert not de.lines_match(["a"], ["a", "b"])
    assert not de.lines_match(["t ... s"], ["t 1.5 ms x"])


def _md_cells(row):
    """The cells of a Markdown table row, `\\|` kept as a literal bar."""
    return [c.strip().replace("\0", "|") for c in row.strip().strip("|").replace("\\|", "\0").split("|")]


def test_claims_doc_matches_the_claims():
    """docs/claims.md (generated by scripts/update-claims-doc.sh from a full `verify` run, minutes, so not
    rerun here): its claims, their source, statement and scope are those of `mixgraph verify --list` now,
    and every Scope row is filled."""
    path = cli_path()
    if path is None:
        pytest.skip("the mixgraph CLI is not built (set MIXGRAPH_CLI)")
    r = subprocess.run([path, "verify", "--list", "--format", "json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    claims = {c["id"]: c for c in json.loads(r.stdout)["claims"]}
    lines = (de.ROOT / "docs" / "claims.md").read_text(encoding="utf-8").split("\n")
    status, scope = {}, {}
    section = ""
    for line in lines:
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("| `"):
            cells = _md_cells(line)
            cid = cells[0].strip("`")
            if section == "Scope":
                scope[cid] = cells[1]
            elif not section:
                status[cid] = cells
    assert sorted(status) == sorted(claims), "the status table's claims are not verify --list's"
    assert sorted(scope) == sorted(claims), "the Scope table's claims are not verify --list's"
    for cid, c in claims.items():
        assert status[cid][1] == c["number"], cid
        assert status[cid][3] == c["statement"], cid
        assert scope[cid] and scope[cid] == c["applies_to"], cid
