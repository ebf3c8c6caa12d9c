"""Every public function, one argument at a time replaced by a hostile value (ints beyond 64 bits, negative
numbers, NaN, inf, floats where ints belong, wrong types, empty strings): the call either works or raises one
of the package's own errors (a MixgraphError), never another exception and never a crash of the
interpreter. The calls run in a child interpreter, so a crash fails this test instead of ending pytest."""

import json
import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    r"""
    import json, math, sys
    import numpy as np
    import mixgraph

    HOSTILE = [2**64, 2**70, -1, -2**70, float("nan"), float("inf"), -float("inf"), 1.5, "", "abc", "\0",
               b"x", [], {}, object(), True]
    # (name, function, valid keyword arguments, arguments not fuzzed, values a valid run would take long on)
    p16 = mixgraph.Pattern("pow2", 16)
    X = np.ones((16, 2))
    CASES = [
        ("Pattern", mixgraph.Pattern, dict(spec="pow2", n=16, threads=0, mem_limit=None), ()),
        ("Pattern.reads", p16.reads, dict(i=3), ()),
        ("distances", mixgraph.distances,
         dict(pattern="pow2", n=16, source=None, target=None, counts=False, all_pairs=False, summary=False,
              matrix=False, method="auto", threads=0, mem_limit=None), ()),
        ("path_lengths", mixgraph.path_lengths,
         dict(patterns="pow2", sweep="16..32", all_pairs=False, threads=0, mem_limit=None, progress=None), ()),
        ("congestion", mixgraph.congestion,
         dict(pattern="pow2", N=8, routing=None, lp=False, seed=1, paths=False, mem_limit=None), ()),
        ("rank", mixgraph.rank,
         dict(pattern="pow2", n=16, method="both", cuts=None, seed=1, tol=0.0, dyadic=False, mem_limit=None,
              progress=None), ()),
        ("solve", mixgraph.solve,
         dict(pattern=p16, X=X, heads=1, seed=1, threads=0, info=False, mem_limit=None, progress=None,
              weights_a=None, weights_b=None, gates=None, input_gates=None, attn_q=None, attn_k=None,
              attn_kernel="softmax"), ()),
        ("pattern_sweep", mixgraph.pattern_sweep,
         dict(pattern="pow2", sweep="16..32", threads=0, mem_limit=None, progress=None), ()),
        ("congestion_sweep", mixgraph.congestion_sweep,
         dict(patterns="pow2", sweep="8..16", routing=None, lp=False, seed=1, threads=0, mem_limit=None,
              progress=None), ()),
        ("verify", mixgraph.verify,
         dict(claims="fagnou.prop4.2", patterns="pow2", n_max=32, threads=0, mem_limit=None, progress=None),
         ()),
        ("loglinear", mixgraph.loglinear,
         dict(T=16, seed=1, numeric_limit=16, pattern=None, threads=0, mem_limit=None), ()),
        ("ssm_rank", mixgraph.ssm_rank,
         dict(n=8, state=2, p=1, d=1, tol=0.0, seed=1, matrices=None, example=None, threads=0, mem_limit=None),
         ()),
        ("heads_rank", mixgraph.heads_rank,
         dict(patterns=["pow2", "sq1"], n=16, p=2, d=2, tol=0.0, seed=1, threads=0, mem_limit=None), ()),
        ("stack", mixgraph.stack,
         dict(spec="stack:pow2,sq1", n=16, profile=False, summary=False, threads=0, mem_limit=None), ()),
        ("validate", mixgraph.validate,
         dict(pattern="pow2", n=16, backend="cpu", seed=1, threads=0, mem_limit=None), ()),
        # report writes a directory: only values refused before any work (a valid path would run it whole)
        ("report", mixgraph.report, dict(out=None, n=16, threads=1), ("n", "threads")),
    ]
    bad = []
    calls = 0
    for name, fn, base, skip in CASES:
        for key in base:
            if key in skip:
                continue
            for value in HOSTILE:
                if name == "report" and isinstance(value, (str, bytes)) and value not in ("", "\0"):
                    continue  # a valid directory name: the report would run
                kw = dict(base)
                kw[key] = value
                if name == "report" and key != "out":
                    continue
                calls += 1
                print(f"{name}({key}={value!r})", file=sys.stderr, flush=True)
                try:
                    fn(**kw)
                except mixgraph.MixgraphError as e:
                    if not str(e).strip():
                        bad.append(f"{name}({key}={value!r}): an empty message")
                    if "incompatible function arguments" in str(e) or "Unable to cast" in str(e):
                        bad.append(f"{name}({key}={value!r}): raw pybind11 text: {e}")
                except Exception as e:  # noqa: BLE001 - what this test looks for
                    bad.append(f"{name}({key}={value!r}): {type(e).__module__}.{type(e).__name__}: {e}")
    print(json.dumps({"calls": calls, "bad": bad}))
    """
)


