"""The .pyi stub lists exactly the module's public names (and Pattern's / Result's public members)."""

import ast
import pathlib

import mixgraph

STUB = pathlib.Path(__file__).resolve().parents[2] / "python" / "mixgraph" / "__init__.pyi"


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, classes = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        if isinstance(node, ast.ClassDef):
            classes[node.name] = {b.name for b in node.body if isinstance(b, ast.FunctionDef)}
        if isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
        if isinstance(node, ast.Assign):
            top.update(t.id for t in node.targets)
    return {n for n in top if not n.startswith("_") or n == "__version__"}, classes


def public(obj):
    return {n for n in dir(obj) if not n.startswith("_")}


def test_stub_lists_exactly_the_public_names():
    top, classes = stub_names()
    assert top == set(mixgraph.__all__)
    module_public = {n for n in public(mixgraph) if not isinstance(getattr(mixgraph, n), type(mixgraph))}
    assert module_public | {"__version__"} == set(mixgraph.__all__)
    assert public(mixgraph.Pattern) == {n for n in classes["Pattern"] if not n.startswith("_")}
    assert public(mixgraph.Result) == {n for n in classes["Result"] if not n.startswith("_")}


def test_every_public_name_has_a_docstring():
    for name in mixgraph.__all__:
        obj = getattr(mixgraph, name)
        if isinstance(obj, (int, str)):
            continue
        assert obj.__doc__ and obj.__doc__.strip(), name
    for name in public(mixgraph.Pattern):
        assert getattr(mixgraph.Pattern, name).__doc__, f"Pattern.{name}"
    for name in public(mixgraph.Result):
        assert getattr(mixgraph.Result, name).__doc__, f"Result.{name}"
