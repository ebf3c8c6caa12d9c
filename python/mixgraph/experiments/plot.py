"""Accuracy against a graph quantity, in mixgraph.plot's style: an optional Axes in, the Axes out, no
fonts, sizes or colours set (the property cycle colours the tasks)."""

from typing import Optional

from .results import ranking_value


def accuracy_vs_congestion(results, ax=None, *, quantity: str = "copy_congestion_lower", task: Optional[str] = None,
                           title: Optional[str] = None):
    """Mean accuracy (error bars: min to max over seeds) against ``quantity`` (default the copy task's
    congestion lower bound; any graph column of the table works), one series per task, each point labelled
    with its pattern. Patterns whose quantity is infinite (no copy routing, unreachable pairs) cannot be
    placed on the axis: they are named in the title. results: a Results or its table (list of dicts).
    task: only that task. Returns the Axes."""
    from ..plot import _axes

    table = getattr(results, "table", results)
    rows = [r for r in table if task is None or r["task"] == task]
    ax = _axes(ax)
    left_out = []
    for t in dict.fromkeys(r["task"] for r in rows):
        pts = [(ranking_value(quantity, r), r) for r in rows if r["task"] == t]
        keep = [(x, r) for x, r in pts if x != float("inf")]
        left_out += [r["pattern"] for x, r in pts if x == float("inf")]
        xs = [x for x, _ in keep]
        ys = [r["accuracy_mean"] for _, r in keep]
        err = [[r["accuracy_mean"] - r["accuracy_min"] for _, r in keep],
               [r["accuracy_max"] - r["accuracy_mean"] for _, r in keep]]
        ax.errorbar(xs, ys, yerr=err, fmt="o", capsize=3, label=t)
        for x, r in keep:
            ax.annotate(r["pattern"], (x, r["accuracy_mean"]), textcoords="offset points", xytext=(4, 4))
    ax.set_xlabel(quantity.replace("_", " "))
    ax.set_ylabel("held-out accuracy")
    ax.legend(title="task")
    if title is None:
        title = f"accuracy against {quantity.replace('_', ' ')}"
        if left_out:
            title += f" (not placed, infinite: {', '.join(dict.fromkeys(left_out))})"
    ax.set_title(title)
    return ax
