"""The command line of mixgraph.experiments (``python -m mixgraph.experiments``, ``mixgraph experiment``)."""

import argparse
import dataclasses
import json
import sys
import time

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

DESCRIPTION = """\
Train the same small model with the token mixer of each pattern on synthetic tasks, evaluate it on
held-out sequences, and print the accuracy beside the pattern's graph quantities at the task's length
(diameter, copy distance, copy congestion bounds, largest cut rank) with the Spearman rank correlation
per task between accuracy and each quantity.

tasks (docs/experiments.md gives their definitions and defaults):
  copy      N random tokens, a separator, the same tokens again: the output must repeat the string
            (parameters n=64 vocab=16; T = 2n)
  recall    key-value pairs, then keys as queries: the output is each key's value
            (pairs=32 queries=32 vocab=128; T = 2 pairs + queries)
  multihop  chains a -> b -> c written as shuffled pairs, then the chains' first tokens: the output is
            the token reached after `hops` lookups (chains=16 hops=2 vocab=128; T = 2 chains hops + chains)

presets: tiny (attention and local:2 on copying 8 tokens; seconds on a CPU) and paper9 (the nine
structures of the token-mixing paper on the three tasks, two seeds).
"""

EPILOG = """\
examples:
  python -m mixgraph.experiments --preset tiny            (or: mixgraph experiment --preset tiny)
  python -m mixgraph.experiments -p attention -p local:8 -p pow2 --task copy --seeds 1,2 --steps 500
  python -m mixgraph.experiments --preset paper9 --output runs/paper9 --plot runs/paper9/accuracy.png
  python -m mixgraph.experiments --preset paper9 --jobs 6 --output runs/paper9     (six runs at once)
  python -m mixgraph.experiments --task copy --task-param copy.n=32 -p ssm -p window:4

output: the table on stdout (--format table, csv or json); with --output DIR also DIR/results.json
(schema docs/schemas/mixgraph.experiment.schema.json), DIR/table.csv, DIR/runs.csv, DIR/correlations.csv
and one checkpoint per (pattern, task, seed) under DIR/checkpoints: the same command run again resumes
unfinished runs and reuses finished ones. Ctrl-C stops at the end of the current step, writes the
checkpoint and exits with 130 (a second Ctrl-C stops at once).

exit codes: 0 ok; 1 PyTorch missing, a file that cannot be written; 2 a bad option, pattern, task
parameter or setting, or a checkpoint in DIR from other settings; 130 interrupted (checkpoint written).
"""

CLI_PROG = "mixgraph experiment"
# what `mixgraph experiment --help` adds: the option the CLI takes before handing the rest to this module
CLI_EPILOG = """
interpreter (mixgraph experiment only): --python PATH runs this module with the Python 3 at PATH
(default python3; the environment variable MIXGRAPH_PYTHON, an older alias, is read when --python is
not given); exit 1 when it cannot be started.
"""

SETTING_HELP = {
    "d": "model width", "layers": "residual blocks [norm, mixer, norm, MLP]",
    "heads": "mixer heads (per-offset and per-position weights)", "mlp": "MLP hidden width, times d",
    "rho": "initial bound on the mixer's sum of |beta| per row, in [0, 1)", "steps": "optimizer steps per run",
    "batch": "sequences per step", "lr": "AdamW learning rate", "warmup": "linear warm-up steps",
    "weight_decay": "AdamW weight decay", "clip": "gradient-norm clip, 0 for none",
    "eval_sequences": "held-out sequences scored at the end", "checkpoint_every": "steps between checkpoints",
    "threads": "the mixer's OpenMP threads, 0 for all cores (results do not depend on it)",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, as every mixgraph error (argparse would print the usage first)
        print(f"mixgraph: error: {message} (--help lists the options)", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def _parser(defaults, prog: str) -> argparse.ArgumentParser:
    p = _Parser(prog=prog, description=DESCRIPTION, epilog=EPILOG + (CLI_EPILOG if prog == CLI_PROG else ""),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-p", "--pattern", action="append", metavar="SPEC",
                   help="a pattern spec (repeat for several; the CLI's grammar, e.g. attention, local:8, ssm, "
                        "window:8, dense, pow2, pow2+cache, sq1, sq1+cache)")
    p.add_argument("--task", action="append", metavar="TASK",
                   help="copy, recall or multihop (repeat, or separate with commas; default copy)")
    p.add_argument("--task-param", action="append", default=[], metavar="TASK.NAME=VALUE",
                   help="a task parameter, e.g. copy.n=32, recall.pairs=16, multihop.hops=3")
    p.add_argument("--preset", metavar="NAME", help="tiny or paper9: patterns, tasks, seeds and settings; the "
                   "options given override it")
    p.add_argument("--seeds", metavar="LIST", help="seeds, comma separated (default 1,2)")
    g = p.add_argument_group("model and training (the same for every pattern)")
    for f in dataclasses.fields(defaults):
        g.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=None,
                       metavar="INT" if isinstance(f.default, int) else "X",
                       help=f"{SETTING_HELP[f.name]} (default {f.default})")
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                   help="runs trained at once, each in its own process (default 1; the results do not depend "
                        "on it: several small models share a GPU, or the cores)")
    p.add_argument("--device", default="auto", help="auto (CUDA when the mixer runs there, else CPU), cpu or cuda")
    p.add_argument("-o", "--output", "--out", dest="out", metavar="DIR",
                   help="checkpoints and result files (resumable); --out is the same option")
    p.add_argument("--plot", metavar="FILE", help="accuracy against the congestion lower bound (needs matplotlib)")
    p.add_argument("--cuts", type=int, default=16, help="cuts for the largest cut rank (default 16)")
    p.add_argument("--graph", choices=("layer", "model", "none"), default="layer",
                   help="graph quantities of one layer of each pattern (default), of the model's layers in "
                        "sequence (stack:P;P;...), or none")
    p.add_argument("--no-graph", action="store_true", help="the same as --graph none")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table", help="stdout format")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    return p


