"""mixgraph from Python: causal token-mixer sparsity patterns as graphs.

The same analyses as the ``mixgraph`` CLI, with numpy arrays in and out::

    import mixgraph
    p = mixgraph.Pattern("pow2", 1 << 20)
    p.decode_cost().max()                       # 20
    mixgraph.distances(p).diameter              # 20 (max delta(m), from the distance profile)
    mixgraph.congestion("pow2", 1000).lower_bounds
    Y = mixgraph.solve(p, X)                    # Y = (I - B)^{-1} A X, X a float32/float64 numpy array

Positions are 1-indexed (entry 0 of a per-position array is position 1). Distances are uint32 with
``UNREACHABLE`` (2**32 - 1) where no path exists. Every result has ``to_dict()`` with the fields of the
CLI's ``--format json`` output. Errors: ``UsageError`` / ``InputError`` (ValueError), ``MemoryRefused``
(MemoryError), ``RuntimeFailure`` / ``GpuRequired`` (RuntimeError), all ``MixgraphError``; an argument
of the wrong type raises ``ArgumentTypeError`` (a UsageError and a TypeError), a missing input file
``InputFileNotFound`` (an InputError and a FileNotFoundError).
"""

from ._core import (
    UNREACHABLE,
    ArgumentTypeError,
    GpuRequired,
    InputError,
    InputFileNotFound,
    MemoryRefused,
    MixgraphError,
    Pattern,
    RuntimeFailure,
    UsageError,
    __version__,
)
from . import _core
from . import _args
from ._commands import (
    congestion_sweep,
    heads_rank,
    loglinear,
    pattern_sweep,
    report,
    ssm_rank,
    validate,
)
from ._commands import _progress
from . import _stack
from ._stack import stack
from ._results import Result
from ._claims import claim, claim_ids, verify
from ._gallery import compare, gallery
from ._mixer import Mixer, clear_mixer_cache, mixer_cache_info
from . import plot  # noqa: F401 - mixgraph.plot; matplotlib is imported by its functions, not here
from . import _specs

_specs.install(Pattern, _stack.is_stack, UsageError)

__all__ = [
    "ArgumentTypeError",
    "GpuRequired",
    "InputError",
    "InputFileNotFound",
    "MemoryRefused",
    "Mixer",
    "MixgraphError",
    "Pattern",
    "Result",
    "RuntimeFailure",
    "UNREACHABLE",
    "UsageError",
    "__version__",
    "claim",
    "claim_ids",
    "clear_mixer_cache",
    "compare",
    "congestion",
    "congestion_sweep",
    "distances",
    "gallery",
    "heads_rank",
    "loglinear",
    "mixer_cache_info",
    "path_lengths",
    "pattern_sweep",
    "rank",
    "report",
    "solve",
    "ssm_rank",
    "stack",
    "validate",
    "verify",
]


