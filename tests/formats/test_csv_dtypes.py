"""Every CSV mixgraph writes reads with pandas.read_csv (no options) into the dtypes docs/formats.md
documents: counts int64, reals and distances with `inf` float64, booleans bool, text object; a column with
a missing (empty) cell is float64 (numbers) or object (text). The report's tables are checked against their
JSON siblings too: a column of JSON integers must not read as text, and so on."""

import io
import json
import os

import numpy as np
import pytest

from cases import capped_report_args, report_args, write_mtx, write_qk

pd = pytest.importorskip("pandas", reason="python3-pandas is not installed")

I, F, B, S = "int", "float", "bool", "str"
# distances: int64, or float64 where some are unreachable (inf); I? / S? / D?: may be empty (missing, not
# computed)
D, Iq, Sq, Dq = "dist", "int?", "str?", "dist?"

SUMMARY = {"pattern": S, "n": I, "family": S, "a_mode": S, "num_offsets": I, "nnz_A": I, "nnz_B": I,
           "total_decode_cost": I, "max_decode_cost": I, "max_cache": I, "max_cache_position": I}
CONGESTION = {"pattern": S, "N": I, "copy_distance": D, "prop47": Iq, "cut": Iq, "lp": Iq, "ip": Iq, "lower": Iq,
              "prop48": Iq, "shift": Iq, "random": Iq, "minmax": Iq, "exact": Iq, "upper": Iq, "gap": Iq,
              "status": S}


GALLERY = {"pattern": S, "total_decode_cost": I, "max_decode_cost": I, "max_cache": I, "diameter": I,
           "copy_distance": D, "copy_congestion_lower": Iq, "copy_congestion_upper": Iq, "max_cut_rank": I,
           "unreachable_pairs": I, "copy_possible": B}
SOLVE = {"pattern": S, "n": I, "d": I, "heads": I, "d_h": I, "precision": S, "family": S, "structure": S, "nnz_A": I,
         "nnz_B": I, "backend": S, "backend_reason": S, "kernel": S, "threads": I, "reps": I, "seconds": F,
         "kernel_seconds": F, "solve_seconds": F, "total_seconds": F, "weights": S, "input": Sq, "output": Sq,
         "checksum": F}
VALIDATE = {"check": S, "result": S, "detail": S, "passed": B}


