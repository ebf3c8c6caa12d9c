#!/usr/bin/env bash
# The labelling rule of tests/CMakeLists.txt: every ctest test has exactly one layer label (unit, cli, python,
# mpi, gpu); "slow" and the topic labels come on top. Lists the tests that break the rule.
# Usage: tests/test_labels.sh CTEST BUILD_DIR   (ctest: test_labels)
set -euo pipefail
ctest=$1
build=$(cd "$2" && pwd)
# ctest runs from a scratch folder that includes the build's tests, so that its log files do not replace the
# ones of the ctest run this test is part of
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
printf 'subdirs("%s")\n' "$build" >CTestTestfile.cmake
names() { "$ctest" -N "$@" | sed -nE 's/^ *Test +#[0-9]+: (.+)$/\1/p' | sort; }
all=$(names)
total=$(printf '%s\n' "$all" | grep -c . || true)
[[ $total -gt 0 ]] || { echo "FAIL: ctest lists no tests"; exit 1; }
layered=""
for layer in unit cli python mpi gpu; do
  got=$(names -L "^$layer\$")
  echo "$layer: $(printf '%s\n' "$got" | grep -c . || true)"
  layered+="$got"$'\n'
done
# a label the rule does not know (a typo would hide a test from every selection)
unknown=$("$ctest" --print-labels | sed -nE 's/^ +(.+)$/\1/p' | grep -vxE 'unit|cli|python|mpi|gpu|slow|checkpoint|install|docs' || true)
none=$(comm -23 <(printf '%s\n' "$all") <(printf '%s\n' "$layered" | grep . | sort -u))
several=$(printf '%s\n' "$layered" | grep . | sort | uniq -d)
echo "slow: $(names -L '^slow$' | grep -c . || true) of $total tests"
rc=0
[[ -z $none ]] || { echo "FAIL: tests without a layer label:"; echo "$none" | sed 's/^/  /'; rc=1; }
[[ -z $several ]] || { echo "FAIL: tests with more than one layer label:"; echo "$several" | sed 's/^/  /'; rc=1; }
[[ -z $unknown ]] || { echo "FAIL: labels outside the rule:"; echo "$unknown" | sed 's/^/  /'; rc=1; }
[[ $rc != 0 ]] || echo "test_labels: each of the $total tests has exactly one layer label"
exit $rc
