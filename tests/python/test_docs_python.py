"""The examples of docs/python.md from "Comparing designs" to "Claims written in Python" run as doctests: the
output shown is the output they give."""

import doctest
import pathlib

import pytest

import mixgraph
from mixgraph import _claims

pytest.importorskip("pandas")
pytest.importorskip("matplotlib")

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"
SECTIONS = ("## Comparing designs", "## Tidy tables", "## Figures", "## Claims written in Python")


def section(text, title):
    start = text.index(title + "\n")
    end = text.find("\n## ", start + len(title))
    return text[start:end if end >= 0 else len(text)]


@pytest.mark.parametrize("title", SECTIONS)
def test_examples_give_the_output_shown(title, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd

    monkeypatch.chdir(tmp_path)  # the examples write files
    text = section(DOC.read_text(), title)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {"mixgraph": mixgraph}, title, str(DOC), 0)
    assert test.examples, f"no examples under {title}"
    before = set(_claims._REGISTRY)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with pd.option_context("display.width", 120, "display.max_columns", 20):
        runner.run(test)
    for i in set(_claims._REGISTRY) - before:
        _claims.unregister(i)
    assert runner.failures == 0, f"{runner.failures} example(s) under {title} differ (see the output above)"
