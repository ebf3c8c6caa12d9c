"""The analyses the compiled core runs directly (gallery, stacks, report; analysis/ in the C++ tree): their
result documents as Results, their argument errors with the Python argument names."""

from . import _args, _core
from ._commands import _HEADER, _progress, _python_names
from ._results import Result


def text(v):
    """An option value as the CLI's text ('' for None: the option left out)."""
    return "" if v is None else str(v)


_NO_PROGRESS = object()


def call(kind, fn, *args, progress=_NO_PROGRESS, total=None, names=None):
    """fn(*args) (a _core query returning the CLI's JSON document as a dict) as a Result of `kind`; with
    progress given (None, True or a callable), fn also takes the callback progress(stage, done, total) or None
    and the total (-1: unknown) after args. UsageError and InputError name the Python arguments (names: extra
    CLI option -> Python name)."""
    takes_progress = progress is not _NO_PROGRESS
    cb, bar = _progress(_args.progress(progress), kind) if takes_progress else (None, None)
    try:
        doc = fn(*args, cb, -1 if total is None else total) if takes_progress else fn(*args)
    except (_core.UsageError, _core.InputError) as e:  # the same class, with the Python argument names
        raise type(e)(_python_names(str(e), {"--pattern": "pattern", **(names or {})})) from None
    finally:
        if bar is not None:
            bar.close()
    header = {k: doc.pop(k) for k in _HEADER if k in doc}
    return Result(kind, doc, {"header": header})
