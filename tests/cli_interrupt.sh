#!/usr/bin/env bash
# Interrupted and concurrent runs: `report` and `solve` killed by SIGINT and SIGKILL at several points.
# After each kill the output is either the old one or a whole new one (never a mix), and after one re-run
# no temporary file or staging directory is left.
# Usage: tests/cli_interrupt.sh path/to/mixgraph      (run by ctest as cli_interrupt)
set -u
set -m # job control: background runs get SIGINT like a foreground run (not ignored as in plain scripts)
M=$(realpath "$1")
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

# One run's whole report: report.json lists exactly the files present, and its n is one of the runs'.
check_report() {
  /usr/bin/python3 - "$1" "$2" <<'PY' || fail "$3: $1 is not one run's whole report"
import json, os, sys
d, ns = sys.argv[1], {int(x) for x in sys.argv[2].split(',')}
m = json.load(open(os.path.join(d, 'report.json')))
listed = set(m['files'])
present = {os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs}
assert listed == present, (sorted(listed ^ present))
assert m['parameters']['n'] in ns, m['parameters']['n']
PY
}
no_leftovers() {
  local left
  left=$(find . -name '.*.tmp.*' -o -name '.*.staging.*' | head -5)
  [[ -z $left ]] || fail "$1: left behind: $left"
}

"$M" report --n 16 --pattern pow2 --out R >/dev/null 2>&1 || fail "first report"
check_report R 16 "first report"
for sig in INT KILL; do
  for delay in 0.2 0.6 1.2 2.5; do
    "$M" report --n 1024 --pattern pow2 --pattern sq1 --force --out R >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    check_report R 16,1024 "report killed by SIG$sig after ${delay}s"
    [[ $sig == INT ]] && { left=$(find . -name '.*.tmp.*' | head -3); [[ -z $left ]] || fail "SIGINT left $left"; }
    "$M" report --n 16 --pattern pow2 --force --out R >/dev/null 2>&1 || fail "re-run after SIG$sig"
    check_report R 16 "re-run after SIG$sig"
    no_leftovers "re-run after report killed by SIG$sig after ${delay}s"
  done
done

# Two concurrent reports into the same new directory: one wins whole, the other fails or also writes whole.
"$M" report --n 256 --pattern pow2 --out C >/dev/null 2>&1 &
a=$!
"$M" report --n 128 --pattern pow2 --out C >/dev/null 2>&1 &
b=$!
wait $a
wait $b
check_report C 256,128 "concurrent reports"
no_leftovers "concurrent reports"

# solve -o over an existing file: the old bytes or a whole new .npy, never a partial one.
"$M" solve -p pow2 -n 16 --random 2 -o y.npy >/dev/null 2>&1 || fail "first solve"
old=$(md5sum <y.npy)
for sig in INT KILL; do
  for delay in 0.1 0.4 1.0; do
    "$M" solve -p dense -n 6000 --random 64 --reps 5 -o y.npy >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    size=$(stat -c %s y.npy)
    if [[ $(md5sum <y.npy) != "$old" && $size != $((128 + 6000 * 64 * 4)) ]]; then
      fail "solve killed by SIG$sig after ${delay}s left a partial y.npy ($size bytes)"
    fi
    "$M" solve -p pow2 -n 16 --random 2 -o y.npy >/dev/null 2>&1 || fail "solve re-run"
    old=$(md5sum <y.npy)
    no_leftovers "solve re-run after SIG$sig"
  done
done

# Two concurrent solves to one output: a whole file from one of them.
"$M" solve -p pow2 -n 4096 --random 8 --seed 1 -o z.npy >/dev/null 2>&1 &
a=$!
"$M" solve -p pow2 -n 4096 --random 8 --seed 2 -o z.npy >/dev/null 2>&1 &
b=$!
wait $a
wait $b
"$M" solve -p pow2 -n 4096 --random 8 --seed 1 -o z1.npy >/dev/null 2>&1
"$M" solve -p pow2 -n 4096 --random 8 --seed 2 -o z2.npy >/dev/null 2>&1
cmp -s z.npy z1.npy || cmp -s z.npy z2.npy || fail "concurrent solves mixed their outputs"
no_leftovers "concurrent solves"

echo "$fails failure(s)"
[[ $fails == 0 ]]
