"""Claims written in Python: ``@mixgraph.claim(...)`` registers a check that ``mixgraph.verify()`` runs beside
the built-in (C++) claims, with the same verdict rule, the same record fields and scope enforced by the
runner (a pattern outside ``applies_to`` is never handed to the check)."""

import re
import time

from . import _args, _commands, _core
from ._commands import _specs
from ._results import Result

_REGISTRY = {}  # id -> _PyClaim, in registration order
_FAMILIES = ("translation-invariant", "cache-efficient", "matrix", "stack")
_KEEP = 5  # counterexamples kept in the record (all are counted), as the built-in claims


class _PyClaim:
    def __init__(self, fn, id, source, number, statement, applies_to, patterns, n, detail):
        self.fn, self.id, self.source, self.number = fn, id, source, number
        self.statement, self.applies_to, self.patterns, self.n, self.detail = statement, applies_to, patterns, n, detail

    def scope_text(self):
        a = self.applies_to
        if callable(a):
            doc = (a.__doc__ or "").strip().splitlines()
            return doc[0] if doc else getattr(a, "__name__", "patterns accepted by a predicate")
        return ", ".join([a] if isinstance(a, str) else list(a))


def _family(spec):
    from ._stack import is_stack

    if is_stack(spec):
        return "stack"
    p = _core.Pattern(spec) if spec.startswith("mtx:") else _core.Pattern(spec, 64)
    return p.family


def _in_scope(c, spec):
    """(True, '') or (False, reason): whether spec is inside the claim's applies_to."""
    a = c.applies_to
    if callable(a):
        ok = bool(a(spec))
        return ok, "" if ok else f"outside the claim's scope ({c.scope_text()})"
    allowed = [a] if isinstance(a, str) else list(a)
    if "any" in allowed or spec in allowed:
        return True, ""
    fam = _family(spec)
    if fam in allowed:
        return True, ""
    return False, f"{fam} pattern; the claim applies to {c.scope_text()}"


def claim(id, *, source="", statement="", number="", applies_to="any", patterns=None, n=(64,), detail=""):
    """Registers a claim written in Python; ``mixgraph.verify()`` runs it beside the built-in ones.

    Used as a decorator on the check ``check(spec, n)``, which is called once per instance: every pattern
    in scope (``patterns`` of verify, else the claim's own ``patterns``) at every length in ``n`` up to
    verify's ``n_max``. The check returns None or True (the instance holds), False or a string (a
    counterexample: the string says where, False gives 'spec n=N'), or a dict with ``counterexamples`` (a
    list of strings, empty when the instance holds), and optionally ``worst`` (a number: the largest over
    every instance is reported, with ``worst_at``, text) and ``instances`` (how many things it checked,
    default 1). An exception makes the claim ERROR with its message.

    id: a new id (not a built-in claim's; registering an id again replaces the earlier Python claim).
    source: where the statement comes from (paper, section); number: e.g. 'Prop. 4.4'; statement: in
    words. applies_to: the scope, enforced by the runner: 'any', a family ('translation-invariant',
    'cache-efficient', 'matrix', 'stack'), a list of families and exact specs, or a callable
    ``applies_to(spec) -> bool`` (its docstring's first line describes it). A pattern asked for outside
    the scope is listed under ``not_applicable`` with the reason and never checked. patterns: the specs
    checked when verify names none (default: the specs listed in applies_to; required when it lists
    none; every spec must parse). n: the lengths checked (a list of ints; verify's ``n_max`` drops the
    larger ones). detail: text for the record's ``detail``.

    Verdicts are the built-in claims' (docs/claims.md, "Verdicts"): FAILED with a counterexample, PASSED
    when at least one instance was checked and none failed, NOT APPLICABLE when nothing was checked and
    every pattern asked for is out of scope, ERROR otherwise (an empty range, an exception)."""
    if not isinstance(id, str) or not id.strip():
        raise _core.UsageError("claim: id must be a non-empty string")
    if not source or not statement:
        raise _core.UsageError(f"claim '{id}': give source= (where the statement comes from) and statement=")
    if id in _core._claim_ids():
        raise _core.UsageError(f"claim: '{id}' is a built-in claim's id; choose another")
    if not (callable(applies_to) or isinstance(applies_to, (str, list, tuple))):
        raise _core.UsageError("claim: applies_to is 'any', a family, a list of families and specs, or a callable")
    ns = [int(v) for v in ([n] if isinstance(n, int) else n)]
    if not ns or min(ns) < 1:
        raise _core.UsageError("claim: n must list lengths >= 1")
    listed = [] if callable(applies_to) else ([applies_to] if isinstance(applies_to, str) else list(applies_to))
    for s in listed:
        if s not in _FAMILIES and s != "any":
            _family(s)  # a spec in applies_to must parse (a misspelt family is not silently a spec)
    if patterns is None:
        patterns = [s for s in listed if s not in _FAMILIES and s != "any"]
    patterns = _specs(patterns)
    if not patterns:
        raise _core.UsageError(f"claim '{id}': give patterns= (the specs checked when verify names none); "
                               "applies_to lists no spec")
    for s in patterns:
        _family(s)

    def register(fn):
        if not callable(fn):
            raise _core.UsageError("claim: decorate a function check(spec, n)")
        _REGISTRY[id] = _PyClaim(fn, id, source, number, statement, applies_to, patterns, ns, detail)
        return fn

    return register