def distances(pattern, n=None, *, source=None, target=None, counts=False, all_pairs=False, summary=False,
              matrix=False, method="auto", threads=0, mem_limit=None):
    """Shortest paths d(i, j): the fewest hops from input x_j to output y_i (``mixgraph distances``).

    pattern: a Pattern, or a spec string with n. Returns a Result with the CLI's JSON fields:
    translation-invariant patterns get the distance profile ``profile`` (delta(m), m = 0..n-1, uint32) and
    the summary from it in O(n) (bitset BFS, O(levels * |F| * n / 64)); other patterns run all-pairs
    bit-parallel BFS (O(n^2/64 * levels), automatic up to n = 2**14, ``all_pairs=True`` above), giving
    ``diameter``, ``mean_distance``, ``histogram`` (pairs j < i per distance), ``reachable_pairs``,
    ``unreachable_pairs`` and ``eccentricity`` (per position, uint32). ``source=j``: ``dist`` = d(i, j) for
    every i (uint32, UNREACHABLE for i < j and where no path exists), with ``counts=True`` also
    ``path_counts`` (uint64, saturating; ``path_counts_overflow``). ``target=i``: ``dist_to_target`` =
    d(i, j) for every j. Both: ``distance`` = d(target, source). ``summary=True`` leaves out the
    per-position lists. A ``heads:P1;P2;...`` spec adds ``heads``: each head's own figures (a list of
    dicts, as the CLI). ``matrix=True`` (n <= 2**15) adds the n x n uint32 matrix ``matrix[i-1, j-1] =
    d(i, j)`` as an attribute (not in to_dict(); the CLI writes it to a file). Positions are 1-indexed.
    Releases the GIL while it computes. A ``stack:P1,P2,...`` spec gives the CLI's stack fields
    (``depth``, ``by_depth``, ``profile``, with source=j ``distances``: lists, None = unreachable); it takes
    source and summary only.
    """
    pattern = _args.spec(pattern)
    n = _args.count(n, "n", optional=True)
    source = None if source is None else _args.position(source, "source")
    target = None if target is None else _args.position(target, "target")
    counts, all_pairs, summary, matrix = (_args.flag(v, k) for v, k in ((counts, "counts"), (all_pairs, "all_pairs"),
                                                                         (summary, "summary"), (matrix, "matrix")))
    method = _args.text(method, "method")
    threads, mem_limit = _args.threads(threads), _args.mem_limit(mem_limit)
    if _stack.is_stack(pattern):
        return _stack.distances(pattern, n, source=source, summary=summary, threads=threads,
                                mem_limit=mem_limit,
                                refused=[("target", target is not None), ("counts", counts),
                                         ("all_pairs", all_pairs), ("matrix", matrix),
                                         ("method", method != "auto")])
    fields, extra, to_json = _core._distances(pattern, n, source, target, counts, all_pairs, summary, matrix,
                                              method, threads, mem_limit)
    return Result("distances", fields, extra, to_json)


def path_lengths(patterns, sweep, *, all_pairs=False, threads=0, mem_limit=None, progress=None):
    """The path-length table over a sweep of n (``mixgraph distances -p ... --sweep``).

    patterns: one spec or a list of specs (not mtx:, whose n is fixed). sweep: the CLI's text, 'LO..HI'
    (every power of two between, plus LO and HI) or a list '1000,3000'. Returns a Result whose ``sweep``
    field is a list with one entry per pattern: ``rows`` (n, diameter, copy_distance = delta(n) or
    max_j d(j + n, j) on 2n tokens, None when some copy is impossible; mean_distance, max_delta,
    unreachable_pairs, source_of_figures) and ``growth`` (the fitted class among O(1), O(log n),
    O(sqrt n), O(n) with its relative residual, for diameter, copy distance and mean distance).
    Translation-invariant patterns: O(n) per row from the profile; others all-pairs (up to n = 2**14
    unless all_pairs=True). Releases the GIL while it computes. progress: a callable progress(stage, done,
    total) called after each row (done of total = patterns x sweep points), or True (tqdm). Ctrl-C raises
    KeyboardInterrupt within a second and the table stops at its next row.
    """
    patterns, sweep = _args.specs(patterns), _args.text(sweep, "sweep")
    all_pairs, threads = _args.flag(all_pairs, "all_pairs"), _args.threads(threads)
    mem_limit, progress = _args.mem_limit(mem_limit), _args.progress(progress)
    cb, bar = _progress(progress, "distances")
    try:
        return Result("distances", *_core._path_lengths(patterns, sweep, all_pairs, threads, mem_limit, cb))
    finally:
        if bar is not None:
            bar.close()


