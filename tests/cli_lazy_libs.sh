#!/usr/bin/env bash
# Start-up cost: `mixgraph` maps MPI's libraries only under an MPI launcher and cairo's only when it draws a
# figure (docs/benchmarks.md, "Start-up"). Read from the dynamic loader's own trace (LD_DEBUG=files), so a
# library linked at start again, or loaded by a call that draws nothing, fails this test.
# Usage: tests/cli_lazy_libs.sh path/to/mixgraph MPI(ON|OFF) CAIRO(ON|OFF)   (ctest: cli_lazy_libs)
set -u
M=$(realpath "$1")
MPI=$2
CAIRO=$3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

# loaded NAME... : the shared objects the loader opened while running the command, one per line
loaded() { LD_DEBUG=files "$@" 2>&1 >/dev/null | sed -nE 's/^ *[0-9]+:[[:space:]]*file=([^ ]+) .*/\1/p' | sort -u; }
has() { grep -qE "(^|/)$2" <<<"$1"; }

for cmd in "--version" "pattern -p pow2 --n 1024" "distances -p sq1 --n 256 --summary"; do
  # shellcheck disable=SC2086
  libs=$(loaded "$M" $cmd)
  has "$libs" "libstdc\+\+" || fail "the loader trace of '$cmd' is empty or unreadable: $libs"
  has "$libs" "libmpi" && fail "'mixgraph $cmd' loaded MPI without a launcher"
  has "$libs" "libcairo" && fail "'mixgraph $cmd' loaded cairo without drawing"
done

if [ "$CAIRO" = ON ]; then
  libs=$(loaded "$M" report -p window:2 --n 16 --out rep --progress never)
  compgen -G "rep/figures/*.png" >/dev/null || fail "report drew no figure"
  has "$libs" "libcairo.so" || fail "report drew figures but the trace shows no cairo: $libs"
  has "$libs" "libmpi" && fail "report loaded MPI without a launcher"
fi

if [ "$MPI" = ON ] && command -v mpirun >/dev/null; then
  out=$(LD_DEBUG=files mpirun --allow-run-as-root --oversubscribe -np 1 "$M" --version 2>&1)
  grep -qE "file=[^ ]*libmixgraph_mpi.so" <<<"$out" || fail "under mpirun the MPI plugin was not loaded"
  grep -qE "file=[^ ]*libmpi.so" <<<"$out" || fail "under mpirun libmpi was not loaded"
fi

[ "$fails" = 0 ] && echo "cli_lazy_libs: all checks passed"
exit $((fails > 0))