def test_hostile_arguments_raise_only_package_errors():
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=120)
    last = out.stderr.strip().splitlines()[-1:] if out.stderr.strip() else ["(none)"]
    assert out.returncode == 0, f"the interpreter died (exit {out.returncode}) at {last[0]}\n{out.stderr[-2000:]}"
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["calls"] > 500
    assert result["bad"] == [], "\n".join(result["bad"])


def test_error_classes_derive_from_the_standard_ones(tmp_path):
    import mixgraph

    assert issubclass(mixgraph.ArgumentTypeError, mixgraph.UsageError)
    assert issubclass(mixgraph.ArgumentTypeError, TypeError)
    assert issubclass(mixgraph.InputFileNotFound, mixgraph.InputError)
    assert issubclass(mixgraph.InputFileNotFound, FileNotFoundError)
    missing = tmp_path / "missing.mtx"
    try:
        mixgraph.Pattern(f"mtx:{missing}")
    except FileNotFoundError as e:
        assert isinstance(e, mixgraph.InputError) and str(missing) in str(e)
    else:
        raise AssertionError("a missing file was not refused")
    for call in (lambda: mixgraph.Pattern(5, 16), lambda: mixgraph.solve("pow2", None),
                 lambda: mixgraph.distances("pow2", 16, threads="2")):
        try:
            call()
        except TypeError as e:
            assert isinstance(e, mixgraph.UsageError)
        else:
            raise AssertionError("a wrong type was not refused")


def test_messages_name_python_arguments():
    import mixgraph

    cases = [
        (lambda: mixgraph.distances("pow2+cache", 256, summary=True, threads=100000), "threads"),
        (lambda: mixgraph.rank("pow2", 16, method="dense", tol=float("inf")), "tol"),
        (lambda: mixgraph.rank("pow2", 16, method="dense", tol=float("nan")), "tol"),
        (lambda: mixgraph.Pattern("pow2", 2**64), "n"),
        (lambda: mixgraph.distances("pow2", 16, source=2**70), "source"),
        (lambda: mixgraph.congestion("pow2", 8, seed=-1), "seed"),
        (lambda: mixgraph.Pattern("pow2", 16, mem_limit=1.5e9), "mem_limit"),
        (lambda: mixgraph.solve(mixgraph.Pattern("pow2", 4), __import__("numpy").ones((4, 1)), heads="2"), "heads"),
        (lambda: mixgraph.verify("fagnou.prop4.2", n_max=1), "n_max"),
    ]
    for call, name in cases:
        try:
            call()
        except mixgraph.UsageError as e:
            text = str(e)
            assert text.startswith(name) or f" {name} " in f" {text} " or f"{name}:" in text, text
            assert "--" not in text.replace("--help", ""), f"a CLI flag in a Python message: {text}"
        else:
            raise AssertionError(f"not refused: {name}")