def congestion(pattern, N=None, *, routing=None, lp=False, seed=1, paths=False, mem_limit=None):
    """The copy task of length N (the pattern on 2N tokens): routings, loads and certified bounds.

    Input i (1..N) must reach output i+N; a routing picks one path per input and its congestion is the
    largest number of paths through one position. Returns a Result with the fields of
    ``mixgraph congestion --format json``: ``copy_distance`` (max_i d(i+N, i)), ``lower_bounds`` keyed by
    certificate (``prop47``: ceil(sum_i (d_i + 1) / 2N); ``cut``: ceil(N / kappa) by max-flow; ``lp``: the
    LP relaxation certified through its dual (``lp=True``, GLPK); ``ip``: the exact integer optimum for
    tiny N) with ``lower_bound_notes``, ``lower_bound`` / ``lower_bound_name`` (the best),
    ``prop48_bound``, ``upper_bound`` (best checked routing), ``gap``, ``optimal`` and ``routings`` (one
    dict per checked routing, with ``loads``: paths through each of the 2N positions, a uint32 array).
    routing: None (every routing that fits the size), 'shift', 'random', 'minmax' or 'all'. paths=True
    adds ``paths``: {routing name: list of N uint32 arrays of 1-indexed positions} (not in to_dict()).
    pattern: a spec string or a Pattern (its spec is used on 2N tokens). N may be None for mtx: specs
    (n / 2). Cost: the routings dominate (random: one BFS per input; minmax: capped rip-up rounds). A
    ``stack:P1,P2,...`` spec is the copy task across the layers (the CLI's fields plus ``depth`` and
    ``layers``; lp=True gives the LP and integer bounds on the stacked graph; paths is not taken).
    """
    pattern, N = _args.spec(pattern), _args.count(N, "N", optional=True)
    routing = _args.text(routing, "routing", optional=True)
    lp, paths, seed = _args.flag(lp, "lp"), _args.flag(paths, "paths"), _args.seed(seed)
    mem_limit = _args.mem_limit(mem_limit)
    if _stack.is_stack(pattern):
        return _stack.congestion(pattern, N, routing=routing, lp=lp, seed=seed, mem_limit=mem_limit,
                                 refused=[("paths", paths)])
    return Result("congestion", *_core._congestion(pattern, N, routing, lp, seed, paths, mem_limit))


def rank(pattern, n=None, *, method="both", cuts=None, seed=1, tol=0.0, dyadic=False, mem_limit=None,
         progress=None):
    """Cut ranks r(K) = rank M[K+1..n, 1..K] of M = (I - B)^{-1} A (``mixgraph rank``).

    M uses seeded random weights (file values for mtx:). method: 'both' (numeric and Menger max-flow; the
    numeric ranks are exact for seeded weights, for mtx: file weights dense up to n = 1024 and sketched
    above), 'exact' (ranks over the prime field GF(2^61 - 1) with generic weights: the rank for almost every
    real weight, with ``failure_probability_bound`` the probability bound of an unlucky draw; not for mtx: files),
    'dense', 'sketch' or 'flow'. cuts: None (every cut up to
    n = 1024, 64 spaced cuts above), 'all', a count of evenly spaced cuts, or a list of cuts K (cut K
    separates positions 1..K from K+1..n). Returns a Result with the fields of ``mixgraph rank --format
    json``: ``cuts``, ``cut_rank_numeric`` and ``cut_rank_flow`` (uint32 arrays parallel to cuts, None when
    not computed), ``cache_at_cut`` (|C_K|), ``max_cut_rank``, ``agree``, ``cache_bound``, ``contrast``
    (the +cache variant or base on the same cuts, by flow), ``heads`` (a ``heads:P1;P2;...`` spec: each head's
    flow ranks and the numeric ranks of the sum of the heads), ... Cost: dense O(n^2) memory and
    O(sum_K (n-K) K r(K)) time; flow O(nnz) per Dinic phase. Releases the GIL while it computes; Ctrl-C
    raises KeyboardInterrupt within a second (the work stops too: inside an exact, dense or sketched cut,
    else at its next cut or stage). progress: a
    callable progress(stage, done, total) called as each stage starts ('cut ranks', 'dyadic blocks' with
    dyadic=True, 'contrast'; done counts the stages) and after each cut ('cut ranks: exact', ': dense',
    ': sketch', then 'cut ranks: flow'; done counts the cuts of both loops, total = cuts x loops), or True
    (tqdm). A ``stack:P1,P2,...`` spec gives the cut ranks of the product of the layers' operators, with
    the CLI's stack fields (``numeric``, ``flow``, ``layers``, ...; method 'both', 'exact', 'dense' or
    'flow', 'both' taking the exact rank where every layer is seeded and n <= 1024; no dyadic).
    """
    pattern, n, method = _args.spec(pattern), _args.count(n, "n", optional=True), _args.text(method, "method")
    cuts = _args.cuts(cuts)
    seed, tol, dyadic = _args.seed(seed), _args.real(tol, "tol", 0.0, 1.0), _args.flag(dyadic, "dyadic")
    mem_limit, progress = _args.mem_limit(mem_limit), _args.progress(progress)
    if _stack.is_stack(pattern):
        return _stack.rank(pattern, n, method=method, cuts=cuts, seed=seed, tol=tol, mem_limit=mem_limit,
                           progress=progress, refused=[("dyadic", dyadic)])
    cb, bar = _progress(progress, "rank")
    try:
        return Result("rank", *_core._cut_ranks(pattern, n, method, cuts, seed, tol, dyadic, mem_limit, cb))
    finally:
        if bar is not None:
            bar.close()