def csv_cases(tmp):
    mtx = write_mtx(os.path.join(tmp, "B.mtx"), 24)
    q, k = write_qk(tmp)
    q2, k2 = write_qk(tmp, 32, 4)
    prof = {"position": I, "decode_cost": I, "cache_size": I}
    sweep = {"n": I, "nnz_A": I, "nnz_B": I, "total_decode_cost": I, "max_decode_cost": I, "max_cache": I}
    return [
        (["pattern", "-p", "pow2", "-n", "64"], SUMMARY),
        (["pattern", "-p", "pow2+cache", "-n", "64"], {**SUMMARY, "max_kept_set": I}),
        (["pattern", "-p", "pow2+cache", "-n", "64", "--profile"], {**prof, "kept_set_size": I}),
        (["pattern", "-p", "mtx:" + mtx, "--profile"], prof),
        (["pattern", "-p", "pow2", "-n", "64", "--rows", "3,64"], {"position": I, "reads_through_B": S}),
        (["pattern", "-p", "sq1", "--sweep", "64..512"], sweep),
        (["distances", "-p", "pow2", "-n", "64"], {"m": I, "delta": D}),
        (["distances", "-p", "offsets:3,5", "-n", "20"], {"m": I, "delta": F}),
        (["distances", "-p", "pow2", "-n", "64", "--summary"],
         {"pattern": S, "n": I, "diameter": I, "mean_distance": F, "reachable_pairs": I, "unreachable_pairs": I,
          "figures_from": S}),
        (["distances", "-p", "fib+cache", "-n", "64", "--source", "3", "--target", "60", "--counts"],
         {"position": I, "dist_from_source": F, "path_count": I, "dist_to_target": F}),
        (["distances", "-p", "pow2", "-p", "fib+cache", "--sweep", "64..256"],
         {"pattern": S, "n": I, "diameter": I, "copy_distance": D, "mean_distance": F, "max_delta": Iq,
          "unreachable_pairs": I}),
        (["congestion", "-p", "pow2", "-n", "16"], CONGESTION),
        (["congestion", "-p", "pow2", "-p", "local:3", "--sweep", "4..16"], CONGESTION),
        (["congestion", "-p", "heads:window:4;pow2", "-N", "16"], {**CONGESTION, "head": S}),
        (["congestion", "-p", "heads:pow2;local:3", "-N", "8", "--lp"], {**CONGESTION, "head": S}),
        (["congestion", "-p", "pow2", "-N", "8", "--lp"], CONGESTION),
        (["congestion", "-p", "local:3", "-N", "4", "--lp"], CONGESTION),
        (["rank", "-p", "pow2", "-n", "32"],
         {"cut": I, "rank_numeric": I, "rank_flow": I, "cache_at_cut": I, "bound": I, "agree": B}),
        (["pattern", "-p", "stack:ssm,window:4", "-n", "32"],
         {"layer": S, "pattern": S, "nnz_A": I, "nnz_B": I, "total_decode_cost": I, "max_decode_cost": I,
          "max_cache": I}),
        (["pattern", "-p", "stack:ssm,window:4", "-n", "32", "--profile"], prof),
        (["distances", "-p", "stack:(local:2)*3", "-n", "24"],
         {"depth": I, "layer": S, "diameter": I, "mean_distance": F, "reachable_pairs": I, "unreachable_pairs": I}),
        (["distances", "-p", "stack:block:4,ssm", "-n", "24", "--source", "3"], {"position": I, "distance": D}),
        (["rank", "-p", "stack:ssm,window:2", "-n", "16"], {"cut": I, "rank_numeric": I, "rank_flow": I}),
        (["congestion", "-p", "stack:ssm,window:4", "-N", "12"],
         {"pattern": S, "N": I, "depth": I, "copy_distance": D, "prop47": Iq, "cut": Iq, "lp": Iq, "ip": Iq,
          "lower": Iq, "prop48": Iq, "shift": Iq, "random": Iq, "minmax": Iq, "exact": Iq, "upper": Iq, "gap": Iq,
          "status": S}),
        (["rank", "-p", "stack:ssm,ssm", "-n", "16", "--method", "flow"], {"cut": I, "rank_numeric": Iq, "rank_flow": I}),
        (["rank", "-p", "stack:pow2,window:2", "-n", "16", "--method", "exact", "--cuts", "3"],
         {"cut": I, "rank_numeric": I, "rank_flow": Iq}),
        (["congestion", "-p", "stack:ssm,window:2", "-N", "6", "--lp"],
         {"pattern": S, "N": I, "depth": I, "copy_distance": D, "prop47": Iq, "cut": Iq, "lp": Iq, "ip": Iq,
          "lower": Iq, "prop48": Iq, "shift": Iq, "random": Iq, "minmax": Iq, "exact": Iq, "upper": Iq, "gap": Iq,
          "status": S}),
        (["rank", "-p", "pow2", "-n", "32", "--method", "flow"],
         {"cut": I, "rank_numeric": Iq, "rank_flow": I, "cache_at_cut": I, "bound": I, "agree": B}),
        (["rank", "-p", "attention", "-n", "32", "--attn-q", write_qk(tmp)[0], "--attn-k", write_qk(tmp)[1]],
         {"cut": I, "rank_numeric": I, "rank_flow": I, "cache_at_cut": I, "bound": I, "agree": B,
          "rank_generic_exact": I}),
        (["rank", "loglinear", "--T", "64"], {"buckets": I, "queries": I}),
        (["rank", "ssm", "-n", "16", "--state", "4", "--p", "2", "--d", "2"], {"H": I, "residual": F, "sigma_H": F}),
        (["rank", "heads", "--pattern", "pow2", "--pattern", "sq1", "-n", "16", "--p", "2", "--d", "2"],
         {"H": I, "residual": F, "sigma_H": F}),
        (["solve", "-p", "pow2", "-n", "64", "--random", "4", "--backend", "cpu"], SOLVE),
        (["solve", "-p", "attention", "-n", "32", "--random", "4", "--backend", "cpu", "--attn-q", q, "--attn-k", k],
         SOLVE),
        (["solve", "-p", "window:3", "-n", "32", "--random", "4", "--heads", "2", "--backend", "cpu", "--attn-q", q2,
          "--attn-k", k2, "--attn-kernel", "linear"], SOLVE),
        (["validate", "-p", "pow2", "-n", "32", "--backend", "cpu"], VALIDATE),
        (["validate", "-p", "attention", "-n", "32", "--backend", "cpu", "--attn-q", q, "--attn-k", k], VALIDATE),
        (["validate", "-p", "window:3", "-n", "32", "--heads", "2", "--backend", "cpu", "--attn-q", q2, "--attn-k", k2,
          "--attn-kernel", "linear"], VALIDATE),
        (["verify", "--n-max", "64", "--claim", "fagnou.prop4.4", "--claim", "fagnou.cor4.9"],
         {"id": S, "status": S, "statement": S, "checked": Sq, "worst": Sq, "counterexample": Sq, "error": Sq,
          "not_applicable": Sq}),
        (["verify", "--n-max", "32", "--claim", "fagnou.prop4.4", "-p", "bigbird:2,1,1", "--claim", "fagnou.cor4.9"],
         {"id": S, "status": S, "statement": S, "checked": Sq, "worst": Sq, "counterexample": Sq, "error": Sq,
          "not_applicable": Sq}),
        (["verify", "--list"], {"id": S, "source": S, "statement": S}),
        (["info"], {"key": S, "value": S}),
        (["gallery", "-n", "32", "--cuts", "4", "-p", "pow2", "-p", "local:3", "-p", "stack:ssm,window:4", "-p",
          "heads:window:4;pow2+cache"], GALLERY),
    ]


