#!/usr/bin/env bash
# A checkpoint folder is never trusted blindly: a shard whose bytes changed after it was written (one
# flipped bit, a payload of the wrong shape, another shard's payload with a matching digest, a shard of an
# older format, a truncated file) or that is not a regular file (a FIFO, a symbolic link to /dev/zero or to
# a file outside the folder) is computed again with a note on stderr, and the run prints exactly what a run
# without a checkpoint prints. An empty --checkpoint is a usage error.
# Usage: checkpoint_tamper.sh MIXGRAPH MPIEXEC|none K WORKDIR -- ARGS...
#   ARGS: a sharded command with at least 2 shards (the checkpoint is added here); --format json is added.
#   MPIEXEC none: one process without mpirun (K must be 1).
set -euo pipefail
bin=$1 mpiexec=$2 k=$3 work=$4
shift 4
[ "${1:-}" = "--" ] && shift
rm -rf "$work" && mkdir -p "$work"
ck="$work/ck"
launch() {
  if [ "$mpiexec" = none ]; then
    timeout -k 5 120 "$bin" "$@"
  else
    timeout -k 5 120 "$mpiexec" --allow-run-as-root --oversubscribe -np "$k" "$bin" "$@"
  fi
}
fail() { echo "FAIL: $*"; exit 1; }
# compares outputs after lines of timing fields ("seconds" of congestion rows and claims)
same() { cmp -s <(sed -E '/"[A-Za-z_]*seconds[A-Za-z_]*":/d' "$1") <(sed -E '/"[A-Za-z_]*seconds[A-Za-z_]*":/d' "$2"); }

# the parts of a shard file: its five header lines, its payload, "\nend\n"
header_bytes() { head -n 5 "$1" | wc -c; }
payload_bytes() { awk 'NR == 4 { print $2; exit }' "$1"; }
# FNV-1a 64 of the bytes on stdin, as 16 hex digits (bash arithmetic wraps modulo 2^64 like the C++)
fnv1a() {
  local h=-3750763034362895579 c # 14695981039346656037 as a signed 64-bit value
  for c in $(od -An -v -tu1); do h=$(((h ^ c) * 1099511628211)); done
  printf '%016x' "$h"
}
# writes shard file $1 (index $2) with payload file $3, header lines 1-3 from the file as it is, and a
# matching length and digest: a shard as a writer of this format would have written it
forge() {
  local file=$1 i=$2 payload=$3 fp digest
  fp=$(awk 'NR == 2 { print $2; exit }' "$file")
  digest=$({ printf '%s\n%s\n' "$fp" "$i"; cat "$payload"; } | fnv1a)
  { head -n 3 "$file"; echo "bytes $(wc -c <"$payload")"; echo "digest $digest"; cat "$payload"; printf '\nend\n'; } >"$file.new"
  mv "$file.new" "$file"
}
extract_payload() { tail -c +"$(($(header_bytes "$1") + 1))" "$1" | head -c "$(payload_bytes "$1")"; }

"$bin" "$@" --format json >"$work/ref.json"
launch "$@" --format json --checkpoint "$ck" >"$work/first.json" 2>"$work/first.err"
same "$work/ref.json" "$work/first.json" || fail "the checkpointed run differs from the plain one"
total=$(awk '/^shards /{print $2}' "$ck/mixgraph-checkpoint.txt")
[ "$total" -ge 2 ] || fail "this test needs at least 2 shards (got $total)"
shard="$ck/shard-000001.bin"
[ -f "$shard" ] || fail "no $shard"
cp "$shard" "$work/good.bin"
extract_payload "$ck/shard-000000.bin" >"$work/payload0"

# runs the job on the tampered folder: the note must name shard 1 and the reason, exactly one shard is
# computed again, the output is the plain run's, and shard 1 is a valid regular file again
run_case() {
  local name=$1 reason=$2
  launch "${cmd[@]}" --format json --checkpoint "$ck" >"$work/$name.json" 2>"$work/$name.err" ||
    { cat "$work/$name.err"; fail "$name: the run failed"; }
  grep -q "note: shard 1 in the checkpoint folder '$ck' is not used (.*$reason" "$work/$name.err" ||
    { cat "$work/$name.err"; fail "$name: no note naming shard 1 and '$reason'"; }
  grep -q "$total shards: $((total - 1)) from the checkpoint, 1 to compute" "$work/$name.err" ||
    { cat "$work/$name.err"; fail "$name: not exactly one shard computed again"; }
  ! grep -qi "internal error" "$work/$name.err" || fail "$name: an internal error"
  same "$work/ref.json" "$work/$name.json" || fail "$name: the output differs from a run without a checkpoint"
  [ -f "$shard" ] && [ ! -L "$shard" ] || fail "$name: shard 1 was not rewritten as a regular file"
  [ "$(head -n 1 "$shard")" = "mixgraph-shard 2" ] || fail "$name: shard 1 was not rewritten in the current format"
  echo "ok: $name"
}
cmd=("$@")

