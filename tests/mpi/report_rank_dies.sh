#!/usr/bin/env bash
# `mixgraph report` under `mpirun -np K` when one rank dies (SIGKILL after its first section, through the
# test hook MIXGRAPH_FAULT_KILL_RANK): the job must fail, and no report folder (complete-looking or partial)
# may appear at --out; a run without the fault then writes the report.
# Usage: report_rank_dies.sh MIXGRAPH MPIEXEC K WORKDIR -- ARGS...   (ARGS without --out)
set -euo pipefail
bin=$1 mpiexec=$2 k=$3 work=$4
shift 4
[ "${1:-}" = "--" ] && shift
rm -rf "$work" && mkdir -p "$work/tmp"
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
set +e
TMPDIR="$work/tmp" MIXGRAPH_FAULT_KILL_RANK="$((k - 1)):1" timeout -k 5 120 \
  "$mpiexec" --allow-run-as-root --oversubscribe -x TMPDIR -x MIXGRAPH_FAULT_KILL_RANK -np "$k" \
  "$bin" "$@" --out rep >killed.out 2>killed.err
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "the report with a dead rank exited 0"
[ ! -e rep ] || fail "a report folder appeared although a rank died"
! ls -a | grep -q '^\.rep\.staging' || fail "a staging folder was left beside --out"
[ ! -s killed.out ] || fail "the failed job printed a result: $(head -3 killed.out)"
echo "killed run: exit $rc, no report folder"
TMPDIR="$work/tmp" "$mpiexec" --allow-run-as-root --oversubscribe -x TMPDIR -np "$k" "$bin" "$@" --out rep \
  >ok.out 2>ok.err || { cat ok.err; fail "the run without a fault failed"; }
[ -s rep/report.json ] && [ -s rep/report.md ] || fail "the run without a fault wrote no report"
[ -z "$(ls -A tmp)" ] || fail "temporary section folders were left in TMPDIR: $(ls tmp | head -3)"
echo "ok: a dead rank fails the report without a report folder; the re-run writes it"
