#!/usr/bin/env bash
# `mixgraph report` alone and under `mpirun -np K`: the two report folders must hold the same files, and
# every file but report.ipynb must be identical after the timings: the "seconds" JSON keys and the
# "seconds" columns of the CSV and Markdown tables (report.md). Figures byte for byte.
# Usage: compare_report.sh MIXGRAPH MPIEXEC K WORKDIR -- ARGS...   (ARGS without --out)
set -euo pipefail
bin=$1 mpiexec=$2 k=$3 work=$4
shift 4
[ "${1:-}" = "--" ] && shift
rm -rf "$work" && mkdir -p "$work/one" "$work/np$k"
(cd "$work/one" && "$bin" "$@" --out rep >out.txt 2>err.txt)
(cd "$work/np$k" && "$mpiexec" --allow-run-as-root --oversubscribe -np "$k" "$bin" "$@" --out rep >out.txt \
  2>err.txt) || { cat "$work/np$k/err.txt"; echo "FAIL: mpirun -np $k exited with an error"; exit 1; }
# under several ranks the sections must really be spread (rank 0 names the shards on stderr)
if [ "$k" -gt 1 ] && ! grep -q "^\[report sections\] [0-9]* shards: 0 from the checkpoint, [0-9]* to compute on $k ranks" \
  "$work/np$k/err.txt"; then
  cat "$work/np$k/err.txt"
  echo "FAIL: the report's sections were not split over $k ranks"
  exit 1
fi
/usr/bin/python3 - "$work/one/rep" "$work/np$k/rep" <<'PY'
import csv, io, json, os, re, sys
a, b = sys.argv[1], sys.argv[2]
def files(d):
    return sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)
fa, fb = files(a), files(b)
if fa != fb:
    sys.exit(f"FAIL: the folders hold other files: {sorted(set(fa) ^ set(fb))}")
def strip_json(v):
    if isinstance(v, dict):
        return {k: strip_json(x) for k, x in v.items() if "seconds" not in k}
    if isinstance(v, list):
        return [strip_json(x) for x in v]
    return v
def strip_csv(text):
    rows = list(csv.reader(io.StringIO(text)))
    keep = [i for i, h in enumerate(rows[0]) if "seconds" not in h] if rows else []
    return [[r[i] for i in keep if i < len(r)] for r in rows]
def strip_md(text):
    # the Markdown tables' "seconds" columns (cells split on '|' not escaped as '\\|')
    out, drop = [], None
    for line in text.splitlines():
        if not line.startswith("|"):
            drop = None
            out.append(line)
            continue
        cells = re.split(r"(?<!\\)\|", line)
        if drop is None:
            drop = {i for i, c in enumerate(cells) if "seconds" in c}
        out.append("|".join(c for i, c in enumerate(cells) if i not in drop))
    return out
compared = 0
for f in fa:
    if f == "report.ipynb":
        continue
    pa, pb = os.path.join(a, f), os.path.join(b, f)
    da, db = open(pa, "rb").read(), open(pb, "rb").read()
    if f.endswith(".json"):
        same = strip_json(json.loads(da)) == strip_json(json.loads(db))
    elif f == "report.md":
        same = strip_md(da.decode()) == strip_md(db.decode())
    elif f.endswith(".csv"):
        same = strip_csv(da.decode()) == strip_csv(db.decode())
    else:
        same = da == db
    if not same:
        sys.exit(f"FAIL: {f} differs between one process and the MPI run")
    compared += 1
if compared < 5:
    sys.exit(f"FAIL: only {compared} files compared")
print(f"ok: {compared} files identical after timings ({len(fa)} in the report)")
PY
