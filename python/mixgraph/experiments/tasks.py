"""The synthetic tasks: seeded generators of (inputs, targets) batches.

Every generator returns a ``Batch`` of two int64 tensors of shape (batch, T): ``inputs`` (token ids) and
``targets`` (the token the model must predict at each position, ``IGNORE`` = -100 where nothing is scored).
Token 0 is the separator; data tokens are 1..vocab. A batch is a function of its torch.Generator alone, so
the same seed gives the same sequences on every machine (torch's CPU generator).
"""

from dataclasses import dataclass, field
from typing import Callable, Dict

import torch

from .. import UsageError

IGNORE = -100  #: target of a position that is not scored (torch.nn.functional.cross_entropy's ignore_index)
SEP = 0  #: the separator token


@dataclass(frozen=True)
class Batch:
    inputs: torch.Tensor  # (batch, T) int64
    targets: torch.Tensor  # (batch, T) int64, IGNORE where not scored


@dataclass(frozen=True)
class Task:
    """A task with its parameters: ``name``, ``params`` (dict), ``length`` (T), ``vocab`` (token ids
    0..vocab, so vocab + 1 embeddings) and ``sample(batch, generator) -> Batch``."""

    name: str
    params: Dict[str, int]
    length: int
    vocab: int
    sample: Callable[[int, torch.Generator], Batch] = field(compare=False, repr=False)


def _perm_prefix(batch: int, size: int, k: int, gen: torch.Generator) -> torch.Tensor:
    """k distinct values of 0..size-1 in random order, per row: (batch, k) int64."""
    return torch.rand(batch, size, generator=gen).argsort(dim=1)[:, :k]


def copy(n: int = 64, vocab: int = 16) -> Task:
    """Copy: a random string s_1..s_n (tokens 1..vocab, uniform), the separator, then the string again,
    teacher-forced: inputs [s_1..s_n, SEP, s_1..s_{n-1}] (T = 2n). The output at position n + j (1-indexed)
    must be s_j, an offset of exactly n: the copy task of ``mixgraph congestion -N n`` on 2n tokens. Only
    the copied half (positions n+1..2n) is scored."""
    _positive(n=n, vocab=vocab)

    def sample(batch: int, gen: torch.Generator) -> Batch:
        s = torch.randint(1, vocab + 1, (batch, n), generator=gen)
        sep = torch.full((batch, 1), SEP, dtype=torch.int64)
        inputs = torch.cat([s, sep, s[:, :-1]], dim=1)
        targets = torch.cat([torch.full((batch, n), IGNORE, dtype=torch.int64), s], dim=1)
        return Batch(inputs, targets)

    return Task("copy", {"n": n, "vocab": vocab}, 2 * n, vocab, sample)


def recall(pairs: int = 32, queries: int = 32, vocab: int = 128) -> Task:
    """Multi-query associative recall: ``pairs`` key-value pairs k_1 v_1 .. k_P v_P, then ``queries``
    keys q_1..q_Q, each one of the pairs' keys (distinct, in random order). The output at each query must
    be the value stored with that key. Keys are distinct tokens of 1..vocab/2, values uniform in
    vocab/2+1..vocab. T = 2 pairs + queries; only the queries are scored."""
    _positive(pairs=pairs, queries=queries, vocab=vocab)
    half = vocab // 2
    if pairs > half:
        raise UsageError(f"recall: pairs = {pairs} distinct keys need vocab >= {2 * pairs} (got {vocab})")
    if queries > pairs:
        raise UsageError(f"recall: queries = {queries} must be at most pairs = {pairs} (each key asked once)")

    def sample(batch: int, gen: torch.Generator) -> Batch:
        keys = _perm_prefix(batch, half, pairs, gen) + 1
        values = torch.randint(half + 1, vocab + 1, (batch, pairs), generator=gen)
        which = _perm_prefix(batch, pairs, queries, gen)
        kv = torch.stack([keys, values], dim=2).reshape(batch, 2 * pairs)
        inputs = torch.cat([kv, keys.gather(1, which)], dim=1)
        targets = torch.cat([torch.full((batch, 2 * pairs), IGNORE, dtype=torch.int64), values.gather(1, which)],
                            dim=1)
        return Batch(inputs, targets)

    return Task("recall", {"pairs": pairs, "queries": queries, "vocab": vocab}, 2 * pairs + queries, vocab, sample)


def multihop(chains: int = 16, hops: int = 2, vocab: int = 128) -> Task:
    """Multi-hop associative recall: ``chains`` chains e_0 -> e_1 -> ... -> e_hops of distinct tokens
    (1..vocab), written as chains x hops pairs (a b: "a points to b") in random order, then the chains'
    first tokens e_0 as queries (in random order). The output at a query must be e_hops, reached by
    ``hops`` lookups. T = 2 chains hops + chains; only the queries are scored. hops = 1 is associative
    recall with every key asked."""
    _positive(chains=chains, hops=hops, vocab=vocab)
    need = chains * (hops + 1)
    if need > vocab:
        raise UsageError(f"multihop: {chains} chains of {hops} hops need {need} distinct tokens; vocab is {vocab}")
    npairs = chains * hops

    def sample(batch: int, gen: torch.Generator) -> Batch:
        ent = (_perm_prefix(batch, vocab, need, gen) + 1).reshape(batch, chains, hops + 1)
        pairs = torch.stack([ent[:, :, :-1], ent[:, :, 1:]], dim=3).reshape(batch, npairs, 2)
        order = _perm_prefix(batch, npairs, npairs, gen)
        pairs = pairs.gather(1, order.unsqueeze(2).expand(batch, npairs, 2)).reshape(batch, 2 * npairs)
        ask = _perm_prefix(batch, chains, chains, gen)
        inputs = torch.cat([pairs, ent[:, :, 0].gather(1, ask)], dim=1)
        targets = torch.cat([torch.full((batch, 2 * npairs), IGNORE, dtype=torch.int64), ent[:, :, -1].gather(1, ask)],
                            dim=1)
        return Batch(inputs, targets)

    return Task("multihop", {"chains": chains, "hops": hops, "vocab": vocab}, 2 * npairs + chains, vocab, sample)


def _positive(**kw: int) -> None:
    for k, v in kw.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise UsageError(f"task parameter {k} must be a positive integer (got {v!r})")


#: name -> generator factory; each takes its parameters as keywords with the defaults above
TASKS = {"copy": copy, "recall": recall, "multihop": multihop}


def make_task(name: str, **params: int) -> Task:
    """The task ``name`` ('copy', 'recall', 'multihop') with ``params`` overriding its defaults; an unknown
    name or parameter raises UsageError."""
    if name not in TASKS:
        raise UsageError(f"unknown task {name!r}; the tasks are {', '.join(TASKS)}")
    import inspect

    known = inspect.signature(TASKS[name]).parameters
    bad = [k for k in params if k not in known]
    if bad:
        raise UsageError(f"task {name} has no parameter {bad[0]!r}; it takes {', '.join(known)}")
    return TASKS[name](**params)
