"""mixgraph.experiments.run: every (task, pattern, seed) trained and evaluated, then the table."""

import dataclasses
import os
import re
import signal
import threading
from typing import Callable, Dict, Iterable, Optional, Sequence, Union

import torch

from .. import Pattern, UsageError
from . import results as res
from .tasks import Task, make_task
from .train import Interrupted, Settings, pattern_runs_on, resolve_device, train_one


def checkpoint_path(out: str, spec: str, task: Task, seed: int) -> str:
    """out/checkpoints/<task>/<pattern, file-name safe>/seed<seed>.pt."""
    import hashlib

    safe = re.sub(r"[^A-Za-z0-9._-]", "_", spec)[:80]
    tag = hashlib.sha1(spec.encode()).hexdigest()[:8]
    return os.path.join(out, "checkpoints", task.name, f"{safe}-{tag}", f"seed{seed}.pt")


class _CtrlC:
    """While active (main thread only): the first Ctrl-C asks the runs to stop at the end of the current
    step (checkpoint written); a second one interrupts at once."""

    def __init__(self) -> None:
        self.asked = False
        self._old = None

    def _handler(self, signum, frame):
        self.asked = True
        signal.signal(signal.SIGINT, self._old)

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._old = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc):
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
        return False


def _tasks(tasks, task_params) -> list:
    out = []
    for t in [tasks] if isinstance(tasks, (str, Task)) else list(tasks):
        if isinstance(t, Task):
            out.append(t)
        else:
            out.append(make_task(t, **dict((task_params or {}).get(t, {}))))
    if not out:
        raise UsageError("no task given")
    return out


def run(patterns: Union[str, Sequence[str]], tasks: Union[str, Task, Iterable] = ("copy",),
        seeds: Sequence[int] = (1, 2), settings: Settings = Settings(), *,
        task_params: Optional[Dict[str, dict]] = None, out: Optional[str] = None, device="auto",
        progress: Optional[Callable] = None, graph: Union[bool, str] = "layer", cuts: int = 16,
        stop: Optional[Callable[[], bool]] = None, jobs: int = 1) -> res.Results:
    """Train every pattern on every task from every seed, evaluate on held-out sequences, and put the
    accuracies beside the patterns' graph quantities at each task's length.

    patterns: spec strings (the CLI's grammar). tasks: names ('copy', 'recall', 'multihop') or Task
    objects; task_params: {name: {parameter: value}} for named tasks. out: a folder for the checkpoints (one
    per pattern, task and seed: a rerun resumes or reuses them) and results.json, table.csv, runs.csv and
    correlations.csv; None keeps nothing on disk. device: 'auto' (CUDA when mixgraph.torch.mix runs there,
    else CPU; per pattern: one whose mixer does not run on CUDA trains on the CPU, as runs' ``device``
    says), 'cpu', 'cuda' (every pattern there, or an error). progress: progress(stage, step, steps, info) after each training step.
    graph: the graph quantities (mixgraph.gallery with ``cuts`` cuts) and the correlations: ``"layer"`` (or
    True) of one layer of each pattern, ``"model"`` of ``settings.layers`` layers of it in sequence (the
    model's mixers, ``stack:P;P;...``), None or False for none. stop:
    asked after each step (default: a first Ctrl-C, in the main thread); when it says True the current run
    writes its checkpoint and ``Interrupted`` (a KeyboardInterrupt) is raised. jobs: runs trained at once,
    each in its own worker process (several small models share one GPU, or the cores of a CPU); every run is
    a function of its (pattern, task, parameters, seed, settings), so the results are the same bits for any
    jobs. With jobs > 1, progress is called in the workers (it must be picklable: a module-level function or
    object) and the tasks must be named ones (make_task). Returns a Results."""
    specs = [patterns] if isinstance(patterns, str) else list(patterns)
    if not specs:
        raise UsageError("no pattern given")
    seeds = [int(s) for s in ([seeds] if isinstance(seeds, int) else seeds)]
    if not seeds or any(s < 0 for s in seeds):
        raise UsageError("seeds must be one or more integers >= 0")
    settings.check()
    graph = {True: "layer", False: None}.get(graph, graph) if isinstance(graph, bool) else graph
    if graph not in ("layer", "model", None):
        raise UsageError(f"graph must be 'layer', 'model' or None (got {graph!r})")
    depth = settings.layers if graph == "model" else 1
    task_list = _tasks(tasks, task_params)
    for t in task_list:  # every spec at every length before any training: bad input fails at once
        for s in specs:
            Pattern(s, t.length)
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise UsageError(f"jobs must be a positive integer (got {jobs!r})")
    dev = resolve_device(device)
    where = {}  # (spec, T) -> device: under 'auto', the CPU for a pattern whose mixer does not run on CUDA
    for t in task_list:
        for s in specs:
            if (s, t.length) not in where:
                fits = device != "auto" or pattern_runs_on(dev, s, t.length, settings.heads)
                where[(s, t.length)] = dev if fits else torch.device("cpu")
    todo = [(t, s, seed, checkpoint_path(out, s, t, seed) if out else None, where[(s, t.length)])
            for t in task_list for s in specs for seed in seeds]
    with _CtrlC() as ctrl_c:
        asked = stop if stop is not None else (lambda: ctrl_c.asked)
        if jobs == 1 or len(todo) == 1:
            done = [train_one(s, t, seed, settings, device=d, checkpoint=ck, progress=progress, stop=asked)
                    for t, s, seed, ck, d in todo]
        else:
            done = _parallel(todo, settings, progress, asked, jobs)
    runs = []
    for (t, _, _, _, _), r in zip(todo, done):
        r = dict(r, n=t.length)
        runs.append({k: r.get(k) for k in res.RUN_COLUMNS})
    graph_q = {}
    if graph:
        for n in dict.fromkeys(t.length for t in task_list):
            for spec, q in res.graph_quantities(specs, n, cuts, depth).items():
                graph_q[(spec, n)] = q
    table = res.summarize(runs, graph_q)
    corr = res.correlations(table) if graph else []
    params = {"patterns": specs, "tasks": {t.name: dict(t.params, length=t.length) for t in task_list},
              "seeds": seeds, "settings": dataclasses.asdict(settings), "device": str(dev), "cuts": cuts,
              "graph": graph or "none"}
    result = res.Results(runs, table, corr, params)
    if out:
        result.write(out)
    return result


