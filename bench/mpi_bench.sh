#!/usr/bin/env bash
# Ranks against one rank under mpirun (figures for docs/benchmarks.md's MPI table and docs/scaling.md):
#   bench/mpi_bench.sh [BUILD_DIR] [REPEATS]
# BUILD_DIR (default build) holds tools/mixgraph built with MIXGRAPH_MPI=ON. Runs, REPEATS times each (default
# 2), with --threads 1 and a fresh --checkpoint folder (whose shard files record each shard's seconds):
#   1. distances --all-pairs of pow2+cache at n = 2^16 (--summary): 1 vs 2 ranks, and the per-shard CPU
#      seconds against the cost model n - s0 + 64 (least-squares slope through 0 and R^2);
#   2. a congestion sweep of rows of similar size (4 patterns x N = 1024, 2048): 1 vs 2 ranks;
#   3. report (3 patterns, n = 512): 1 vs 2 ranks, each section's seconds against its modelled cost.
# Prints the load average before and after each run: on a shared machine the wall times are only
# comparable when it is below the number of cores. Speedup = wall(1 rank) / wall(2 ranks), efficiency =
# speedup / 2; "busiest rank" = the largest sum of shard seconds over the ranks.
set -euo pipefail
build=${1:-build}
reps=${2:-2}
cli="$(cd "$build" && pwd)/tools/mixgraph"
[ -x "$cli" ] || { echo "no $cli: build with -DMIXGRAPH_MPI=ON first" >&2; exit 2; }
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "# mixgraph MPI benchmark $(date -u +%FT%TZ)"
echo "commit $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
  "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB," \
  "$(mpirun --version 2>&1 | head -1)"
echo "load average at start: $(load)"

# run NAME K ARGS...: one timed run under mpirun -np K with a fresh checkpoint folder; prints the wall time
# and the shard seconds per rank, keeps the output in $tmp/NAME.out
run() {
  local name=$1 k=$2
  shift 2
  local ck="$tmp/$name.ck" l0 t0 t1
  rm -rf "$ck"
  l0=$(load)
  t0=$(date +%s.%N)
  "${mpirun[@]}" -np "$k" "$cli" "$@" --threads 1 --checkpoint "$ck" --format json >"$tmp/$name.out" \
    2>"$tmp/$name.err"
  t1=$(date +%s.%N)
  "$py" - "$ck" "$name" "$k" "$t0" "$t1" "$l0" "$(load)" "$tmp/$name.busy" <<'PY'
import glob, re, sys
ck, name, k, t0, t1, l0, l1, busy = sys.argv[1:]
per = {}
for f in glob.glob(ck + "/shard-*.bin"):
    head = open(f, "rb").read(400).decode(errors="replace").splitlines()[2]
    m = re.match(r"shard (\d+) rank (\d+) of (\d+) seconds (\S+)", head)
    per[int(m.group(2))] = per.get(int(m.group(2)), 0.0) + float(m.group(4))
ranks = " / ".join(f"{per.get(r, 0):.2f}" for r in range(int(k)))
print(f"{name}: {k} rank(s) wall {float(t1) - float(t0):.2f} s; shard seconds per rank {ranks}; "
      f"busiest {max(per.values()):.2f} s; load {l0} -> {l1}")
open(busy, "w").write(str(max(per.values())))
PY
  awk "BEGIN{printf \"%.3f\", $t1 - $t0}" >"$tmp/$name.wall"
}
same() { cmp -s <(sed -E '/seconds/d' "$tmp/$1.out") <(sed -E '/seconds/d' "$tmp/$2.out") && echo same || echo DIFFERENT; }
speedup() {  # wall, and from the busiest rank's shard seconds (the wall time on free cores)
  "$py" -c "import sys; a, b, c, d = map(float, sys.argv[1:]); print(f'wall speedup {a / b:.2f}x, efficiency {50 * a / b:.0f}%; busiest-rank speedup {c / d:.2f}x, efficiency {50 * c / d:.0f}%')" \
    "$(cat "$tmp/$1.wall")" "$(cat "$tmp/$2.wall")" "$(cat "$tmp/$1.busy")" "$(cat "$tmp/$2.busy")"
}

echo
echo "## 1. distances --all-pairs -p pow2+cache -n 2^16 --summary"
ap=(distances --pattern pow2+cache --n 2^16 --all-pairs --summary)
for r in $(seq "$reps"); do
  run "ap1_$r" 1 "${ap[@]}"
  run "ap2_$r" 2 "${ap[@]}"
  echo "  repeat $r: 2 ranks vs 1: $(speedup "ap1_$r" "ap2_$r"); output $(same "ap1_$r" "ap2_$r")"
done
echo "per-shard CPU seconds against the model n - s0 + 64 (one shard per 256-source block, 1 rank, repeat 1):"
"$py" - "$tmp/ap1_1.ck" <<'PY'
import glob, re, sys
n, xs, ys = 1 << 16, [], []
for f in sorted(glob.glob(sys.argv[1] + "/shard-*.bin")):
    i, s = re.match(r"shard (\d+) rank \d+ of \d+ seconds (\S+)", open(f, "rb").read(400).decode(errors="replace").splitlines()[2]).groups()
    xs.append(n - 256 * int(i) + 64); ys.append(float(s))
a = sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)
my = sum(ys) / len(ys)
r2 = 1 - sum((y - a * x) ** 2 for x, y in zip(xs, ys)) / sum((y - my) ** 2 for y in ys)
print(f"  {len(ys)} shards, {sum(ys):.2f} s in all; first {ys[0] * 1e3:.1f} ms, last {ys[-1] * 1e3:.2f} ms; "
      f"t = {a:.3g} s x (n - s0 + 64), R^2 = {r2:.3f}")
PY

echo
echo "## 2. congestion -p pow2+cache -p sq1+cache -p fib+cache -p pow2 --sweep 1024..2048 (8 rows)"
cg=(congestion -p pow2+cache -p sq1+cache -p fib+cache -p pow2 --sweep 1024..2048)
for r in $(seq "$reps"); do
  run "cg1_$r" 1 "${cg[@]}"
  run "cg2_$r" 2 "${cg[@]}"
  echo "  repeat $r: 2 ranks vs 1: $(speedup "cg1_$r" "cg2_$r"); output $(same "cg1_$r" "cg2_$r")"
done

echo
echo "## 3. report -p pow2 -p sq1+cache -p pow2+cache --n 512 (sections as shards)"
for k in 1 2; do
  l0=$(load)
  t0=$(date +%s.%N)
  (cd "$tmp" && "${mpirun[@]}" -np "$k" "$cli" report -p pow2 -p sq1+cache -p pow2+cache --n 512 --threads 1 \
    --out "rep$k" --format json >"rep$k.out" 2>"rep$k.err")
  t1=$(date +%s.%N)
  echo "report: $k rank(s) wall $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s; load $l0 -> $(load)"
done
"$py" - "$tmp/rep1/report.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("  seconds per section (1 rank): " +
      ", ".join(f"{s['id']} {s['seconds']:.2f}" for s in j["sections"] if "seconds" in s))
PY
echo
echo "load average at end: $(load)"
