#!/usr/bin/env bash
# Hostile input through the CLI: for each case, the exit code, the first stderr line (a mixgraph message,
# never a raw C++ library text), a time limit (no hangs) and no file left behind in the working folder.
# Usage: tests/cli_bad_input.sh path/to/mixgraph      (run by ctest as cli_bad_input)
set -u
M=$(realpath "$1")
W=$(mktemp -d)
ERR=$(mktemp)
trap 'rm -rf "$W" "$ERR"' EXIT
cd "$W" || exit 1
fails=0
py=/usr/bin/python3

# expect RC REGEX -- ARGS...: runs mixgraph ARGS (20 s limit) and checks the exit code and stderr's first line.
expect() {
  local rc_want=$1 re=$2
  shift 3
  local before after rc first
  before=$(ls -A | sort)
  timeout 20 "$M" "$@" >/dev/null 2>"$ERR"
  rc=$?
  first=$(head -n 1 "$ERR")
  after=$(ls -A | sort)
  if [[ $rc != "$rc_want" ]]; then
    echo "FAIL (exit $rc, want $rc_want): mixgraph $* -> $first"
    fails=$((fails + 1))
  elif ! [[ $first =~ $re ]]; then
    echo "FAIL (stderr): mixgraph $* -> '$first' does not match /$re/"
    fails=$((fails + 1))
  elif grep -qE 'stoull|stoi|substr|basic_string|vector::|std::|Success$|what\(\)' "$ERR"; then
    echo "FAIL (raw library text): mixgraph $* -> $(cat "$ERR")"
    fails=$((fails + 1))
  elif [[ $before != "$after" ]]; then
    echo "FAIL (files left): mixgraph $* -> $(comm -13 <(echo "$before") <(echo "$after") | tr '\n' ' ')"
    fails=$((fails + 1))
  else
    echo "ok   (exit $rc): mixgraph $*"
  fi
}
E='^mixgraph: error: '

# --- files: rows x cols that wrap in 64 bits, counts the file cannot hold, specials ----------------------------
printf '%%%%MatrixMarket matrix array real general\n4294967297 4294967297\n1\n2\n' >wrap.mtx
printf '%%%%MatrixMarket matrix array real general\n0-4' >neg.mtx # found by fuzz_dense: looped 2^64 times
printf '%%%%MatrixMarket matrix coordinate real general\n4294967296 4294967297 1\n1 1 1\n' >wrapc.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n3 2 1000000000\n1 1 1\n' >many.mtx
printf '%%%%MatrixMarket matrix coordinate pattern general\n4000000000 4000000000 7999999998000000000\n' >ent.mtx
printf '%%%%MatrixMarket matrix coordinate pattern general\n400000000 400000000 0\n' >big0.mtx
printf '%%%%MatrixMarket matrix array real general\n100000 100000\n1\n' >ssm.mtx
printf '%%%%MatrixMarket matrix coordinate real general\n3000 3000 0\n' >ssm0.mtx
$py - <<'EOF'
import struct
def npy(name, shape):
    h = ("{'descr': '<f8', 'fortran_order': False, 'shape': %s, }" % shape).encode()
    open(name, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h)
npy('huge.npy', '(99999999999999999999999, 3)')
npy('noshape.npy', '')
npy('wrap.npy', '(4294967296, 4294967296)')
npy('big.npy', '(100000000, 100)')
EOF
mkfifo fifo.npy fifo.mtx
mkdir dir.npy

expect 3 "$E.*wrap.mtx.*announces" -- solve -p pow2 -i wrap.mtx
expect 3 "$E.*neg.mtx: malformed size line" -- solve -p pow2 -i neg.mtx
expect 1 "$E.*reading .*wrapc.mtx.*refused before allocating" -- solve -p pow2 -i wrapc.mtx --mem-limit 1G
expect 3 "$E.*many.mtx.*announces 1000000000 entries" -- solve -p pow2 -i many.mtx
expect 3 "$E.*ent.mtx.*announces" -- pattern -p mtx:ent.mtx
expect 1 "$E.*big0.mtx.*--mem-limit" -- pattern -p mtx:big0.mtx --mem-limit 100M
expect 3 "$E.*huge.npy.*malformed .npy shape" -- solve -p pow2 -i huge.npy
expect 3 "$E.*noshape.npy.*malformed .npy shape" -- solve -p pow2 -i noshape.npy
expect 3 "$E.*wrap.npy.*does not match shape" -- solve -p pow2 -i wrap.npy
expect 3 "$E.*big.npy.*does not match shape" -- solve -p pow2 -i big.npy
expect 3 "$E.*fifo.npy.*not a regular file" -- solve -p pow2 -i fifo.npy
expect 3 "$E.*fifo.mtx.*not a regular file" -- pattern -p mtx:fifo.mtx
expect 3 "$E.*dir.npy.*is a directory" -- solve -p pow2 -i dir.npy
expect 3 "$E.*/dev/zero.*not a regular file" -- pattern -p mtx:/dev/zero
expect 3 "$E.*missing.npy.*No such file" -- solve -p pow2 -i missing.npy
expect 3 "$E.*ssm.mtx.*announces" -- rank ssm -n 8 --matrices ssm.mtx,ssm.mtx,ssm.mtx
expect 1 "$E.*ssm0.mtx.*--mem-limit" -- rank ssm -n 8 --matrices ssm0.mtx,ssm0.mtx,ssm0.mtx --mem-limit 10M