def python_claim_ids():
    """The ids of the claims registered from Python, in registration order."""
    return list(_REGISTRY)


def unregister(id):
    """Removes a claim registered from Python (KeyError when there is none with this id)."""
    del _REGISTRY[id]


def claim_ids():
    """The ids of the registered claims, in the order verify runs them: the built-in ones (``mixgraph verify
    --list``), then those registered from Python with ``@mixgraph.claim``."""
    return list(_core._claim_ids()) + [i for i in _REGISTRY if i not in set(_core._claim_ids())]


def _parse_n_max(v):
    if v is None:
        return None
    if isinstance(v, int):
        x = v
    else:
        t = str(v).strip()
        m = re.fullmatch(r"(\d+)\^(\d+)", t)
        try:
            x = int(m.group(1)) ** int(m.group(2)) if m else int(float(t)) if re.fullmatch(r"[\d.eE+]+", t) else None
        except ValueError:
            x = None
        if x is None:
            raise _core.UsageError(f"n_max: '{v}' is not a count")
    if x < 2 or x > (1 << 24):
        raise _core.UsageError(f"n_max must be between 2 and 2**24 (got {v})")
    return x


def _join(items, keep=_KEEP):
    text = "; ".join(items[:keep])
    return text + (f"; ... ({len(items)} in all)" if len(items) > keep else "")


def run_python_claim(c, patterns, n_max):
    """The record of one Python claim, with the fields and verdict rule of ``mixgraph verify --format json``."""
    t0 = time.perf_counter()
    asked = c.patterns if patterns is None else patterns
    skipped, inside = [], []
    counterexamples, instances, error = [], 0, None
    worst = None  # (value, where)
    ns = [v for v in c.n if n_max is None or v <= n_max]
    try:
        for spec in asked:
            ok, reason = _in_scope(c, spec)
            (inside.append(spec) if ok else skipped.append({"pattern": spec, "reason": reason}))
        if inside and not ns:
            raise ValueError(f"n-max {n_max} is below the claim's smallest length {min(c.n)}")
        for spec in inside:
            for nv in ns:
                out = c.fn(spec, nv)
                where = f"{spec} n={nv}"
                if out is None or out is True:
                    instances += 1
                elif out is False:
                    instances += 1
                    counterexamples.append(where)
                elif isinstance(out, str):
                    instances += 1
                    counterexamples.append(out)
                elif isinstance(out, dict):
                    instances += int(out.get("instances", 1))
                    counterexamples += [str(s) for s in out.get("counterexamples", [])]
                    if out.get("worst") is not None and (worst is None or float(out["worst"]) > worst[0]):
                        worst = (float(out["worst"]), out.get("worst_at") or where)
                else:
                    raise TypeError(f"check returned {type(out).__name__}; return None/True, False, a string "
                                    "or a dict")
    except Exception as e:  # noqa: BLE001 - a check that throws is the claim's ERROR, as the built-in ones
        error = f"{type(e).__name__}: {e}"
    rec = {"id": c.id, "source": c.source, "number": c.number, "statement": c.statement,
           "applies_to": c.scope_text()}
    if error is not None:
        status = "ERROR"
    elif counterexamples:
        status = "FAILED"
    elif instances > 0:
        status = "PASSED"
    elif skipped and not inside:
        status = "NOT APPLICABLE"
    else:
        status = "ERROR"
        error = "nothing could be checked" + (" (no pattern asked for)" if not asked else "")
    checked = ""
    if inside and ns:
        checked = ", ".join(inside) + "; n = " + ", ".join(map(str, ns))
    rec.update(status=status, checked=checked,
               worst="" if worst is None else f"{worst[0]:g} at {worst[1]}", detail=c.detail,
               seconds=time.perf_counter() - t0,
               passed=True if status == "PASSED" else False if status == "FAILED" else None,
               counterexample=_join(counterexamples) if status == "FAILED" else None, error=error,
               instances=instances if error is None else 0, not_applicable=skipped)
    return rec


