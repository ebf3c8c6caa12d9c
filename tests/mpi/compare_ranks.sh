#!/usr/bin/env bash
# Runs one mixgraph command alone and under `mpirun -np K`, in every --format, and fails unless the outputs
# are identical byte for byte (after lines of timing fields: JSON keys naming seconds, verify's "time" lines).
# Usage: compare_ranks.sh MIXGRAPH MPIEXEC K WORKDIR -- ARGS...   (ARGS without --format)
set -euo pipefail
bin=$1 mpiexec=$2 k=$3 work=$4
shift 4
[ "${1:-}" = "--" ] && shift
rm -rf "$work" && mkdir -p "$work"
strip_timings() { sed -E -e '/"[A-Za-z_]*(seconds|elapsed|wall_ms|time_s)[A-Za-z_]*":/d' -e '/^  time +[0-9.e+-]+ s$/d' "$1"; }
for fmt in table csv json; do
  "$bin" "$@" --format "$fmt" >"$work/one.$fmt"
  "$mpiexec" --allow-run-as-root --oversubscribe -np "$k" "$bin" "$@" --format "$fmt" >"$work/np$k.$fmt" \
    2>"$work/np$k.$fmt.err" || {
    echo "FAIL: mpirun -np $k exited with $? ($fmt)"
    cat "$work/np$k.$fmt.err"
    exit 1
  }
  if ! cmp -s <(strip_timings "$work/one.$fmt") <(strip_timings "$work/np$k.$fmt"); then
    echo "FAIL: --format $fmt differs between 1 process and $k ranks: $*"
    diff <(strip_timings "$work/one.$fmt") <(strip_timings "$work/np$k.$fmt") | head -20
    exit 1
  fi
  [ -s "$work/one.$fmt" ] || { echo "FAIL: empty output ($fmt)"; exit 1; }
  echo "ok: --format $fmt identical on $k ranks ($(wc -c <"$work/one.$fmt") bytes)"
done
