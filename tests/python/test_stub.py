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


def test_stub_signatures_match_the_functions():
    """Every module-level function's parameters (names, kinds, defaults) are the stub's."""
    import inspect

    tree = ast.parse(STUB.read_text())
    stubs = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    checked = 0
    for name in mixgraph.__all__:
        obj = getattr(mixgraph, name)
        if not inspect.isfunction(obj):
            continue
        a = stubs[name].args
        stub = [(x.arg, "pos") for x in a.posonlyargs + a.args] + [(x.arg, "kw") for x in a.kwonlyargs]
        stub_defaults = [ast.literal_eval(d) for d in a.defaults] + \
            [None if d is None else ast.literal_eval(d) for d in a.kw_defaults]
        real = inspect.signature(obj).parameters.values()
        kinds = {inspect.Parameter.KEYWORD_ONLY: "kw"}
        assert stub == [(p.name, kinds.get(p.kind, "pos")) for p in real], name
        real_defaults = [p.default for p in real if p.default is not inspect.Parameter.empty]
        assert all(p.default is not inspect.Parameter.empty for p in real if kinds.get(p.kind) == "kw"), name
        assert stub_defaults == real_defaults, name
        checked += 1
    assert checked >= 12
