#!/usr/bin/env bash
# Newcomer command 2 (and CI's): install what is needed, build, and run the whole test suite — the
# Release build with every test, then the sanitizer build (ASan + UBSan, -O1, CUDA off) on the library and
# unit tests, slow tests left out, then short fuzz runs.
#   bash scripts/test.sh            (on a fresh Debian 12 machine; uses sudo when not root)
#   MIXGRAPH_SKIP_SANITIZE=1 bash scripts/test.sh     (skip the sanitizer build)
#   MIXGRAPH_SKIP_FUZZ=1 bash scripts/test.sh          (skip the short fuzz runs of scripts/fuzz.sh)
# Each stage prints its wall and CPU time, each test stage its ten slowest tests, and the end a table of
# all stages, so that a regression in the suite's cost shows in every log.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
jobs=$(nproc)
tick=$(getconf CLK_TCK)
stages=()

# CPU seconds (user + system) of this shell's finished children, from /proc (bash's `times` would need a
# temporary file; a subshell's own counters start at zero).
children_cpu() { awk -v t="$tick" '{ printf "%.0f", ($16 + $17) / t }' "/proc/$$/stat"; }

# stage NAME COMMAND...: runs the command, prints and records its wall and CPU time; a failure stops the
# script (set -e) after printing the time. The command runs in a `||` context, where bash ignores set -e:
# the stage functions below chain their steps with && and return their first failure themselves.
stage() {
  local name=$1 t0 c0 rc=0
  shift
  t0=$(date +%s)
  c0=$(children_cpu)
  echo "== $name =="
  "$@" || rc=$?
  local wall=$(($(date +%s) - t0)) cpu=$(($(children_cpu) - c0))
  stages+=("$(printf '%-44s %6d s wall %7d s CPU' "$name" "$wall" "$cpu")")
  echo "== $name: ${wall} s wall, ${cpu} s CPU$([[ $rc == 0 ]] || echo ", FAILED (exit $rc)") =="
  return $rc
}

# run_ctest DIR ARGS...: ctest in DIR, then its ten slowest tests (from ctest's own per-test times).
run_ctest() {
  local dir=$1 rc=0
  shift
  (cd "$dir" && ctest --output-on-failure -j "$jobs" "$@") 2>&1 | tee "$dir/ctest.log" || rc=$?
  echo "-- ten slowest tests ($dir):"
  sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.+.* ([0-9.]+) sec$/\2 \1/p' "$dir/ctest.log" \
    | sort -rn | head -n 10 | awk '{ printf "  %8.1f s  %s\n", $1, $2 }'
  return $rc
}

release_build() {
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIXGRAPH_WERROR=ON && cmake --build build -j "$jobs"
}
release_tests() {
  local rc=0
  run_ctest build --timeout 900 || rc=$?
  # ctest lists skipped tests without their reason: show why the GPU tests skipped (no GPU here).
  for t in build/tests/mixgraph_tests build/tests/test_*; do
    [ -x "$t" ] && "$t" --gtest_filter='Gpu*.*' 2>/dev/null | grep -A1 ': Skipped$' | grep -vE '^(--|.*: Skipped)$' \
      | sed "s|^|  GPU test skipped ($(basename "$t")): |" | sort -u || true
  done
  return $rc
}
sanitizer_build() {
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="" \
    -DMIXGRAPH_SANITIZE=ON -DMIXGRAPH_CUDA=OFF -DMIXGRAPH_BENCH=OFF && cmake --build build-asan -j "$jobs"
}
sanitizer_tests() {
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    run_ctest build-asan -LE slow --timeout 900
}

stage "install (scripts/install-deps.sh)" bash scripts/install-deps.sh --with-python
stage "Release build" release_build
stage "Release tests (all)" release_tests
if [ "${MIXGRAPH_SKIP_SANITIZE:-0}" != "1" ]; then
  stage "Sanitizer build (ASan + UBSan, -O1, no CUDA)" sanitizer_build
  stage "Sanitizer tests (slow ones left out)" sanitizer_tests
fi
if [ "${MIXGRAPH_SKIP_FUZZ:-0}" != "1" ]; then
  # the harnesses build with clang and run FUZZ_SECONDS each, as many at once as there are cores
  stage "Fuzzing (libFuzzer, ${FUZZ_SECONDS:-45} s per harness)" bash scripts/fuzz.sh
fi
echo "== stages =="
printf '  %s\n' "${stages[@]}"
echo "== all tests passed in $(($(date +%s) - start)) s =="
