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
  # the sanitizer build may end stderr with a leak sanitizer summary ("----" then "Suppressions used:"): not ours
  first=$(sed '/^-\{20,\}$/,$d' "$ERR" | head -n 1)
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
npy('lone_l.npy', '(L, 4)')  # the old long suffix alone: no number (once pointer arithmetic below the token)
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
expect 3 "$E.*lone_l.npy.*malformed .npy shape" -- solve -p pow2 -i lone_l.npy
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

# --- explicit rows (sink/global, block, merged unions, CSR rows of offsets) and sweeps: refused at once -----
printf '%%%%MatrixMarket matrix coordinate pattern general\n100000 100000 1\n2 1\n' >u.mtx
expect 1 "$E.*'sink:100000' at n = 100000 \(4999950000 explicit reads\).*--mem-limit" -- pattern -p sink:100000 -n 100000 --mem-limit 1G
expect 1 "$E.*'global:5000' at n = 1048576 .*explicit reads" -- distances -p global:5000 -n '2^20' --mem-limit 1G
expect 1 "$E.*'block:100000' at n = 100000 \(5000050000 explicit reads\)" -- congestion -p block:100000 -N 50000 --mem-limit 1G
expect 1 "$E.*pattern dense\|sink:1 at n = 100000 needs about .*refused before allocating" -- pattern -p 'dense|sink:1' -n 100000 --mem-limit 1G
expect 1 "$E.*'mtx:u.mtx\|dense' at n = 100000 .*explicit reads" -- pattern -p 'mtx:u.mtx|dense' --mem-limit 1G
expect 1 "$E.*'sink:100000'.*explicit reads" -- report -p sink:100000 -n 100000 -o rep --mem-limit 1G
expect 1 "$E.*explicit reads of dense at n = 200000" -- rank -p dense -n 200000 --mem-limit 1G
expect 1 "$E.*explicit reads of dense at n = 200000" -- validate -p dense -n 200000 --mem-limit 1G
expect 2 "$E.*n = 8589934592 is too large" -- pattern -p pow2 --sweep '1..2^33'
expect 2 "$E.*is too large" -- distances -p pow2 --sweep '10..2^40'
expect 2 "$E--sweep: the copy length N = 1099511627776 must be below 2\^31" -- congestion -p pow2 --sweep '1..2^40'
expect 1 "$E.*the sweep's largest n = 268435456.*--mem-limit" -- pattern -p pow2 --sweep '2..2^28' --mem-limit 100M
expect 1 "$E.*the sweep's largest 2N = 8388608.*--mem-limit" -- congestion -p pow2 --sweep '2..2^22' --mem-limit 10M