def check_column(df, col, kind, where):
    dt = df[col].dtype
    empty = df[col].isna().any()
    if kind == I:
        assert dt == np.int64, (where, col, dt)
    elif kind == F:
        assert dt == np.float64, (where, col, dt)
    elif kind == D:
        assert dt in (np.int64, np.float64), (where, col, dt)
        assert not empty, (where, col, "a distance is a number or inf, never empty")
    elif kind in (Iq, Dq):  # NaN where missing; a distance may also be inf
        assert dt in (np.int64, np.float64), (where, col, dt)
        if dt == np.float64:
            v = df[col].dropna().to_numpy()
            assert np.array_equal(v, np.round(v)), (where, col)
    elif kind == B:
        assert dt == np.bool_, (where, col, dt)
    elif kind in (S, Sq):
        assert dt == object or (kind == Sq and empty and df[col].isna().all()), (where, col, dt)
        if kind == S:
            assert not empty, (where, col, "text column with an empty cell")


def test_every_command_csv(cli, tmp_path):
    for args, dtypes in csv_cases(str(tmp_path)):
        df = pd.read_csv(io.StringIO(cli(args, "csv")))
        assert list(df.columns) == list(dtypes), (args, list(df.columns))
        for col, kind in dtypes.items():
            check_column(df, col, kind, args)


def test_missing_and_boolean_spelling(cli):
    """A missing value is an empty CSV cell (never `-`); booleans are true/false (never yes/no)."""
    text = cli(["congestion", "-p", "pow2", "-p", "local:3", "--sweep", "4..16"], "csv")
    cells = [c for line in text.splitlines()[1:] for c in line.split(",")]
    assert "-" not in cells and "" in cells
    rank = pd.read_csv(io.StringIO(cli(["rank", "-p", "sq1", "-n", "40", "--method", "flow"], "csv")))
    assert rank["rank_numeric"].isna().all() and rank["agree"].all()
    # text tables for people say `-` where a method did not run (a stack's exact rank has no flow column)
    lines = cli(["rank", "-p", "stack:pow2,window:2", "-n", "16", "--method", "exact", "--cuts", "3"], "table")
    rows = [line.split() for line in lines.splitlines()[-3:]]
    assert [r[0] for r in rows] == ["4", "8", "12"] and all(r[2:] == ["-"] for r in rows), lines


