#!/usr/bin/env bash
# GPU checks and benchmarks, in one call on a machine with an NVIDIA GPU (figures: docs/benchmarks.md).
#   OUT=/tmp/out bash scripts/gpu-bench.sh STAGE...
# Stages (run in the order given):
#   build      configure + build the CLI, test_solve, the CPU references' tests, test_gpu_semiring (if
#              present) and bench_solve
#   tests      the GPU unit tests (and the validate tests)
#   validate   mixgraph validate --backend gpu on every pattern family
#   bench      bench_solve gpu quick (the suite without n = 2^24); bench-full adds n = 2^24
#   peers      the peers in bench/peers/ (PEERS=another folder with gpu_anchor.py and hgrn_anchor.py),
#              FLA_SRC=folder holding flash-linear-attention's fla/ package
#   sanitize   compute-sanitizer memcheck and racecheck on small solves
# Results go to $OUT (default ./gpu-out): build.log, tests.log, validate.jsonl, bench.jsonl, peers.jsonl,
# sanitize.log.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
BUILD=${BUILD:-build-gpu}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
nproc=$(nproc)
cli="$BUILD/tools/mixgraph"

stage_build() {
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIXGRAPH_CUDA=ON >"$OUT/build.log" 2>&1 &&
    targets="mixgraph test_solve test_blockinv_reference test_stage_references bench_solve" &&
    { [ -f tests/test_gpu_semiring.cpp ] && targets="$targets test_gpu_semiring" || true; } &&
    ninja -C "$BUILD" -j "$nproc" $targets >>"$OUT/build.log" 2>&1
  local rc=$?
  tail -3 "$OUT/build.log"
  return $rc
}

stage_tests() {
  local rc_refs=0
  {
    "$BUILD/tests/test_solve" --gtest_filter='Gpu*:*Validate*:*Backend*:SeededX*:SolveContract*'
    [ -x "$BUILD/tests/test_gpu_semiring" ] && "$BUILD/tests/test_gpu_semiring"
    "$BUILD/tests/test_stage_references" || rc_refs=1
    "$BUILD/tests/test_blockinv_reference"
  } >"$OUT/tests.log" 2>&1
  local rc=$?
  [ "$rc_refs" = 1 ] && rc=1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" "$OUT/tests.log" | head -30
  return $rc
}

stage_validate() {
  : >"$OUT/validate.jsonl"
  local mtx="$OUT/mask.mtx"
  # an explicit strictly-lower mask with near and far entries (n = 3000)
  /usr/bin/env python3 - "$mtx" <<'EOF'
import random, sys
random.seed(7)
n = 3000
ent = set()
for i in range(2, n + 1):
    for o in (1, 2, 3, 9, 40, 130, 700, 1500):
        if o < i and random.random() < 0.7:
            ent.add((i, i - o))
with open(sys.argv[1], "w") as f:
    f.write("%%MatrixMarket matrix coordinate pattern general\n")
    f.write(f"{n} {n} {len(ent)}\n")
    for i, j in sorted(ent):
        f.write(f"{i} {j}\n")
EOF
  for spec in pow2 sq1 pow2+cache sq1+cache ssm local:8 "mtx:$mtx"; do
    local nopt="--n 4096"
    [[ $spec == mtx:* ]] && nopt=""  # the file gives n
    "$cli" validate --pattern "$spec" $nopt --backend gpu --format json >>"$OUT/validate.jsonl" 2>&1
    echo "validate $spec rc=$?"
  done
  "$cli" validate --pattern sq1 --n 65536 --backend gpu --format json >>"$OUT/validate.jsonl" 2>&1
  echo "validate sq1 65536 rc=$?"
  /usr/bin/env python3 - "$OUT/validate.jsonl" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
dec, pos = json.JSONDecoder(), 0
while pos < len(text):
    start = text.find("{", pos)
    if start < 0:
        break
    for line in text[pos:start].splitlines():  # anything between documents (errors)
        if line.strip():
            print("non-json:", line[:200])
    j, pos = dec.raw_decode(text, start)
    bad = [c["name"] + ": " + c["detail"] for c in j.get("checks", []) if not c["passed"]]
    print(j.get("pattern"), j.get("n"), "all_passed" if j.get("all_passed") else "FAILED",
          len(j.get("checks", [])), "checks", bad[:3])
EOF
}