def _task_params(items, UsageError):
    out = {}
    for it in items:
        head, eq, value = it.partition("=")
        task, dot, name = head.partition(".")
        if not (eq and dot and task and name):
            raise UsageError(f"--task-param {it!r}: expected TASK.NAME=VALUE, e.g. copy.n=32")
        try:
            out.setdefault(task, {})[name] = int(value)
        except ValueError:
            raise UsageError(f"--task-param {it!r}: the value must be an integer") from None
    return out


class _Progress:
    """Progress lines on stderr: the first step, every tenth of a run, and at least every 30 seconds."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.last = time.monotonic()

    def __call__(self, stage, step, steps, info):
        if self.quiet:
            return
        every = max(1, steps // 10)
        now = time.monotonic()
        if step == 1 or step % every == 0 or step == steps or now - self.last >= 30:
            self.last = now
            print(f"{stage}: step {step}/{steps} loss {info['loss']:.4f} ({info['seconds']:.1f} s)",
                  file=sys.stderr, flush=True)


def _print_table(r, fmt):
    from .results import TABLE_COLUMNS, _finite, to_csv

    if fmt == "json":
        print(json.dumps(_finite(r.to_dict()), indent=1))
        return
    if fmt == "csv":
        sys.stdout.write(to_csv(r.table, TABLE_COLUMNS))
        return

    def cell(v):
        if v is None:
            return "-"
        return f"{v:.4f}" if isinstance(v, float) else str(v)

    cols = ("task", "pattern", "n", "seeds", "accuracy_mean", "accuracy_std", "diameter", "copy_distance",
            "copy_congestion_lower", "copy_congestion_upper", "max_cut_rank")
    heads = ("task", "pattern", "n", "seeds", "accuracy", "spread", "diameter", "copy dist", "congestion >=",
             "congestion <=", "max cut rank")
    rows = [[cell(row.get(c)) for c in cols] for row in r.table]
    for row, src in zip(rows, r.table):
        if (src.get("unreachable_pairs") or 0) > 0:
            row[6] = "inf"
    widths = [max(len(h), *(len(x[i]) for x in rows)) for i, h in enumerate(heads)]
    print("  ".join(h.ljust(w) for h, w in zip(heads, widths)).rstrip())
    for row in rows:
        print("  ".join(x.ljust(w) for x, w in zip(row, widths)).rstrip())
    if r.correlations:
        print("\nSpearman rank correlation of accuracy with (per task, over the patterns):")
        for c in r.correlations:
            v = "-" if c["spearman"] is None else f"{c['spearman']:+.3f}"
            print(f"  {c['task']:<9} {c['quantity']:<22} {v}  ({c['patterns']} patterns)")


def main(argv=None, prog: str = "python -m mixgraph.experiments") -> int:
    """Runs the command line on argv (default sys.argv[1:]); returns the exit code."""
    try:
        import torch  # noqa: F401
    except ImportError:
        print("mixgraph: error: experiment needs PyTorch (pip install torch, or Debian's python3-torch)",
              file=sys.stderr)
        return EXIT_FAILED
    from .. import MixgraphError, UsageError
    from .presets import preset
    from .runner import run
    from .train import Interrupted, Settings

    parser = _parser(Settings(), prog)
    args = parser.parse_args(argv)
    try:
        base = preset(args.preset) if args.preset else None
        settings = base.settings if base else Settings()
        over = {f.name: getattr(args, f.name) for f in dataclasses.fields(Settings)
                if getattr(args, f.name) is not None}
        settings = dataclasses.replace(settings, **over).check()
        patterns = args.pattern or (list(base.patterns) if base else None)
        if not patterns:
            raise UsageError("give at least one pattern (-p SPEC) or a preset (--preset tiny)")
        tasks = [t for item in args.task for t in item.split(",") if t] if args.task else \
            (list(base.tasks) if base else ["copy"])
        params = {k: dict(v) for k, v in (base.tasks.items() if base else [])}
        for k, v in _task_params(args.task_param, UsageError).items():
            params.setdefault(k, {}).update(v)
        if args.seeds:
            try:
                seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
            except ValueError:
                raise UsageError(f"--seeds {args.seeds!r}: expected integers separated by commas") from None
        else:
            seeds = list(base.seeds) if base else [1, 2]
        if args.jobs < 1:
            raise UsageError("--jobs must be at least 1")
        if args.cuts < 1:
            raise UsageError("--cuts must be at least 1")
        t0 = time.perf_counter()
        r = run(patterns, tasks, seeds, settings, task_params=params, out=args.out, device=args.device,
                progress=_Progress(args.quiet),
                graph=None if args.no_graph or args.graph == "none" else args.graph, cuts=args.cuts, jobs=args.jobs)
        if args.plot:
            from .plot import accuracy_vs_congestion

            ax = accuracy_vs_congestion(r)
            ax.figure.savefig(args.plot)
        _print_table(r, args.format)
        if not args.quiet:
            print(f"{len(r.runs)} runs in {time.perf_counter() - t0:.1f} s on {r.parameters['device']}",
                  file=sys.stderr)
        return EXIT_OK
    except Interrupted as e:
        print(f"mixgraph: error: interrupted: {e}; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    except UsageError as e:
        print(f"mixgraph: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (MixgraphError, OSError) as e:
        print(f"mixgraph: error: {e}", file=sys.stderr)
        return EXIT_FAILED