# --- every command: options, specs, expressions, numbers, .csv/.npy contents, outputs ------------------------
printf 'garbage\n' >bad.mtx
printf '' >empty.csv
printf '1,2\n3\n' >ragged.csv
printf '1,x\n3,4\n' >word.csv
$py - <<'EOF2'
import numpy as np
np.save('c16.npy', np.zeros((4, 2), dtype=np.complex128))
np.save('fortran.npy', np.asfortranarray(np.zeros((16, 2))))
np.save('rows.npy', np.zeros((5, 2)))
np.save('cube.npy', np.zeros((16, 2, 2)))
EOF2
expect 2 "$E--pattern is required" -- distances -n 64
expect 2 "$E.*not (in|one of) \{table,csv,json\}" -- info --format bogus
expect 2 "$E.*not expected: extra" -- info extra
expect 2 "$E--n: .*received 2" -- congestion -p pow2 -n 64 -n 128
expect 2 "$E--source 0 is outside 1..64" -- distances -p pow2 -n 64 --source 0
expect 2 "$E--target 65 is outside 1..64" -- distances -p pow2 -n 64 --target 65
expect 2 "$E--source: '2\^70' is too large" -- distances -p pow2 -n 64 --source '2^70'
expect 2 "$E--matrix writes n\^2 entries" -- distances -p pow2 -n '2^15' --matrix out.csv
expect 2 "$E--method: bogus not in \{auto,bitset-bfs,dp\}" -- distances -p pow2 -n 64 --method bogus
expect 2 "$E--sweep '100..10': HI must be >= LO" -- distances -p pow2 --sweep 100..10
expect 2 "$E--sweep: empty item" -- pattern -p pow2 --sweep 1,2,,3
expect 3 "$E.*bad.mtx:1: not a Matrix Market file" -- distances -p mtx:bad.mtx
expect 2 "$E.*'expr:\(\(\(': malformed expression" -- distances -p 'expr:(((' -n 64
expect 2 "$E.*'expr:': the expression is empty" -- pattern -p 'expr:' -n 64
expect 2 "$E.*'expr:k\^99999999': f\(0\) = 0 is below 1" -- rank -p 'expr:k^99999999' -n 64
expect 2 "$E.*'offsets:': empty list" -- congestion -p 'offsets:' -N 64
expect 2 "$E.*'pow2\|': empty part in a union" -- pattern -p 'pow2|' -n 64
expect 2 "$E.*not a positive integer" -- pattern -p 'window:99999999999999999999' -n 64
expect 2 "$E.*'sink:0': parameter must be >= 1" -- congestion -p 'sink:0' -N 64
expect 2 "$E.*'block:-1'.* not a positive integer" -- solve -p 'block:-1' --random 2 -n 16
expect 2 "$E.*give dilated:w,r" -- rank -p dilated:3 -n 64
expect 2 "$E.*'pow:1': parameter must be >= 2" -- validate -p pow:1 -n 64
expect 2 "$E.*empty pattern" -- validate -p '' -n 64
expect 2 "$E.*'\+cache' applies to translation-invariant patterns only, not 'pow2\+cache'" -- pattern -p pow2+cache+cache -n 64
expect 2 "$E--n: '1.5' is not a positive integer" -- pattern -p pow2 -n 1.5
expect 2 "$E--n: '0x10' is not a positive integer" -- distances -p pow2 -n 0x10
expect 2 "$E--n: '2\^-1' is not a positive integer" -- congestion -p pow2 -n '2^-1'
expect 2 "$E--n:? must be >= 1" -- pattern -p pow2 -n -5
expect 2 "$E.*n = 4294967297 is too large" -- pattern -p pow2 -n 4294967297
expect 2 "$E--n \(the copy length N\) must be below 2\^31" -- congestion -p pow2 -N '2^31'
expect 2 "$E--cuts: cut 999999 is outside 1..63" -- rank -p pow2 -n 64 --cuts 1,999999
expect 2 "$E--tol: '-1' must be in \[0, 1\]" -- rank -p pow2 -n 64 --tol -1
expect 2 "$E--tol: 'nan' is not a finite number" -- rank -p pow2 -n 64 --tol nan
expect 2 "$E--tol: 'inf' is not a finite number" -- rank -p pow2 -n 64 --tol inf
expect 2 "$E--tol: '-inf' is not a finite number" -- rank -p pow2 -n 64 --tol=-inf
expect 2 "$E--tol: '1e999' is not a finite number" -- rank -p pow2 -n 64 --tol 1e999
expect 2 "$E--tol: 'NaN' is not a finite number" -- rank ssm -n 8 --example rotation --tol NaN
expect 2 "$E--tol: '2' must be in \[0, 1\]" -- rank ssm -n 8 --example rotation --tol 2
expect 2 "$E--tol: 'inf' is not a finite number" -- rank heads --pattern pow2 -n 8 --p 2 --d 2 --tol inf
expect 2 "$E--tol: '-1' must be in \[0, 1\]" -- rank heads --pattern pow2 -n 8 --p 2 --d 2 --tol=-1
expect 2 "$E--fig-width: 'nan' is not a finite number" -- report -p pow2 -n 64 -o rep --fig-width nan
expect 2 "$E--fig-width: '-inf' is not a finite number" -- report -p pow2 -n 64 -o rep --fig-width=-inf
expect 2 "$E--fig-width: '30' must be in \[0.5, 20\]" -- report -p pow2 -n 64 -o rep --fig-width 30
expect 2 "$E--n must fit in 32 bits" -- rank -p pow2 -n '2^40'
expect 1 "$E.*refused before allocating" -- rank -p pow2 -n '2^24' --method dense --mem-limit 1G
expect 2 "$E--seed: 'abc' is not a" -- rank -p pow2 -n 64 --seed abc
expect 2 "$E.*rank heads builds every pair: --n must be <= 1024" -- rank heads --pattern pow2 -n '2^20' --p 2 --d 2
expect 2 "$E.*p\*d must be <= 4096" -- rank heads --pattern pow2 -n 64 --p '2^40' --d 2
expect 1 "$E.*lag stack .*refused before allocating" -- rank ssm -n '2^40' --example rotation
expect 2 "$E--state must be <= 4096" -- rank ssm -n '2^30' --state '2^40' --p 2 --d 2
expect 2 "$E--out-channels \(--p\) must be >= 1" -- rank heads --pattern pow2 -n 64 --p 0 --d 2
expect 2 "$E--in-channels \(--d\) must be >= 1" -- rank heads --pattern pow2 -n 64 --p 2 --d 0
expect 2 "$E--n must be >= 1" -- rank heads --pattern pow2 -n 0 --p 2 --d 2
expect 2 "$E.*p\*d must be <= 4096" -- rank heads --pattern pow2 -n 64 --p '2^32' --d '2^32'
mapfile -t many_heads < <(for _ in $(seq 1025); do printf -- '-p\ndense\n'; done)
expect 2 "$E.*rank heads: at most 1024 heads \(--pattern given 1025 times\)" -- rank heads "${many_heads[@]}" -n 64 --p 2 --d 2
expect 1 "$E.*pair stack.*--mem-limit" -- rank heads "${many_heads[@]:0:2000}" -n 1024 --p 1 --d 1 --mem-limit 10G
expect 2 "$E--out-channels \(--p\) must be >= 1" -- rank ssm -n 64 --state 4 --p 0 --d 2
expect 2 "$E--state must be >= 1" -- rank ssm -n 64 --state 0 --p 2 --d 2
expect 2 "$E--state must be <= 4096 and p\*d <= 65536" -- rank ssm -n 64 --state 4 --p '2^32' --d '2^32'
expect 2 "$E--n must be >= 1" -- rank ssm -n 0 --example rotation
expect 2 "$E--n must be >= 1" -- rank loglinear --T 0
expect 2 "$E--n: validate runs reference solves" -- validate -p pow2 -n '2^30'
expect 3 "$E.*empty.csv: no rows" -- solve -p pow2 -i empty.csv
expect 3 "$E.*ragged.csv:2: 1 values, expected 2" -- solve -p pow2 -i ragged.csv
expect 3 "$E.*word.csv:1: not a number" -- solve -p pow2 -i word.csv
expect 3 "$E.*c16.npy: dtype '<c16' is not supported" -- solve -p pow2 -i c16.npy
expect 3 "$E.*fortran.npy: Fortran-order arrays are not supported" -- solve -p pow2 -i fortran.npy
expect 3 "$E.*rows.npy: X has 5 rows but --n is 16" -- solve -p pow2 -i rows.npy -n 16
expect 3 "$E.*cube.npy: X must be a 2-D array" -- solve -p pow2 -i cube.npy
expect 2 "$E--heads must be >= 1" -- solve -p pow2 --random 4 -n 16 --heads 0

