"""mixgraph.experiments.run: every (task, pattern, seed) trained and evaluated, then the table."""

import dataclasses
import os
import re
import signal
import threading
from typing import Callable, Dict, Iterable, Optional, Sequence, Union

from .. import Pattern, UsageError
from . import results as res
from .tasks import Task, make_task
from .train import Interrupted, Settings, resolve_device, train_one


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
        stop: Optional[Callable[[], bool]] = None) -> res.Results:
    """Train every pattern on every task from every seed, evaluate on held-out sequences, and put the
    accuracies beside the patterns' graph quantities at each task's length.

    patterns: spec strings (the CLI's grammar). tasks: names ('copy', 'recall', 'multihop') or Task
    objects; task_params: {name: {parameter: value}} for named tasks. out: a folder for the checkpoints (one
    per pattern, task and seed: a rerun resumes or reuses them) and results.json, table.csv, runs.csv and
    correlations.csv; None keeps nothing on disk. device: 'auto' (CUDA when mixgraph.torch.mix runs there,
    else CPU), 'cpu', 'cuda'. progress: progress(stage, step, steps, info) after each training step.
    graph: the graph quantities (mixgraph.gallery with ``cuts`` cuts) and the correlations: ``"layer"`` (or
    True) of one layer of each pattern, ``"model"`` of ``settings.layers`` layers of it in sequence (the
    model's mixers, ``stack:P;P;...``), None or False for none. stop:
    asked after each step (default: a first Ctrl-C, in the main thread); when it says True the current run
    writes its checkpoint and ``Interrupted`` (a KeyboardInterrupt) is raised. Returns a Results."""
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
    dev = resolve_device(device)
    runs = []
    with _CtrlC() as ctrl_c:
        asked = stop if stop is not None else (lambda: ctrl_c.asked)
        for t in task_list:
            for s in specs:
                for seed in seeds:
                    ck = checkpoint_path(out, s, t, seed) if out else None
                    r = train_one(s, t, seed, settings, device=dev, checkpoint=ck, progress=progress, stop=asked)
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


__all__ = ["run", "checkpoint_path", "Interrupted"]
