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
args=(distances -p mtx:b.mtx --all-pairs --threads 1 --shards 3 --format json)
write_b
"$bin" "${args[@]}" --checkpoint ck >first.json 2>first.err
grep -q "3 shards: 0 from the checkpoint, 3 to compute" first.err || { cat first.err; fail "first run"; }
"$bin" "${args[@]}" --checkpoint ck >again.json 2>again.err
grep -q "3 shards: 3 from the checkpoint, 0 to compute" again.err || { cat again.err; fail "unchanged file not reused"; }
cmp -s first.json again.json || fail "the reused checkpoint gave another output"
# the same file name and size, other contents: read 300 -> 293 becomes 300 -> 292
size0=$(wc -c <b.mtx)
sed -i 's/^300 293$/300 292/' b.mtx
[ "$(wc -c <b.mtx)" = "$size0" ] || fail "the changed file should keep its size"
"$bin" "${args[@]}" >changed_ref.json
! cmp -s first.json changed_ref.json || fail "the change should change the result (else this test shows nothing)"
set +e
"$bin" "${args[@]}" --checkpoint ck >changed.json 2>changed.err
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a checkpoint of the old file contents gave exit $rc, not 2"
grep -q "holds shards of another job" changed.err || { cat changed.err; fail "no clear message"; }
[ ! -s changed.json ] || fail "a refused run printed a result"
# the original contents again: the folder is valid again
write_b
"$bin" "${args[@]}" --checkpoint ck >back.json 2>back.err
grep -q "3 shards: 3 from the checkpoint" back.err || { cat back.err; fail "restored file not reused"; }
cmp -s first.json back.json || fail "the restored file gave another output"
echo "ok: a changed mtx: file invalidates the checkpoint (exit 2), the unchanged one reuses it"