def verify(claims=None, *, patterns=None, n_max=None, threads=0, mem_limit=None, progress=None):
    """Checks the papers' propositions numerically (``mixgraph verify``), with the claims registered from
    Python (``@mixgraph.claim``) run beside the built-in ones.

    claims: None (every registered claim, see ``claim_ids()``), one id or a list of ids (built-in and
    Python ones mixed; records come in this order). patterns: restrict the claims to these specs (each
    must parse: UsageError before anything runs). n_max: the largest n to check (2..2**24; default each
    claim's own range). Returns a Result with ``claims``, a list of records (one dict per claim: ``id``,
    ``source``, ``number``, ``statement``, ``applies_to``, ``status`` (the CLI's verdict words: PASSED,
    FAILED, NOT APPLICABLE, ERROR), ``checked``, ``worst``, ``detail``, ``seconds``, ``passed``,
    ``counterexample``, ``error``, ``instances``, ``not_applicable``) and ``summary`` (counts per
    verdict): the shape of ``mixgraph verify --format json``. ``to_pandas()`` gives one row per claim. A
    failed claim is a finding, not an exception. progress: a callable progress(stage, done, total) called
    as each claim starts, or True (tqdm). Ctrl-C stops it at the next claim."""
    # the arguments checked as the CLI checks its options, with the package's error classes
    claims = None if claims is None else _args.specs(claims, "claims")
    patterns = None if patterns is None else _args.specs(patterns, "patterns")
    n_max = None if n_max is None else _args.count(n_max, "n_max")
    if n_max is not None:
        n_max = _args.integer(_parse_n_max(n_max) if isinstance(n_max, str) else n_max, "n_max", 2, 1 << 24)
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    progress = _args.progress(progress)
    ids = None if claims is None else _specs(claims)
    nm = _parse_n_max(n_max)
    pats = None if patterns is None else _specs(patterns)
    builtin_all = list(_core._claim_ids())
    if ids is None:
        order = builtin_all + [i for i in _REGISTRY if i not in builtin_all]
    else:
        order = ids
    builtin = [i for i in order if i not in _REGISTRY]
    unknown = [i for i in builtin if i not in builtin_all]
    # a pattern asked for must parse before any claim runs (as the CLI). The built-in claims run first and
    # check each one (one parse, which their claims then build from); without them, or before another
    # error, or for a stack (which the built-in check refuses), it is checked here.
    from ._stack import is_stack

    if not builtin or unknown or any(is_stack(s) for s in pats or []):
        for spec in pats or []:
            _family(spec)
    if unknown:
        raise _core.UsageError(f"unknown claim '{unknown[0]}'; registered claims: "
                               + ", ".join(builtin_all + [i for i in _REGISTRY if i not in builtin_all]))
    total = len(order)
    cb, bar = _commands._progress(progress, "verify")
    records, header = {}, None
    try:
        if builtin:
            sub = None if cb is None else (lambda stage, done, tot: cb(stage, done, total))
            r = _commands.verify(builtin, patterns=pats, n_max=n_max, threads=threads, mem_limit=mem_limit,
                                 progress=sub)
            header = r.header
            for rec in r.claims:
                records.setdefault(rec["id"], []).append(rec)
        done = len(builtin)
        for i in order:
            if i in _REGISTRY:
                done += 1
                if cb is not None:
                    cb(i, done, total)
                records.setdefault(i, []).append(run_python_claim(_REGISTRY[i], pats, nm))
    finally:
        if bar is not None:
            bar.close()
    out = [records[i].pop(0) for i in order]
    counts = {"passed": 0, "failed": 0, "errors": 0, "not_applicable": 0}
    key = {"PASSED": "passed", "FAILED": "failed", "ERROR": "errors", "NOT APPLICABLE": "not_applicable"}
    for rec in out:
        counts[key[rec["status"]]] += 1
    params = {"claims": [] if ids is None else ids, "patterns": pats or [], "format": "json",
              "n_max": "default" if nm is None else nm}
    if header is None:
        header = {"schema": "mixgraph.verify/1", "mixgraph_version": _core.__version__, "command": "verify"}
    header = {**header, "parameters": params}
    summary = {k: counts[k] for k in ("errors", "failed", "not_applicable", "passed")}
    return Result("verify", {"claims": out, "summary": summary}, {"header": header})