# --- values that are not finite: refused in X unless --allow-nonfinite, always in weight files -------------
printf '1,2\n3,nan\n5,6\n7,8\n' >nan.csv
printf '1 2\n3 4\n1e999 6\n7 8\n' >over.csv
$py - <<'EOF3'
import numpy as np
x = np.ones((4, 2)); x[1, 0] = -np.inf; np.save('inf.npy', x)
y = np.ones((4, 2), dtype=np.float32); y[3, 1] = np.nan; np.save('nan32.npy', y)
np.save('wnan.npy', np.array([[0.5, np.nan]]))
g = np.full((4, 2), 0.5); g[2, 1] = np.inf; np.save('gates.npy', g)
EOF3
expect 3 "$E.*nan.csv: row 2, column 2 \(1-indexed\) is nan; values must be finite \(give --allow-nonfinite" -- solve -p pow2 -i nan.csv
expect 0 '^$' -- solve -p pow2 -i nan.csv --allow-nonfinite
expect 3 "$E.*over.csv: row 3, column 1 \(1-indexed\) is inf" -- solve -p pow2 -i over.csv
expect 3 "$E.*inf.npy: row 2, column 1 \(1-indexed\) is -inf" -- solve -p pow2 -i inf.npy -o y.npy
expect 3 "$E.*nan32.npy: row 4, column 2 \(1-indexed\) is nan" -- solve -p pow2 -i nan32.npy --precision fp64
expect 3 "$E--weights-b wnan.npy: row 1, column 2 \(1-indexed\) is nan; values must be finite$" -- solve -p pow2 --random 2 -n 4 --weights-b wnan.npy
expect 3 "$E--weights-b wnan.npy: row 1, column 2 \(1-indexed\) is nan" -- solve -p pow2 -i nan.csv --allow-nonfinite --weights-b wnan.npy
expect 3 "$E--gates gates.npy: row 3, column 2 \(1-indexed\) is inf" -- solve -p ssm --random 2 -n 4 --gates gates.npy
expect 3 "$E--input-gates gates.npy: row 3, column 2 \(1-indexed\) is inf" -- solve -p ssm --random 2 -n 4 --input-gates gates.npy
expect 3 "$E--weights-b wnan.npy: row 1, column 2 \(1-indexed\) is nan" -- rank -p pow2 -n 4 --weights-b wnan.npy
expect 1 "$E.*cannot write 'nodir/y.npy'" -- solve -p pow2 --random 4 -n 16 -o nodir/y.npy