# --- numbers: exponents without loops, 64-bit overflow, bounds of every option ------------------------------
expect 2 "$E--n: .* is too large" -- solve -p pow2 --random 4 -n '2^99999999999999'
expect 0 '^$' -- solve -p pow2 --random 4 -n '1^99999999999999'
expect 2 "$E--n: .* is too large" -- solve -p pow2 --random 4 -n '10^20'
expect 2 "$E--n: .* is too large" -- solve -p pow2 --random 4 -n '9e19'
expect 2 "$E.*memory size .* too large" -- solve -p pow2 --random 4 -n 64 --mem-limit 1e30T
expect 2 "$E.*memory size .* less than one byte" -- solve -p pow2 --random 4 -n 64 --mem-limit 0.1
expect 2 "$E--threads must be between 0" -- solve -p pow2 --random 4 -n 64 --threads 100000
expect 2 "$E--threads must be between 0" -- pattern -p pow2 -n 64 --threads -1
expect 2 "$E--reps must be between 1 and 1000" -- solve -p pow2 --random 4 -n 64 --reps 2000000000
expect 2 "$E--n must be <= 2\^28" -- rank loglinear --T '2^40'
expect 2 "$E--numeric-limit must be <= 4096" -- rank loglinear --T 8 --numeric-limit 100000
expect 2 "$E--n-max must be between 2 and 2\^24" -- verify --n-max '2^40'
expect 2 "$E--dyadic needs the dense operator" -- rank -p dense -n '2^20' --dyadic

# --- memory: estimates in checked arithmetic, refused before allocating ------------------------------------
expect 1 "$E.*refused before allocating" -- pattern -p dense+cache -n 4000000000 --mem-limit 1G
expect 1 "$E.*refused before allocating" -- solve -p pow2 --random '2^40' -n '2^30' --mem-limit 1G
expect 1 "$E.*refused before allocating" -- solve -p pow2 --random '2^62' -n '2^30'

# --- outputs: special files are written into, not replaced; directories refused --------------------------
mkfifo pipe.npy
cat pipe.npy >got.bin &
timeout 20 "$M" solve -p pow2 --random 2 -n 16 -o pipe.npy >/dev/null 2>&1
wait
if [[ -p pipe.npy ]] && head -c 6 got.bin | grep -q NUMPY; then echo "ok   a FIFO target is written into, not replaced"; else
  echo "FAIL: pipe.npy was replaced or its reader got no .npy"
  fails=$((fails + 1))
fi
rm -f pipe.npy got.bin
mkfifo lonely.npy
expect 1 "$E.*lonely.npy.*FIFO without a reader" -- solve -p pow2 --random 2 -n 16 -o lonely.npy
rm -f lonely.npy
mkdir out.npy
expect 1 "$E.*out.npy.*is a directory" -- solve -p pow2 --random 2 -n 16 -o out.npy
rmdir out.npy
echo "x" >keep.npy
chmod 640 keep.npy
timeout 20 "$M" solve -p pow2 --random 2 -n 16 -o keep.npy >/dev/null 2>&1
if [[ $(stat -c %a keep.npy) == 640 ]]; then echo "ok   replaced file keeps mode 640"; else
  echo "FAIL: mode of keep.npy became $(stat -c %a keep.npy)"
  fails=$((fails + 1))
fi
ln -s keep.npy link.npy
timeout 20 "$M" solve -p pow2 --random 2 -n 16 -o link.npy >/dev/null 2>&1
if [[ -L link.npy ]]; then echo "ok   a symlinked target stays a symlink"; else
  echo "FAIL: link.npy was replaced"
  fails=$((fails + 1))
fi
if ls -A | grep -q '\.tmp\.'; then
  echo "FAIL: temporary files left: $(ls -A | grep '\.tmp\.')"
  fails=$((fails + 1))
fi

echo "$fails failure(s)"
[[ $fails == 0 ]]
