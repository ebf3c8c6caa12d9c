#!/usr/bin/env bash
# The distances speed targets with their peers, in one session (figures for docs/benchmarks.md).
#   bench/distances_bench.sh BUILD_DIR [PEER_DIR|- [CPUS]]
# BUILD_DIR holds bench/bench_distances and tools/mixgraph. PEER_DIR (optional; "-" or empty: none) is a
# folder with two single-source peers that mixgraph does not ship: bgl_bfs.cpp (a Boost.Graph BFS, run as
# `bgl_bfs N SPEC`) and networkx_bfs.py (NetworkX, run as `networkx_bfs.py N SPEC`); without it those two
# peer lines are left out and the in-tree Boost.Graph all-pairs peer still runs. CPUS (e.g. 0,1) pins
# everything with taskset. Every command is run
# under /usr/bin/time: on a shared machine compare CPU seconds as well as wall seconds.
set -euo pipefail
build=${1:-build}
anchors=${2:-}
[[ "$anchors" == "-" ]] && anchors=""
cpus=${3:-}
pin=(/usr/bin/time -f "  [wall %e s, cpu user+sys %U+%S s, max rss %M KB]")
if [[ -n "$cpus" ]]; then
  pin=("${pin[@]}" taskset -c "$cpus")
  export OMP_NUM_THREADS=$(( $(tr -cd , <<<"$cpus" | wc -c) + 1 ))
fi
b="$build/bench/bench_distances"
cli="$build/tools/mixgraph"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
echo "# $(date -u +%FT%TZ) $(lscpu | grep 'Model name' | sed 's/  */ /g') cpus=${cpus:-all} OMP_NUM_THREADS=${OMP_NUM_THREADS:-default}"

echo "## 1. profiles at n = 10^8"
for spec in pow2 expr:3^k random27 random27log; do
  for m in bitset-bfs dp auto; do "${pin[@]}" "$b" profile "$spec" 1e8 "$m"; done
done

for spec in pow2 expr:3^k; do
  t0=$(now); "${pin[@]}" "$cli" distances --pattern "$spec" --n 1e8 --summary --format json >/dev/null; t1=$(now)
  echo "mixgraph CLI whole process $spec n=1e8 --summary (profile + diameter, mean, histogram): $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"
done

echo "## 2. single source: sq1, n = 10^6 (mixgraph vs Boost.Graph, same graph)"
for r in 1 2 3; do "${pin[@]}" "$b" source sq1 1e6 1; done
if [[ -n "$anchors" ]]; then
  g++ -O2 -std=c++17 "$anchors/bgl_bfs.cpp" -o "$tmp/bgl_bfs"
  "${pin[@]}" "$tmp/bgl_bfs" 1000000 sq1
else
  echo "(no PEER_DIR: the Boost.Graph single-source peer is left out)"
fi
t0=$(now); "${pin[@]}" "$cli" distances --pattern sq1 --n 1e6 --source 1 --summary --format json >/dev/null; t1=$(now)
echo "mixgraph CLI whole process sq1 n=1e6 --source 1 (JSON with dist list): $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"

echo "## 3. single source: pow2, n = 2^17, whole process (mixgraph CLI vs NetworkX)"
for r in 1 2 3; do
  t0=$(now); "${pin[@]}" "$cli" distances --pattern pow2 --n 2^17 --source 1 --summary --format json >/dev/null; t1=$(now)
  echo "mixgraph CLI whole process pow2 n=131072 --source 1: $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"
done
if [[ -n "$anchors" ]]; then
  t0=$(now); "${pin[@]}" /usr/bin/python3 "$anchors/networkx_bfs.py" 131072 pow2; t1=$(now)
  echo "networkx whole process (python start, import, build, BFS): $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"
else
  echo "(no PEER_DIR: the NetworkX peer is left out)"
fi

echo "## 4. all pairs: pow2+cache, n = 2^16 (mixgraph vs Boost.Graph BFS from a subset of sources, extrapolated)"
"${pin[@]}" "$b" allpairs pow2+cache 2^16 256
"${pin[@]}" "$b" allpairs pow2+cache 2^16 64
"${pin[@]}" "$b" bgl-allpairs pow2+cache 2^16 1024