# --- solve --attn-q / --attn-k: attention weights from queries and keys -----------------------------------
$py - <<'EOF4'
import numpy as np
np.save('q16.npy', np.ones((16, 4))); np.save('k16.npy', np.ones((16, 4)))
np.save('k16x3.npy', np.ones((16, 3))); np.save('q8.npy', np.ones((8, 4)))
q = np.ones((16, 4)); q[5, 2] = np.nan; np.save('qnan.npy', q)
k = np.ones((16, 4), dtype=np.float32); k[15, 0] = np.inf; np.save('kinf.npy', k)
EOF4
expect 0 '^$' -- solve -p window:4 --random 2 -n 16 --attn-q q16.npy --attn-k k16.npy
expect 3 "$E.*Q has 4 columns but K has 3" -- solve -p window:4 --random 2 -n 16 --attn-q q16.npy --attn-k k16x3.npy
expect 3 "$E.*Q has 8 rows but the pattern has n = 16" -- solve -p window:4 --random 2 -n 16 --attn-q q8.npy --attn-k k16.npy
expect 3 "$E.*Q has 4 columns, not a positive multiple of 3 heads" -- solve -p window:4 --random 3 -n 16 --heads 3 --attn-q q16.npy --attn-k k16.npy
expect 3 "$E.*Q entry \(6, 3\) is not finite" -- solve -p window:4 --random 2 -n 16 --attn-q qnan.npy --attn-k k16.npy
expect 3 "$E.*K entry \(16, 1\) is not finite" -- solve -p window:4 --random 2 -n 16 --attn-q q16.npy --attn-k kinf.npy
expect 3 "$E.*missing.npy.*No such file" -- solve -p window:4 --random 2 -n 16 --attn-q missing.npy --attn-k k16.npy
expect 2 "$E--attn-q and --attn-k go together" -- solve -p window:4 --random 2 -n 16 --attn-q q16.npy
expect 2 "$E--attn-q / --attn-k set A's weights" -- solve -p window:4 --random 2 -n 16 --attn-q q16.npy --attn-k k16.npy --weights-a q16.npy
expect 2 "$E.*--attn-kernel" -- solve -p window:4 --random 2 -n 16 --attn-q q16.npy --attn-k k16.npy --attn-kernel cubic
# attention Q/K: rank, dtype, shape, a header announcing 2^40 x 2^40 in a 100-byte file, a large (sparse) file
# against --mem-limit, special files; in solve, validate and rank alike
$py - <<'EOF5'
import numpy as np, struct
np.save('q1d.npy', np.ones(16)); np.save('qint.npy', np.ones((16, 4), dtype=np.int64))
np.save('q0.npy', np.ones((16, 0)))
def header(name, shape, pad=0):
    h = ("{'descr': '<f8', 'fortran_order': False, 'shape': %s, }" % shape).encode()
    h += b' ' * pad
    open(name, 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h)
    return 10 + len(h)
