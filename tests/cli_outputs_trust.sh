#!/usr/bin/env bash
# Outputs that never destroy what they did not create, checks made before any work, and messages that say
# what to do (docs/reliability.md, "Output files", "`report`", "Input files"): a symbolic link given as
# report --out, --out ., a file-size limit (SIGXFSZ) during solve -o and report, an unknown -o extension,
# an empty --checkpoint, a .npy header with a key twice, weight files that are not regular files.
# Usage: tests/cli_outputs_trust.sh path/to/mixgraph      (run by ctest as cli_outputs_trust)
set -u
M=$(realpath "$1")
W=$(mktemp -d)
ERR=$(mktemp)
trap 'rm -rf "$W" "$ERR"' EXIT
cd "$W" || exit 1
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
# expect RC REGEX -- ARGS...: exit code and the first stderr line of mixgraph ARGS (20 s limit)
expect() {
  local rc_want=$1 re=$2
  shift 3
  timeout 20 "$M" "$@" >/dev/null 2>"$ERR"
  local rc=$? first
  # the sanitizer build may end stderr with a leak sanitizer summary ("----" then "Suppressions used:"): not ours
  first=$(sed '/^-\{20,\}$/,$d' "$ERR" | head -n 1)
  if [[ $rc != "$rc_want" ]]; then
    fail "exit $rc, want $rc_want: mixgraph $* -> $first"
  elif ! [[ $first =~ $re ]]; then
    fail "mixgraph $* -> '$first' does not match /$re/"
  else
    echo "ok   (exit $rc): mixgraph $*"
  fi
}
E='^mixgraph: error: '
no_temps() {
  if find . -name '.*.tmp.*' -o -name '.*.staging.*' | grep -q .; then
    fail "$1: temporary files left: $(find . -name '.*.tmp.*' -o -name '.*.staging.*' | tr '\n' ' ')"
  else
    echo "ok   $1: no temporary file left"
  fi
}

# --- report --out through a symbolic link: the report goes into the directory it names, the link stays ---
mkdir target && ln -s target lnk
expect 0 '^$' -- report -p pow2 -n 16 -o lnk --threads 1
[[ -L lnk && $(readlink lnk) == target ]] || fail "report --out lnk replaced the link"
[[ -f target/report.json ]] || fail "report --out lnk wrote no report.json into the link's target"
expect 0 '^$' -- report -p pow2 -n 16 -o lnk --force --threads 1
[[ -L lnk && -f target/report.json ]] || fail "report --out lnk --force replaced the link"
ln -s nowhere dangling
expect 2 "$E--out 'dangling' is a symbolic link to a missing directory" -- report -p pow2 -n 16 -o dangling
[[ -L dangling && ! -e nowhere ]] || fail "report --out dangling changed the link or made its target"
no_temps "report into a link"
# --out . (the current directory), in an empty directory: refused with the reason
mkdir empty
(cd empty && timeout 20 "$M" report -p pow2 -n 16 -o . >/dev/null 2>"$ERR")
rc=$?
if [[ $rc == 2 ]] && grep -q "current directory" "$ERR" && ! grep -q "filled by another run" "$ERR"; then
  echo "ok   (exit 2): report --out . in an empty directory says why"
else
  fail "report --out . -> exit $rc: $(head -n 1 "$ERR")"
fi
[[ -z $(ls -A empty) ]] || fail "report --out . left files: $(ls -A empty)"

# --- a file-size limit: a clear write error, the temporary file removed (SIGXFSZ ignored) ----------------
(ulimit -f 16 && exec timeout 20 "$M" solve -p pow2 -n 4096 --random 8 -o big.npy >/dev/null 2>"$ERR")
rc=$?
if [[ $rc == 1 ]] && grep -q "big.npy.*File too large" "$ERR"; then echo "ok   (exit 1): solve -o under ulimit -f"; else
  fail "solve -o under ulimit -f -> exit $rc: $(head -n 1 "$ERR")"
fi
[[ ! -e big.npy ]] || fail "solve -o under ulimit -f left big.npy"
(ulimit -f 16 && exec timeout 60 "$M" report -p pow2 -n 64 -o rep --threads 1 >/dev/null 2>"$ERR")
rc=$?
if [[ $rc == 1 ]] && grep -q "File too large" "$ERR"; then echo "ok   (exit 1): report under ulimit -f"; else
  fail "report under ulimit -f -> exit $rc: $(head -n 1 "$ERR")"
fi
[[ ! -e rep ]] || fail "report under ulimit -f left rep"
no_temps "writes under ulimit -f"

# --- checks before any work ------------------------------------------------------------------------------
# the extension is refused before the memory check of the solve (which --mem-limit 1M would refuse)
expect 2 "${E}y.bin: unknown file type '.bin'" -- solve -p sq1 -n '2^21' --random 64 -o y.bin --mem-limit 1M
[[ ! -e y.bin ]] || fail "solve -o y.bin wrote y.bin"
for cmd in "distances -p pow2 -n 64 --all-pairs" "rank -p pow2 -n 64" "congestion -p pow2 --sweep 8..16" \
  "pattern -p pow2 --sweep 64..128" "verify --claim fagnou.prop4.2 --n-max 32"; do
  # shellcheck disable=SC2086
  expect 2 "$E--checkpoint: the value is empty" -- $cmd --checkpoint ''
done

# --- messages that name the file and say what to do -----------------------------------------------------
/usr/bin/python3 - <<'EOF'
import struct
def npy(name, header, data=b""):
    h = header.encode()
    open(name, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data)
npy("twoshape.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 1), 'shape': (2, 2), }", bytes(32))
npy("int.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }", bytes(16))
EOF
expect 3 "${E}twoshape.npy: .npy header names 'shape' twice" -- solve -p pow2 -i twoshape.npy
expect 3 "${E}.*int.npy: dtype '<i8' is not supported; save the --weights-b weights as float32" -- solve -p pow2 --random 2 -n 4 --weights-b int.npy
mkfifo wfifo.npy
expect 3 "${E}--weights-b file 'wfifo.npy' is not a regular file" -- solve -p pow2 --random 2 -n 4 --weights-b wfifo.npy
expect 3 "${E}--weights-a file '/dev/zero' is not a regular file" -- rank -p pow2 -n 4 --weights-a /dev/zero
expect 2 "${E}--method exact draws generic weights over a prime field and cannot use the real weights of --weights-a / --weights-b" -- rank -p pow2 -n 4 --weights-b int.npy --method exact

echo "$fails failure(s)"
[[ $fails == 0 ]]