def solve(pattern, X, *, heads=1, seed=1, threads=0, out=None, info=False, mem_limit=None, progress=None,
          gates=None, weights_a=None, weights_b=None, input_gates=None, attn_q=None, attn_k=None,
          attn_kernel="softmax"):
    """Y = (I - B)^{-1} A X on the CPU, the mixer itself (``mixgraph solve``).

    pattern: a Pattern (or a spec string for mtx: files). X: float32 or float64, C-contiguous, n x d (or
    length n), read in place without a copy: a numpy array, a PyTorch CPU tensor or any object with
    ``__dlpack__`` (DLPack) or the buffer protocol. Y comes back as the same kind of array as X (a numpy
    array for numpy and buffer inputs; a torch tensor for a torch tensor: made with ``torch.empty_like(X)``
    and written in place), or ``out`` (same dtype and shape, C-contiguous, not overlapping X, any of those
    kinds) written in place. A CUDA tensor is solved on its own device by the GPU solver (X and Y stay there,
    Y a CUDA tensor of X's kind, ordered on torch's current stream; seconds is the kernel's time) and raises
    GpuRequired where no GPU is usable; X is never copied to the host. Weights are the CLI's: head h (columns
    h*d/heads .. (h+1)*d/heads - 1) uses random_weights(seed + h), with ||(I - B)^{-1}||_inf <= 10
    (``Pattern.weights(seed)`` gives the same A and B as scipy matrices). O(d (nnz_A + nnz_B)) work,
    OpenMP over column tiles (threads=0: all cores), the same bits for any thread count. Releases the
    GIL; Ctrl-C raises KeyboardInterrupt within a second and stops the kernel (it looks at a cancel flag
    every 4096 rows of each column tile); its Y is dropped and an ``out`` given is left part-written.
    progress: a callable progress(stage, done, total) (stages 'weights' (the plan), 'solve'), or True
    (tqdm). On the host the seeded weights are made by the kernel where it uses them (no per-nonzero
    array: the solve adds Y and O(threads x tile) to the memory of X), and the structure is planned once
    by a ``Mixer`` kept in a cache of the 8 most recently used ones, keyed by (pattern spec, n, heads,
    dtype, device): a repeated call pays only the kernel (``clear_mixer_cache()`` frees them,
    ``mixer_cache_info()`` counts them); on the GPU the device keeps the seeded weights of
    translation-invariant patterns (weights_cached in info). info=True returns (Y, {kernel, threads,
    seconds, weights_cached, mixer_cached, input, ...}); seconds is the kernel's time; weights_cached (host:
    = mixer_cached) says that nothing was built before the kernel.
    gates / input_gates with X a CUDA tensor: per-channel gates for first-order patterns (``ssm``), CUDA
    tensors of X's dtype and shape (n, d) on X's device, read in place by the kernel (never copied), as the
    CLI's ``--gates`` / ``--input-gates`` files: y[i, c] = gates[i, c] * y[i-1, c] + input_gates[i, c] *
    X[i, c] (gates[0] is not used; input_gates default 1, so gates alone give h_t = g_t h_{t-1} + x_t as
    HGRN-style scans compute it; without gates B stays seeded). Every column becomes its own head (heads
    left out or d). The same keywords with X on the host take host arrays and give the same mixer.

    The user's weights, as the CLI's ``solve`` options of the same names (``--weights-a``, ``--weights-b``,
    ``--gates``, ``--input-gates``, ``--attn-q``, ``--attn-k``, ``--attn-kernel``; layouts in
    docs/formats.md, "Weight files"), for X on the host: each a .npy path (str or os.PathLike) or a 2-D
    array. weights_a / weights_b: (heads, K) one coefficient per offset (translation-invariant patterns,
    offsets ascending, A's starting with 0) or (heads, nnz) per position (the reads in CSR order: reader i
    ascending, read j ascending); the other matrix stays seeded. gates / input_gates (ssm): (n, d), every
    column its own head, y[i, c] = gates[i, c] y[i-1, c] + input_gates[i, c] X[i, c] (input_gates default
    1). attn_q / attn_k: n x (heads r) queries and keys, A the kernel ('softmax' or 'linear')
    renormalised over each row's reads, B seeded or weights_b. float32 / float64 C-contiguous arrays
    (numpy, or DLPack / buffer objects) are read in place; other numpy arrays and lists are converted to
    float64 first (complex, object or text values and arrays that are not 2-D
    raise UsageError), and attn_q / attn_k are copied. Either precision with either X; values are converted to
    X's precision as the CLI does. Bad shapes or values raise UsageError / InputError with the CLI's
    messages. The weights are not cached on the Pattern. A CUDA X takes only ``gates`` and ``input_gates``
    (CUDA tensors, above).
    """
    pattern = _args.spec(pattern)
    heads, seed, threads = _args.integer(heads, "heads", 1, 2**31 - 1), _args.seed(seed), _args.threads(threads)
    info, mem_limit, progress = _args.flag(info, "info"), _args.mem_limit(mem_limit), _args.progress(progress)
    attn_kernel = _args.text(attn_kernel, "attn_kernel")
    if X is None or isinstance(X, (str, bytes, numbers.Number)):
        raise ArgumentTypeError("X must be an array (numpy, torch or any DLPack / buffer object), not "
                                f"{type(X).__name__}")
    if _stack.is_stack(pattern):
        raise UsageError(f"pattern '{pattern}': a stack of layers is not a single-layer pattern; solve runs "
                         "one mixer (mixgraph.stack, distances, rank and congestion take stacks)")
    if out is None and not isinstance(X, _np.ndarray) and hasattr(X, "__dlpack__"):
        out = _like(X)
    w = [_weight_arg(v, name) for v, name in ((gates, "gates"), (weights_a, "weights_a"), (weights_b, "weights_b"),
                                              (input_gates, "input_gates"), (attn_q, "attn_q"), (attn_k, "attn_k"))]
    cb, bar = _progress(progress, "solve")
    try:
        y, meta = _core._solve(pattern, X, heads, seed, threads, out, mem_limit, cb, *w, attn_kernel)
    finally:
        if bar is not None:
            bar.close()
    return (y, meta) if info else y