header('qhuge.npy', '(1099511627776, 1099511627776)')
here = header('qbig.npy', '(16, 67108864)')
with open('qbig.npy', 'r+b') as f: f.truncate(here + 16 * 67108864 * 8)  # 8 GiB, sparse
here = header('ssq.npy', '(32768, 32768)')
with open('ssq.npy', 'r+b') as f: f.truncate(here + 32768 * 32768 * 8)  # 8 GiB, sparse, square
EOF5
for cmd in "solve -p window:4 --random 2 -n 16" "validate -p window:4 -n 16" "rank -p window:4 -n 16"; do
  read -r -a c <<<"$cmd"
  expect 3 "$E.*q1d.npy: .*2-D array" -- "${c[@]}" --attn-q q1d.npy --attn-k k16.npy
  expect 3 "$E.*qint.npy: dtype '<i8' is not supported" -- "${c[@]}" --attn-q qint.npy --attn-k k16.npy
  expect 3 "$E.*qhuge.npy: data size .* does not match shape" -- "${c[@]}" --attn-q qhuge.npy --attn-k k16.npy --mem-limit 1G
  expect 1 "$E.*reading qbig.npy needs about 8.0 GiB, more than the --mem-limit .*refused before allocating" -- "${c[@]}" --attn-q q16.npy --attn-k qbig.npy --mem-limit 1G
  expect 3 "$E.*'fifo.npy' is not a regular file" -- "${c[@]}" --attn-q fifo.npy --attn-k k16.npy
  expect 3 "$E.*'dir.npy' is a directory" -- "${c[@]}" --attn-q q16.npy --attn-k dir.npy
  expect 3 "$E.*'/dev/zero' is not a regular file" -- "${c[@]}" --attn-q /dev/zero --attn-k k16.npy
  expect 2 "$E--attn-kernel: cubic not in \{softmax,linear\}" -- "${c[@]}" --attn-q q16.npy --attn-k k16.npy --attn-kernel cubic
done
expect 3 "$E.*Q has 0 columns" -- solve -p window:4 --random 2 -n 16 --attn-q q0.npy --attn-k q0.npy
expect 3 "$E.*Q has 4 columns but K has 3" -- rank -p window:4 -n 16 --attn-q q16.npy --attn-k k16x3.npy
expect 3 "$E.*Q has 8 rows but the pattern has n = 16" -- validate -p window:4 -n 16 --attn-q q8.npy --attn-k k16.npy

