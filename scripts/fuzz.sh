#!/usr/bin/env bash
# Fuzzing: builds the libFuzzer harnesses of tests/fuzz/ with clang (ASan + UBSan) in build-fuzz/ and runs
# each for FUZZ_SECONDS (default 45) from its seed corpus (tests/fuzz/corpus/<harness>/). A crash, a leak,
# a timeout (> 10 s on one input) or more than 2 GiB of memory fails the script.
#   bash scripts/fuzz.sh                      # build and run every harness for 45 s
#   FUZZ_SECONDS=600 bash scripts/fuzz.sh dense numbers    # longer, some harnesses only
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
srcs=(mtx npy memory sweep input_file atomic_file pattern pattern_families pattern_stack profile expression csr
  spec_files)
objs=()
for s in "${srcs[@]}"; do
  o=$B/obj/$s.o
  if [[ ! -f $o || lib/src/$s.cpp -nt $o || -n $(find lib/include lib/src -name '*.hpp' -newer "$o" | head -1) ]]; then
    echo "compiling lib/src/$s.cpp"
    "$CXX" "${flags[@]}" -fsanitize=fuzzer-no-link -c "lib/src/$s.cpp" -o "$o"
  fi
  objs+=("$o")
done
for h in "${harnesses[@]}"; do
  if [[ ! -x $B/fuzz_$h || tests/fuzz/fuzz_$h.cpp -nt $B/fuzz_$h || -n $(find "$B/obj" -newer "$B/fuzz_$h" | head -1) ]]; then
    echo "linking fuzz_$h"
    "$CXX" "${flags[@]}" -fsanitize=fuzzer "tests/fuzz/fuzz_$h.cpp" "${objs[@]}" -lmuparser -lgomp -o "$B/fuzz_$h"
  fi
done
status=0
for h in "${harnesses[@]}"; do
  mkdir -p "$B/corpus/$h"
  echo "== fuzz_$h for ${secs}s"
  if ! (cd "$B" && ASAN_OPTIONS=detect_leaks=1 "./fuzz_$h" -max_total_time="$secs" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 "corpus/$h" "../tests/fuzz/corpus/$h" >"fuzz_$h.log" 2>&1); then
    status=1
    tail -n 40 "$B/fuzz_$h.log"
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|cov: ' "$B/fuzz_$h.log" | tail -n 3
done
exit $status