def _weight_arg(v, name):
    """A weight keyword for _core: None, a path as str, or an array read in place (float32 / float64
    C-contiguous numpy, or a DLPack / buffer object as given); anything else as a float64 numpy copy.
    Values that are not real numbers (complex, object, text) and arrays that are not 2-D raise UsageError,
    never a silent cast."""
    import os

    if v is None:
        return None
    if isinstance(v, (str, bytes, os.PathLike)):
        return _args.path(v, name)
    if (hasattr(v, "__dlpack__") and not isinstance(v, _np.ndarray)) or isinstance(v, memoryview):
        return v
    if not isinstance(v, _np.ndarray):
        try:
            v = _np.asarray(v)
        except (TypeError, ValueError) as e:  # ragged nested lists and the like
            raise UsageError(f"{name} is not an array of numbers ({e})") from None
    if v.dtype.kind not in "fiub":
        raise UsageError(f"{name}: dtype {v.dtype} is not supported; give real values (float32 or float64; "
                         "integers are converted)")
    if v.ndim != 2:
        layout = "n x (heads r)" if name in ("attn_q", "attn_k") else "(the layouts of the CLI's .npy weight files)"
        raise UsageError(f"{name} must be a 2-D array {layout}; got shape {v.shape}")
    if v.dtype in (_np.float32, _np.float64) and v.flags.c_contiguous:
        return v
    return _np.ascontiguousarray(v, dtype=v.dtype if v.dtype == _np.float32 else _np.float64)


