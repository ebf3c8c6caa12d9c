#!/usr/bin/env bash
# Fuzzing: builds the libFuzzer harnesses of tests/fuzz/ with clang (ASan + UBSan) in build-fuzz/ and runs
# each for FUZZ_SECONDS (default 45) from its seed corpus (tests/fuzz/corpus/<harness>/). A crash, a leak,
# a timeout (> 10 s on one input) or more than 2 GiB of memory fails the script.
#   bash scripts/fuzz.sh                      # build and run every harness for 45 s
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh dense numbers    # longer, some harnesses only
#   FUZZ_JOBS=1 bash scripts/fuzz.sh          # one compile or harness at a time (default: one per core)
# Needs clang-14 and libclang-rt-14-dev (scripts/install-deps.sh). New findings are kept in
# build-fuzz/corpus/<harness>/ and crash inputs in build-fuzz/crash-*: add each crash to the seed corpus
# and a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
CXX=${FUZZ_CXX:-clang++-14}
secs=${FUZZ_SECONDS:-45}
harnesses=("$@")
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=(mtx_pattern dense numbers pattern_spec)
B=build-fuzz
mkdir -p "$B/obj"
flags=(-std=c++20 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -Ilib/include -Ilib/src
  -isystem /usr/include/eigen3 -DMIXGRAPH_HAVE_MUPARSER)
srcs=(io/mtx io/npy core/memory core/sweep io/input_file io/atomic_file pattern/pattern pattern/pattern_families
  pattern/pattern_spec pattern/pattern_spec_memory pattern/stack pattern/profile pattern/pattern_expression
  graph/csr io/spec_files core/cancel)   # lib/src/<area>/<name>.cpp
par=${FUZZ_JOBS:-$(nproc)}   # compiles and harness runs at once
# throttle: wait until fewer than $par background jobs run; a failed job fails the script at the end
status=0
throttle() { while [[ $(jobs -rp | wc -l) -ge $par ]]; do wait -n || status=1; done; }
objs=()
for s in "${srcs[@]}"; do
  o=$B/obj/${s//\//_}.o
  if [[ ! -f $o || lib/src/$s.cpp -nt $o || -n $(find lib/include lib/src -name '*.hpp' -newer "$o" | head -1) ]]; then
    echo "compiling lib/src/$s.cpp"
    throttle
    "$CXX" "${flags[@]}" -fsanitize=fuzzer-no-link -c "lib/src/$s.cpp" -o "$o" &
  fi
  objs+=("$o")
done
while [[ -n $(jobs -rp) ]]; do wait -n || status=1; done
[[ $status == 0 ]] || { echo "fuzz.sh: compiling the readers failed"; exit 1; }
for h in "${harnesses[@]}"; do
  if [[ ! -x $B/fuzz_$h || tests/fuzz/fuzz_$h.cpp -nt $B/fuzz_$h || -n $(find "$B/obj" -newer "$B/fuzz_$h" | head -1) ]]; then
    echo "linking fuzz_$h"
    throttle
    "$CXX" "${flags[@]}" -fsanitize=fuzzer "tests/fuzz/fuzz_$h.cpp" "${objs[@]}" -lmuparser -lgomp -o "$B/fuzz_$h" &
  fi
done
while [[ -n $(jobs -rp) ]]; do wait -n || status=1; done
[[ $status == 0 ]] || { echo "fuzz.sh: linking a harness failed"; exit 1; }
# one harness in the background: its exit status goes to $B/fuzz_<harness>.rc, its log to fuzz_<harness>.log
fuzz_one() {
  local h=$1 rc=0
  mkdir -p "$B/corpus/$h"
  (cd "$B" && ASAN_OPTIONS=detect_leaks=1 "./fuzz_$h" -max_total_time="$secs" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 "corpus/$h" "../tests/fuzz/corpus/$h" >"fuzz_$h.log" 2>&1) || rc=$?
  echo "$rc" >"$B/fuzz_$h.rc"
}
for h in "${harnesses[@]}"; do
  rm -f "$B/fuzz_$h.rc"
  throttle
  echo "== fuzz_$h for ${secs}s"
  fuzz_one "$h" &
done
wait
for h in "${harnesses[@]}"; do
  rc=$(cat "$B/fuzz_$h.rc" 2>/dev/null || echo "no exit status")
  if [[ $rc != 0 ]]; then
    status=1
    echo "== fuzz_$h FAILED ($rc):"
    tail -n 40 "$B/fuzz_$h.log"
  fi
  echo "-- fuzz_$h:"
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|cov: ' "$B/fuzz_$h.log" | tail -n 3
done
exit $status
