#!/usr/bin/env bash
# A checkpoint folder belongs to the contents of the job's input files: after an mtx: file changes (same
# name, same size), the old shards must be refused, never merged into a result for the new file.
# Usage: checkpoint_input_change.sh MIXGRAPH WORKDIR
set -euo pipefail
bin=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
cd "$work"
fail() { echo "FAIL: $*"; exit 1; }
# B: a chain i -> i-1 plus reads i -> i-7 (n = 600, three shards of sources)
write_b() {
  { echo '%%MatrixMarket matrix coordinate pattern general'
    echo "600 600 $((599 + 593))"
    for i in $(seq 2 600); do echo "$i $((i - 1))"; done
    for i in $(seq 8 600); do echo "$i $((i - 7))"; done; } >b.mtx
}
# One spec, one checkpoint folder: run, reuse, change the file (refused), restore (reused again).
check_spec() {
  args=(distances -p "$1" --all-pairs --threads 1 --shards 3 --format json "${@:3}")
  write_b
  "$bin" "${args[@]}" --checkpoint "$2" >first.json 2>first.err
  grep -q "3 shards: 0 from the checkpoint, 3 to compute" first.err || { cat first.err; fail "$1: first run"; }
  "$bin" "${args[@]}" --checkpoint "$2" >again.json 2>again.err
  grep -q "3 shards: 3 from the checkpoint, 0 to compute" again.err || { cat again.err; fail "$1: unchanged file not reused"; }
  cmp -s first.json again.json || fail "$1: the reused checkpoint gave another output"
  # the same file name and size, other contents: read 300 -> 293 becomes 300 -> 292
  size0=$(wc -c <b.mtx)
  sed -i 's/^300 293$/300 292/' b.mtx
  [ "$(wc -c <b.mtx)" = "$size0" ] || fail "$1: the changed file should keep its size"
  "$bin" "${args[@]}" >changed_ref.json
  ! cmp -s first.json changed_ref.json || fail "$1: the change should change the result (else this test shows nothing)"
  set +e
  "$bin" "${args[@]}" --checkpoint "$2" >changed.json 2>changed.err
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$1: a checkpoint of the old file contents gave exit $rc, not 2"
  grep -q "holds shards of another job" changed.err || { cat changed.err; fail "$1: no clear message"; }
  [ ! -s changed.json ] || fail "$1: a refused run printed a result"
  # the original contents again: the folder is valid again
  write_b
  "$bin" "${args[@]}" --checkpoint "$2" >back.json 2>back.err
  grep -q "3 shards: 3 from the checkpoint" back.err || { cat back.err; fail "$1: restored file not reused"; }
  cmp -s first.json back.json || fail "$1: the restored file gave another output"
}
check_spec mtx:b.mtx ck
# a union part with a read mark: its file is an input too (the mark is not part of the file name)
check_spec 'mtx:b.mtx@B|window:1@A' ck_marked
# inside heads: (a head that is a marked union part too): every part of the spec is hashed
check_spec 'heads:window:1;mtx:b.mtx' ck_heads -n 600
check_spec 'heads:window:2@A|mtx:b.mtx@B;window:1' ck_heads_marked -n 600
echo "ok: a changed mtx: file (plain, a marked union part, inside heads:) invalidates the checkpoint (exit 2), the unchanged one reuses it"
