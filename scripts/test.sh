#!/usr/bin/env bash
# Newcomer command 2 (and CI's): install what is needed, build, and run the whole test suite — the
# Release build with every test, then the sanitizer build (ASan + UBSan, -O1, CUDA off) on the library and
# unit tests, slow tests left out.
#   bash scripts/test.sh            (on a fresh Debian 12 machine; uses sudo when not root)
#   MIXGRAPH_SKIP_SANITIZE=1 bash scripts/test.sh     (skip the sanitizer build)
#   MIXGRAPH_SKIP_FUZZ=1 bash scripts/test.sh          (skip the short fuzz runs of scripts/fuzz.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/install-deps.sh --with-python
jobs=$(nproc)

echo "== Release build: all tests =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIXGRAPH_WERROR=ON
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure -j "$jobs" --timeout 900)
# ctest lists skipped tests without their reason: show why the GPU tests skipped (no GPU here).
for t in build/tests/test_*; do
  [ -x "$t" ] && "$t" --gtest_filter='Gpu*.*' 2>/dev/null | grep -A1 ': Skipped$' | grep -vE '^(--|.*: Skipped)$' \
    | sed "s|^|  GPU test skipped ($(basename "$t")): |" | sort -u || true
done

if [ "${MIXGRAPH_SKIP_SANITIZE:-0}" != "1" ]; then
  echo "== Sanitizer build (ASan + UBSan, -O1, CUDA off): unit tests, slow ones left out =="
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="" \
    -DMIXGRAPH_SANITIZE=ON -DMIXGRAPH_CUDA=OFF -DMIXGRAPH_BENCH=OFF
  cmake --build build-asan -j "$jobs"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure -j "$jobs" -LE slow -E Slow --timeout 900)
fi
if [ "${MIXGRAPH_SKIP_FUZZ:-0}" != "1" ]; then
  # ~4 harnesses x 45 s plus a clang build of the readers (a few minutes on 2 cores)
  echo "== Fuzzing (libFuzzer, ASan + UBSan): each harness for ${FUZZ_SECONDS:-45} s =="
  bash scripts/fuzz.sh
fi
echo "== all tests passed in $(( $(date +%s) - start )) s =="