def _worker_init(flag, torch_threads: int) -> None:
    """A worker process: torch's intra-op threads as many as the parent's (CPU kernels may sum in another
    order with another count, and a run must give the bits of a sequential one); Ctrl-C (sent to the whole
    process group by a terminal) leaves the stop to the flag the parent sets, so a run ends at the end of its
    step with its checkpoint written."""
    global _STOP_FLAG
    _STOP_FLAG = flag
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import torch

    torch.set_num_threads(torch_threads)


_STOP_FLAG = None


def _worker_run(name, params, spec, seed, settings, device, ck, progress):
    task = make_task(name, **params)
    return train_one(spec, task, seed, settings, device=device, checkpoint=ck, progress=progress,
                     stop=_STOP_FLAG.is_set)


def _parallel(todo, settings, progress, asked, jobs):
    """Every run of todo in `jobs` spawned worker processes (a CUDA context per process), results in todo's
    order. A stop asked in the parent reaches the workers through a shared flag: the runs in progress write
    their checkpoints and Interrupted is raised once they have."""
    import multiprocessing
    import pickle
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    for t, _, _, _, _ in todo:
        try:
            same = make_task(t.name, **t.params)
        except UsageError:
            same = None
        if same is None or (same.length, same.vocab) != (t.length, t.vocab):
            raise UsageError(f"jobs > 1 takes named tasks only (make_task); task {t.name!r} is not one")
    if progress is not None:
        try:
            pickle.dumps(progress)
        except Exception:
            raise UsageError("with jobs > 1, progress runs in the worker processes and must be picklable "
                             "(a module-level function or object)") from None
    ctx = multiprocessing.get_context("spawn")
    flag = ctx.Event()
    threads = torch.get_num_threads()
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init,
                             initargs=(flag, threads)) as pool:
        futures = [pool.submit(_worker_run, t.name, dict(t.params), s, seed, settings, str(d), ck, progress)
                   for t, s, seed, ck, d in todo]
        pending = set(futures)
        while pending:
            _, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            if not flag.is_set() and asked():
                flag.set()
                for f in pending:
                    f.cancel()  # not started yet: nothing to stop
            if any(f.done() and not f.cancelled() and f.exception() is not None for f in futures):
                flag.set()  # one run failed: stop the others at their next step, then report it
                for f in pending:
                    f.cancel()
    errors = [f.exception() for f in futures if not f.cancelled() and f.exception() is not None]
    stopped = [e for e in errors if isinstance(e, Interrupted)]
    others = [e for e in errors if not isinstance(e, Interrupted)]
    if others:
        raise others[0]
    if stopped or any(f.cancelled() for f in futures):
        raise Interrupted(f"{len(stopped)} runs stopped at the end of a step (checkpoints written), "
                          f"{sum(f.cancelled() for f in futures)} not started") from (stopped[0] if stopped else None)
    return [f.result() for f in futures]


__all__ = ["run", "checkpoint_path", "Interrupted"]