# 1. one bit flipped in the middle of the payload
off=$(($(header_bytes "$shard") + $(payload_bytes "$shard") / 2))
byte=$(od -An -tu1 -j "$off" -N1 "$shard" | tr -d ' ')
printf "\\$(printf %o $((byte ^ 1)))" | dd of="$shard" bs=1 seek="$off" conv=notrunc status=none
run_case bitflip "its content does not match its digest"

# 2. a valid JSON payload of the wrong shape, the header's length fixed but not the digest
printf '{"rank":[1,2,3]}' >"$work/wrong"
{ head -n 3 "$shard"; echo "bytes $(wc -c <"$work/wrong")"; sed -n 5p "$shard"; cat "$work/wrong"; printf '\nend\n'; } >"$work/t"
mv "$work/t" "$shard"
run_case wrong_json "its content does not match its digest"

# 3. the same with a matching digest: the content check refuses it
forge "$shard" 1 "$work/wrong"
run_case wrong_json_digest "its content does not parse"

# 4. shard 0's payload under shard 1's name, with a matching digest (the sources, cuts or rows it covers)
forge "$shard" 1 "$work/payload0"
run_case other_shard "its content does not parse"

# 5. an older shard format (no digest)
sed -i '1s/.*/mixgraph-shard 1/' "$shard"
run_case old_format "written in an older shard format"

# 6. truncated
head -c "$(($(wc -c <"$shard") - 9))" "$shard" >"$work/t" && mv "$work/t" "$shard"
run_case truncated "its length does not match its header"

# 7. a FIFO in the shard's place (reading it would block)
rm -f "$shard" && mkfifo "$shard"
run_case fifo "not a regular file"

# 8. a symbolic link to /dev/zero (reading it would never end)
rm -f "$shard" && ln -s /dev/zero "$shard"
run_case dev_zero "a symbolic link"

# 8b. a character device (/dev/zero's numbers) in the shard's place: needs root to create (mknod)
if [ "$(id -u)" = 0 ] && rm -f "$shard" && mknod "$shard" c 1 5 2>/dev/null; then
  run_case device "not a regular file"
else
  echo "skipped: device (creating a device file needs root)"
fi

# 9. a symbolic link to a valid shard outside the folder: not read, and the file it names is not written
cp "$work/good.bin" "$work/outside.bin"
cp "$work/outside.bin" "$work/outside.ref"
rm -f "$shard" && ln -s "$work/outside.bin" "$shard"
run_case link_out "a symbolic link"
cmp -s "$work/outside.bin" "$work/outside.ref" || fail "link_out: the file outside the folder was written"

# 10. the folder as it is now is complete: nothing computed, same output
launch "${cmd[@]}" --format json --checkpoint "$ck" >"$work/again.json" 2>"$work/again.err"
grep -q "$total shards: $total from the checkpoint, 0 to compute" "$work/again.err" || fail "the repaired folder was not reused"
! grep -q "note:" "$work/again.err" || fail "a note on a valid folder"
same "$work/ref.json" "$work/again.json" || fail "the output from the repaired folder differs"

# 11. an empty --checkpoint is a usage error, not "no checkpoint"
set +e
launch "${cmd[@]}" --format json --checkpoint '' >"$work/empty.json" 2>"$work/empty.err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "--checkpoint '' gave exit $rc, not 2"
grep -q -- "--checkpoint" "$work/empty.err" && grep -q "empty" "$work/empty.err" || { cat "$work/empty.err"; fail "--checkpoint '': no clear message"; }
[ ! -s "$work/empty.json" ] || fail "--checkpoint '' printed a result"
echo "ok: every tampered shard was computed again with a note, and the output is the plain run's"
