"""mixgraph.experiments: synthetic tasks trained on mixers of any pattern, beside the graph's predictions.

Needs PyTorch (``import mixgraph`` alone does not). Three seeded tasks (copy, multi-query associative recall,
multi-hop associative recall), one model for every pattern (only the mixer's pattern changes), a trainer
that checkpoints each (pattern, task, seed) and resumes, and a table of held-out accuracy beside the
pattern's diameter, copy distance, congestion bounds and largest cut rank at the same n, with the Spearman
rank correlation per task. docs/experiments.md describes the tasks, the model, the defaults and the output::

    from mixgraph import experiments as ex
    r = ex.run(["attention", "local:2"], "copy", seeds=[1], settings=ex.PRESETS["tiny"].settings,
               task_params={"copy": {"n": 8, "vocab": 4}})
    r.frame("table")

The command line: ``python -m mixgraph.experiments --help`` (also ``mixgraph experiment``).
"""

from .model import MixerModel, weight_kind
from .plot import accuracy_vs_congestion
from .presets import PAPER9, PRESETS, Preset, preset
from .results import SCHEMA, Results, correlations, graph_quantities, spearman, summarize
from .runner import checkpoint_path, run
from .tasks import IGNORE, SEP, TASKS, Batch, Task, make_task
from .train import Interrupted, Settings, build_model, evaluate, resolve_device, train_one

__all__ = ["Batch", "IGNORE", "Interrupted", "MixerModel", "PAPER9", "PRESETS", "Preset", "Results", "SCHEMA", "SEP",
           "Settings", "TASKS", "Task", "accuracy_vs_congestion", "build_model", "checkpoint_path", "correlations",
           "evaluate", "graph_quantities", "make_task", "preset", "resolve_device", "run", "spearman", "summarize",
           "train_one", "weight_kind"]