stage_bench() {  # $1: quick (the suite without n = 2^24) or full
  local arg=""
  [ "$1" = quick ] && arg=quick
  "$BUILD/bench/bench_solve" gpu $arg | tee -a "$OUT/bench.jsonl" |
    /usr/bin/env python3 -c '
import json, sys
for l in sys.stdin:
    try: r = json.loads(l)
    except Exception: print(l.strip()); continue
    if "ms" in r:
        print("%-16s %-11s n=%-8d d=%-5d h=%-5d %s %-8s %9.3f ms (copy %.3f, floor %.3f, %.1f%%) err %.1e  %s" % (r["case"], r["pattern"], r["n"], r["d"], r["heads"], r["precision"], r["structure"], r["ms"], r["copy_ms"], r["floor_ms"], 100*r["fraction_of_copy_bw"], r["check_relerr"], r["kernel"]))
    else: print(r)'
}

stage_peers() {
  local peers=${PEERS:-bench/peers}
  : >"$OUT/peers.jsonl"
  (cd "$peers" && PYTHONUNBUFFERED=1 python3 gpu_anchor.py 256) >>"$OUT/peers.jsonl" 2>&1
  (cd "$peers" && FLA_SRC=${FLA_SRC:-fla-src} PYTHONUNBUFFERED=1 python3 hgrn_anchor.py) >>"$OUT/peers.jsonl" 2>&1
  grep -v '^{' "$OUT/peers.jsonl" | tail -20
  grep '^{' "$OUT/peers.jsonl" | tail -20
}

stage_sanitize() {
  local cs=compute-sanitizer
  command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
  : >"$OUT/sanitize.log"
  local runs=(
    "memcheck|solve --pattern sq1+cache --n 3000 --random 24 --heads 3 --backend gpu"
    "memcheck|solve --pattern pow2 --n 5000 --random 16 --precision fp64 --backend gpu"
    "memcheck|solve --pattern pow2 --n 2000 --random 40 --heads 40 --precision fp64 --backend gpu"
    "memcheck|solve --pattern ssm --n 3000 --random 8 --heads 8 --backend gpu"
    "memcheck|solve --pattern sq1 --n 5000 --random 36 --backend gpu"
    "racecheck|solve --pattern sq1 --n 3000 --random 16 --backend gpu"
    "racecheck|solve --pattern pow2+cache --n 2000 --random 8 --backend gpu"
    "memcheck|solve --pattern sq1 --n 5000 --random 256 --precision fp64 --backend gpu"
    "racecheck|solve --pattern sq1 --n 3000 --random 256 --backend gpu"
    "memcheck|MIXGRAPH_GPU_SPLIT=0 solve --pattern pow2 --n 5000 --random 64 --backend gpu"
    "racecheck|MIXGRAPH_GPU_SPLIT=0 solve --pattern pow2 --n 5000 --random 64 --backend gpu"
    "synccheck|MIXGRAPH_GPU_SPLIT=0 solve --pattern pow2 --n 5000 --random 64 --backend gpu"
    "memcheck|MIXGRAPH_GPU_SPLIT=0 solve --pattern pow2 --n 5000 --random 16 --precision fp64 --backend gpu"
    "memcheck|solve --pattern ssm --n 3000 --random 64 --heads 64 --backend gpu"
    "memcheck|solve --pattern ssm --n 3001 --random 40 --heads 40 --precision fp64 --backend gpu --output $OUT/y.npy"
  )
  # "tool|[VAR=value ]args": small solves (split mode by default; MIXGRAPH_GPU_SPLIT=0 for one CTA per tile)
  for r in "${runs[@]}"; do
    tool=${r%%|*}
    args=${r#*|}
    envs=()
    [[ $args == MIXGRAPH_* ]] && envs=("${args%% *}") && args=${args#* }
    echo "== $tool: ${envs[*]} mixgraph $args" >>"$OUT/sanitize.log"
    env "${envs[@]}" $cs --tool "$tool" "$cli" $args >>"$OUT/sanitize.log" 2>&1
    echo "$tool ${envs[*]} $args rc=$?"
  done
  # the device-pointer entry point, device-made X and the channel-major layout, through their unit tests
  echo "== memcheck: test_solve (device entry points)" >>"$OUT/sanitize.log"
  $cs --tool memcheck "$BUILD/tests/test_solve" \
    --gtest_filter='Gpu.DevicePointerSolveMatchesCpu:Gpu.DeviceSeededXMatchesHostBits:Gpu.PerChannelSsmPublicPathIsChannelMajor' \
    >>"$OUT/sanitize.log" 2>&1
  echo "memcheck test_solve device entry points rc=$?"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|==" "$OUT/sanitize.log" | tail -20
}

for s in "$@"; do
  echo "=== stage $s ($(date +%T))"
  case $s in
    build) stage_build || exit 1 ;;
    tests) stage_tests ;;
    validate) stage_validate ;;
    bench) stage_bench quick ;;
    bench-full) stage_bench full ;;
    peers) stage_peers ;;
    sanitize) stage_sanitize ;;
    *) echo "unknown stage $s" ;;
  esac
done
echo "=== done ($(date +%T))"
