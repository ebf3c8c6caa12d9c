"""Argument checks of the public functions, made before any call into the compiled core: each refuses a
value the CLI would refuse (threads above 1024, a NaN or infinite tolerance, a size beyond 64 bits, a
negative seed) with UsageError, and a value of the wrong type (``Pattern(5, 16)``, ``heads='2'``) with
ArgumentTypeError (a UsageError and a TypeError), naming the Python argument."""

import math
import numbers
import os

from . import _core

MAX_THREADS = 1024  # the CLI's --threads limit
U64_MAX = 2**64 - 1


def _show(v):
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_error(name, want, v):
    return _core.ArgumentTypeError(f"{name} must be {want} (got {_show(v)} of type {type(v).__name__})")


def integer(v, name, lo=0, hi=U64_MAX):
    """An int (numpy integers included, bool refused) in lo..hi."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise _type_error(name, "an int", v)
    v = int(v)
    if v < lo or v > hi:
        top = "2**64 - 1" if hi == U64_MAX else str(hi)
        raise _core.UsageError(f"{name} must be in {lo}..{top} (got {v})")
    return v


def threads(v, name="threads"):
    """0 (all cores) .. 1024, as the CLI's --threads."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise _type_error(name, "an int (0 = all cores)", v)
    if not 0 <= int(v) <= MAX_THREADS:
        raise _core.UsageError(f"{name} must be between 0 (all cores) and {MAX_THREADS} (got {int(v)})")
    return int(v)


def seed(v, name="seed"):
    """0 .. 2**64 - 1, as the CLI's --seed."""
    return integer(v, name, 0, U64_MAX)


def count(v, name, lo=1, optional=False):
    """A size: an int in lo..2**64-1 or the CLI's text ('2^20', '1e6'), checked by the core."""
    if v is None and optional:
        return None
    if isinstance(v, str):
        if not v.strip():
            raise _core.UsageError(f"{name} is empty: give a number such as 4096, '2^20' or '1e6'")
        return v
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise _type_error(name, "an int or text such as '2^20'", v)
    return integer(v, name, lo, U64_MAX)


def real(v, name, lo, hi):
    """A finite real number in [lo, hi] (NaN and +-inf refused, as the CLI's tolerances)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise _type_error(name, "a number", v)
    x = float(v)
    if not math.isfinite(x):
        raise _core.UsageError(f"{name} must be a finite number in [{lo:g}, {hi:g}] (got {x})")
    if x < lo or x > hi:
        raise _core.UsageError(f"{name} must be in [{lo:g}, {hi:g}] (got {x:g})")
    return x


def flag(v, name):
    """True or False (numpy bools included)."""
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return bool(v)
    raise _type_error(name, "True or False", v)


def text(v, name, optional=False, choices=None):
    """A non-empty str (one of `choices` when given)."""
    if v is None and optional:
        return None
    if not isinstance(v, str):
        raise _type_error(name, "a str", v)
    if not v.strip() or "\0" in v:
        raise _core.UsageError(f"{name} is empty" if "\0" not in v else f"{name} holds a NUL character")
    if choices is not None and v not in choices:
        raise _core.UsageError(f"{name} must be one of {', '.join(map(repr, choices))} (got {v!r})")
    return v


def spec(v, name="pattern"):
    """A pattern: a spec str or a Pattern."""
    if isinstance(v, _core.Pattern):
        return v
    return text(v, name)


def specs(v, name="patterns"):
    """One spec str or a non-empty list / tuple of them."""
    if isinstance(v, str):
        return [text(v, name)]
    if not isinstance(v, (list, tuple)):
        raise _type_error(name, "a spec str or a list of them", v)
    if not v:
        raise _core.UsageError(f"{name} is empty: give at least one pattern spec")
    return [text(s, f"{name}[{k}]") for k, s in enumerate(v)]


def mem_limit(v, name="mem_limit"):
    """None (physical memory), bytes as an int, or text such as '8G'."""
    if v is None:
        return None
    if isinstance(v, str):
        return text(v, name)
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise _type_error(name, "an int (bytes) or text such as '8G'", v)
    return integer(v, name, 0, U64_MAX)


def path(v, name, optional=False):
    """A file or folder name: str or os.PathLike, not empty."""
    if v is None and optional:
        return None
    if not isinstance(v, (str, bytes, os.PathLike)):
        raise _type_error(name, "a path (str or os.PathLike)", v)
    p = os.fsdecode(v)
    if not p or "\0" in p:
        raise _core.UsageError(f"{name} is empty" if not p else f"{name} holds a NUL character")
    return p


def progress(v, name="progress"):
    """None, True/False, or a callable."""
    if v is None or isinstance(v, bool) or callable(v):
        return v
    raise _type_error(name, "None, True or a callable progress(stage, done, total)", v)


def cuts(v, name="cuts"):
    """None, 'all' or other CLI text, a count (int), or a sequence of cuts (ints >= 1)."""
    if v is None:
        return None
    if isinstance(v, str):
        return text(v, name)
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return integer(v, name, 1)
    try:
        items = list(v)
    except TypeError:
        raise _type_error(name, "None, 'all', a count or a list of cuts", v) from None
    return [integer(k, f"{name}[{i}]", 1) for i, k in enumerate(items)]


def position(v, name):
    """A 1-indexed position: an int; one below 1 or beyond 63 bits is refused here, the rest against n by
    the core (whose message names n)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise _type_error(name, "an int, a 1-indexed position", v)
    v = int(v)
    if v < 1 or v >= 2**63:
        raise _core.UsageError(f"{name} {v} is outside the positions 1..n (positions are 1-indexed)")
    return v