def _like(X):
    """An uninitialised array of X's kind, dtype, shape and device (torch.empty_like, cupy.empty_like, ...);
    None (Y as numpy) when X's library has no empty_like. Only for float inputs of the right shape: bad
    ones are refused by the solve itself with the usual message."""
    import sys

    lib = sys.modules.get(type(X).__module__.split(".")[0])
    make = getattr(lib, "empty_like", None)
    if make is None or getattr(X, "ndim", None) not in (1, 2):
        return None
    try:
        return make(X)
    except Exception:  # noqa: BLE001 - the solve reports what is wrong with X
        return None


def _csr_to_scipy(c, n, ones):
    import scipy.sparse

    data = _np.ones(c["idx"].size) if ones or c["val"].size == 0 else c["val"]
    return scipy.sparse.csr_matrix((data, c["idx"], c["ptr"]), shape=(n, n))


def _weights(self, seed=1):
    """(A, B) as scipy.sparse CSR matrices (0-indexed n x n, row i = reader) with the seeded weights the
    solver uses for one head (random_weights(seed); file values for mtx:). Needs scipy. O(n + nnz)."""
    w = self._weights(seed)
    return _csr_to_scipy(w["A"], self.n, False), _csr_to_scipy(w["B"], self.n, False)


def _to_scipy(self):
    """(A, B) as scipy.sparse CSR pattern matrices (0-indexed n x n, entries 1.0; row i = reader, column j
    = the position it reads). Needs scipy (ImportError otherwise). O(n + nnz) memory."""
    w = self._weights(1)
    return _csr_to_scipy(w["A"], self.n, True), _csr_to_scipy(w["B"], self.n, True)


def _to_networkx(self):
    """The communication graph G as a networkx.DiGraph on nodes 1..n: an edge j -> i when position i reads
    j through B (A's own reads: reads(i)). Needs networkx (ImportError otherwise). O(n + nnz(B)) Python
    objects: keep n small."""
    import networkx

    g = networkx.DiGraph()
    g.add_nodes_from(range(1, self.n + 1))
    for i in range(1, self.n + 1):
        b, _ = self.reads(i)
        g.add_edges_from((int(j), i) for j in b)
    return g


def _pattern_to_pandas(self):
    """Per position (``position`` 1..n): ``decode_cost``, ``cache_size`` and, for +cache patterns,
    ``kept_set_size``, as a pandas DataFrame (the CLI's ``pattern --profile --format csv``). Needs pandas."""
    import pandas as pd

    cols = {"position": _np.arange(1, self.n + 1), "decode_cost": self.decode_cost(),
            "cache_size": self.cache_sizes()}
    if self.kept_set_sizes() is not None:
        cols["kept_set_size"] = self.kept_set_sizes()
    return pd.DataFrame(cols)


import numbers  # noqa: E402

import numpy as _np  # noqa: E402

Pattern.weights = _weights
Pattern.to_scipy = _to_scipy
Pattern.to_networkx = _to_networkx
Pattern.to_pandas = _pattern_to_pandas