# The report's tables: documented kinds of the columns that must be numeric or boolean.
REPORT = {
    "summary": {"n": I, "nnz_A": I, "nnz_B": I, "total_decode_cost": I, "max_decode_cost": I, "max_cache": I,
                "max_cache_position": I, "num_offsets": Iq, "max_kept_set": Iq},
    "sweep": {"n": I, "nnz_B": I, "total_decode_cost": I, "max_decode_cost": I, "max_cache": I},
    "growth": {"pattern": S, "quantity": S, "label": S, "exponent": F, "exponent_lo": F, "exponent_hi": F,
               "decided_class": Sq, "class": S, "relative_residual": F, "runner_up": S, "runner_up_residual": F,
               "ambiguous": B},
    "distances": {"n": I, "diameter": Iq, "diameter_lower_bound": Iq, "mean_distance": F,
                  "reachable_pairs": Iq, "unreachable_pairs": Iq, "copy_distance_n_half": Dq},
    "distance_histogram": {"distance": I, "pairs": I, "fraction": F},
    "congestion": {"N": I, "copy_distance": D, "prop47": Iq, "lower": Iq, "upper": Iq, "gap": Iq, "seconds": F},
    "cut_rank_summary": {"n": I, "cuts": I, "numeric_cuts": I, "max_cut_rank": I, "argmax_cut": I,
                         "max_cache": I, "max_rank_over_cache": F, "numeric_equals_flow": B,
                         "numeric_flow_disagreements": I, "bound_holds": B},
    "cut_ranks": {"K": I, "numeric_rank": Iq, "flow_rank": I, "cache": I, "bound": I, "holds": B},
    "validation": {"n": I, "passed": B},
    "validation_summary": {"n": I, "checks": I, "passed": I, "failed": I, "sources": I, "all_sources": B,
                           "seconds": F},
    "verify": {"seconds": F},
    "stacks": {"pattern": S, "n": I, "depth": I, "total_decode_cost": I, "max_decode_cost": I, "max_cache": I,
               "diameter": Iq, "mean_distance": F, "unreachable_pairs": Iq, "N": Iq, "copy_distance": D, "lower": Iq,
               "upper": Iq, "best_routing": Sq, "max_cut_rank": Iq, "argmax_cut": Iq},
    "stack_layers": {"stack": S, "layer": I, "pattern": S, "nnz_A": I, "nnz_B": I, "total_decode_cost": I,
                     "max_decode_cost": I, "max_cache": I},
    "stack_depth": {"stack": S, "depth": I, "layer_pattern": S, "diameter": I, "mean_distance": F,
                    "reachable_pairs": I, "unreachable_pairs": I},
    "stack_ranks": {"stack": S, "cut": I, "rank_flow": I, "rank_numeric": Iq},
}


def json_kind(values):
    """The dtype pandas must give a CSV column whose JSON cells are `values` (null: missing/unreachable)."""
    real = [v for v in values if v is not None]
    if not real:
        return None
    if all(isinstance(v, bool) for v in real):
        return np.bool_ if len(real) == len(values) else object
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in real):
        ints = all(isinstance(v, int) for v in real)
        return np.int64 if ints and len(real) == len(values) else np.float64
    return object


def check_report_csvs(cli, out, args):
    """Every CSV table of the report in `out` against REPORT and its JSON sibling; the stems checked."""
    cli(args, "json")
    with open(os.path.join(out, "report.json")) as f:
        files = json.load(f)["files"]
    csvs = [f for f in files if f.startswith("tables/") and f.endswith(".csv")]
    checked = set()
    for name in csvs:
        df = pd.read_csv(os.path.join(out, name))
        stem = name[len("tables/"):-len(".csv")]
        for col, kind in REPORT.get(stem, {}).items():
            check_column(df, col, kind, name)
            checked.add(stem)
        sibling = os.path.join(out, "tables", stem + ".json")
        if os.path.exists(sibling):
            with open(sibling) as f:
                t = json.load(f)
            assert list(df.columns) == t["columns"], name
            for col in t["columns"]:
                want = json_kind([r[col] for r in t["rows"]])
                if want is None:
                    continue
                # unreachable: null in JSON, inf in CSV (a float column)
                got = df[col].dtype
                assert got == want or (want == np.int64 and got == np.float64 and np.isinf(df[col]).any()), (
                    name, col, got, want)
        else:  # streamed per-pattern CSVs: every column numeric
            for col in df.columns:
                assert df[col].dtype in (np.int64, np.float64), (name, col, df[col].dtype)
    return checked


def test_report_csvs(cli, tmp_path):
    out = str(tmp_path / "rep")
    checked = check_report_csvs(cli, out, report_args(out))
    assert set(REPORT) - {"verify"} <= checked | {"validation", "validation_summary"}


def test_capped_report_csvs(cli, tmp_path):
    """The capped report (cases.capped_report_args): a sampled diameter, a stack without distances, growth fits
    with an exponent; missing cells stay empty, numbers stay numbers."""
    out = str(tmp_path / "rep")
    checked = check_report_csvs(cli, out, capped_report_args(out))
    assert {"distances", "growth", "stacks"} <= checked
    dist = pd.read_csv(os.path.join(out, "tables", "distances.csv")).set_index("pattern")
    assert dist.loc["sq1+cache", "method"] == "sampled" and dist.loc["sq1+cache", "diameter_lower_bound"] >= 1
    assert np.isnan(dist.loc["sq1+cache", "diameter"]) and np.isnan(dist.loc["local:3", "diameter_lower_bound"])
    growth = pd.read_csv(os.path.join(out, "tables", "growth.csv"))
    assert growth["exponent"].notna().all() and (growth["label"] != "").all()
    stacks = pd.read_csv(os.path.join(out, "tables", "stacks.csv"))
    assert stacks["diameter"].isna().all() and stacks["copy_distance"].notna().all()