# --- stack: specs: grammar, depth, nesting, read marks in layers, sizes against --mem-limit -----------------
nest=$($py -c "print('stack:' + '(' * 20 + 'ssm' + ')*2' * 20)")
expect 2 "$E.*'stack:': give the layers" -- pattern -p 'stack:' -n 64
expect 0 '^$' -- pattern -p 'stack:ssm' -n 64
expect 2 "$E.*at most 4096 layers" -- pattern -p 'stack:(ssm)*1000000' -n 64
wide=$($py -c "print('stack:' + ','.join(['ssm'] * 20000))")  # 80 KB: the message quotes its start only
expect 2 "${E}pattern 'stack:ssm,ssm,[a-z,]{100,120}\.\.\. \(80005 characters\)': at most 4096 layers$" -- pattern -p "$wide" -n 64
expect 2 "$E.*at most 4096 layers" -- distances -p 'stack:((ssm)*1000)*1000' -n 64
expect 2 "$E.*repetitions nested more than 16 deep" -- rank -p "$nest" -n 64
expect 2 "$E.*stack: cannot be nested" -- congestion -p 'stack:stack:ssm' -N 64
expect 2 "$E.*heads: is not a stack layer" -- pattern -p 'stack:ssm;heads:ssm;pow2' -n 64
expect 2 "$E.*'\(ssm\)\*0': a parenthesised list must be followed by \*k" -- pattern -p 'stack:(ssm)*0' -n 64
expect 2 "$E.*a parenthesised list must be followed by \*k" -- pattern -p 'stack:(ssm)*99999999999999999999999' -n 64
expect 2 "$E.*a '\)' without its '\('" -- pattern -p 'stack:ssm)(' -n 64
expect 2 "$E.*unbalanced '\('" -- gallery -p 'stack:ssm,(' -n 64
expect 2 "$E.*unbalanced '\('" -- report -p 'stack:ssm,(' -n 64 -o rep
expect 2 "$E.*'window:0': parameter must be >= 1" -- pattern -p 'stack:ssm;window:0' -n 64
expect 2 "$E.*a read mark \(@A, @B, @AB\) marks a part of a union" -- pattern -p 'stack:ssm;window:4@B' -n 64
expect 2 "$E.*part '@B' is a read mark without a pattern" -- pattern -p 'stack:ssm;window:4|@B' -n 64
expect 0 '^$' -- pattern -p 'stack:ssm;window:4@A|sink:2@B' -n 64
expect 2 "$E.*'stack:ssm,window:4': a stack of layers is not a single-layer pattern" -- solve -p 'stack:ssm,window:4' --random 2 -n 16
expect 2 "$E.*a stack of layers is not a single-layer pattern" -- validate -p 'stack:ssm,window:4' -n 16
expect 3 "$E.*'fifo.mtx' is not a regular file" -- congestion -p 'stack:mtx:fifo.mtx,ssm' -N 8
expect 3 "$E.*'/dev/zero' is not a regular file" -- pattern -p 'stack:ssm,mtx:/dev/zero'
expect 3 "$E.*'dir.npy' is a directory" -- gallery -p 'stack:ssm;mtx:dir.npy' -n 16
expect 3 "$E.*'fifo.mtx' is not a regular file" -- report -p 'stack:ssm;mtx:fifo.mtx' -n 16 -o rep
expect 3 "$E.*'fifo.npy' is not a regular file" -- pattern -p 'stack:topk-blocks:4,2,fifo.npy;ssm' -n 16
# topk-blocks: scores: the shape is checked from the header before the data is read
expect 3 "$E.*'qbig.npy' has shape \(16, 67108864\), but n = 16 in blocks of 4 needs \(4, 4\)" -- pattern -p 'stack:topk-blocks:4,2,qbig.npy;ssm' -n 16 --mem-limit 1G
expect 1 "$E.*reading ssq.npy needs about 8.0 GiB.*refused before allocating" -- pattern -p 'stack:topk-blocks:4,2,ssq.npy;ssm' -n 131072 --mem-limit 1G
expect 1 "$E.*pattern stack:dense,ssm at n = 2147483648 needs about .*refused before allocating" -- pattern -p 'stack:dense,ssm' -n '2^31' --mem-limit 1G
expect 1 "$E.*pattern stack:dense,ssm at n = 2147483648 .*--mem-limit" -- distances -p 'stack:dense,ssm' -n '2^31' --mem-limit 1G
expect 1 "$E.*all-pairs distances need about .* relaxations" -- distances -p 'stack:sink:4,ssm' -n '2^20' --mem-limit 1G
expect 1 "$E.*pattern stack:ssm,window:4 at n = 2147483648 .*--mem-limit" -- rank -p 'stack:ssm,window:4' -n '2^31' --mem-limit 1G
expect 1 "$E.*weights over GF\(2\^61-1\) at n = 1048576 needs about .*--mem-limit \(150.0 MiB\)" -- rank -p 'stack:ssm,window:4' -n '2^20' --method exact --mem-limit 150M
expect 1 "$E.*flow network at n = 4194304 \(2 layers\) needs about .*refused before allocating" -- rank -p 'stack:ssm,window:4' -n '2^22' --method flow --mem-limit 500M
expect 1 "$E.*flow network at n = 1024 \(4096 layers\)" -- rank -p 'stack:(dense)*4096' -n 1024 --mem-limit 1G
expect 1 "$E.*dense product at n = 1024 \(4096 layers\) needs about" -- rank -p 'stack:(dense)*4096' -n 1024 --method dense --mem-limit 1G
expect 1 "$E.*stack stack:ssm,window:4 at 2N = 2147483648 .*--mem-limit" -- congestion -p 'stack:ssm,window:4' -N '2^30' --lp --mem-limit 1G
expect 1 "$E.*the max-flow network of the cut bound .*--mem-limit" -- congestion -p 'stack:ssm,window:4' -N '2^20' --lp --mem-limit 1G
expect 1 "$E.*pattern stack:ssm,window:4 at n = 2147483648 .*--mem-limit" -- gallery -p 'stack:ssm,window:4' -n '2^31' --mem-limit 1G
expect 1 "$E.*pattern stack:ssm,window:4 at n = 2147483648 .*--mem-limit" -- report -p 'stack:ssm,window:4' -n '2^31' -o rep --mem-limit 1G
# --lp whose GLPK model would be huge (2^16 commodities over dense): the variable count is refused, not built
expect 0 '^$' -- congestion -p dense -N '2^16' --lp --mem-limit 1G
expect 0 '^$' -- congestion -p 'stack:dense,dense' -N '2^12' --lp --mem-limit 1G
# a file name without mtx: inside heads: and stack: layers gets the hint too
expect 2 "$E--pattern: 'B.mtx' is a file name: did you mean mtx:B.mtx\?" -- pattern -p 'heads:window:4;B.mtx' -n 16
expect 2 "$E--pattern: 'B.mtx' is a file name: did you mean mtx:B.mtx\?" -- distances -p 'stack:ssm,B.mtx' -n 16
expect 2 "$E--pattern: 'B.mtx@A' is a file name: did you mean mtx:B.mtx@A\?" -- rank -p 'stack:ssm;(window:2|B.mtx@A)*2' -n 16
expect 1 "$E.*error while writing '/dev/full'" -- congestion -p pow2 -N 64 --paths /dev/full
expect 2 "$E--out 'bad.mtx' exists and is not a directory" -- report -p pow2 -n 64 -o bad.mtx
expect 2 "$E--n must fit in 32 bits" -- report -p pow2 -n '2^40' -o rep
expect 2 "$E.*unknown pattern 'bogus'" -- report -p bogus -n 64 -o rep
expect 1 "$E.*cannot create a staging directory for '/proc/rep'" -- report -p pow2 -n 64 -o /proc/rep
expect 2 "$E.*unknown claim 'bogus'" -- verify --claim bogus
expect 2 "$E--n-max must be between 2 and 2\^24" -- verify --n-max 1
expect 2 "$E.*unknown pattern 'bogus'" -- verify -p bogus
expect 2 "$E.*unknown pattern 'bogus'" -- verify --claim fagnou.prop4.4 -p pow2 -p bogus --format json
expect 2 "$E.*'window:0': parameter must be >= 1" -- verify --claim fagnou.cor4.5 -p window:0
expect 3 "$E.*missing.mtx" -- verify -p mtx:missing.mtx

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
$py -c "import socket; socket.socket(socket.AF_UNIX).bind('sock.npy')"
expect 3 "$E.*'sock.npy'" -- solve -p pow2 -i sock.npy
expect 1 "$E.*cannot write 'sock.npy': a FIFO without a reader \(or a socket\)" -- solve -p pow2 --random 2 -n 16 -o sock.npy
rm -f sock.npy
ln -s nowhere/y.npy dangling.npy
expect 1 "$E.*cannot write 'dangling.npy': a symbolic link to a missing file" -- solve -p pow2 --random 2 -n 16 -o dangling.npy
rm -f dangling.npy
mkdir notreport && echo keep >notreport/keep.txt
expect 2 "$E--out 'notreport' holds files but no report.json: --force replaces only a mixgraph report" -- report -p pow2 -n 16 -o notreport --force
[[ -f notreport/keep.txt ]] || { echo "FAIL: report --force deleted a user's file"; fails=$((fails + 1)); }
rm -rf notreport
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
