#!/usr/bin/env bash
# The distances speed targets with their peers, in one session (figures for docs/benchmarks.md).
#   bench/distances_bench.sh BUILD_DIR ANCHORS_DIR [CPUS]
# BUILD_DIR holds bench/bench_distances and tools/mixgraph; ANCHORS_DIR holds bgl_bfs.cpp and
# networkx_bfs.py (the peer scripts, kept outside this repository); CPUS (e.g. 0,1) pins everything with taskset. Every command is run
# under /usr/bin/time: on a shared machine compare CPU seconds as well as wall seconds.
set -euo pipefail
build=${1:-build}
anchors=${2:?ANCHORS_DIR (the folder with bgl_bfs.cpp and networkx_bfs.py) is required}
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
g++ -O2 -std=c++17 "$anchors/bgl_bfs.cpp" -o "$tmp/bgl_bfs"
for r in 1 2 3; do "${pin[@]}" "$b" source sq1 1e6 1; done
"${pin[@]}" "$tmp/bgl_bfs" 1000000 sq1
t0=$(now); "${pin[@]}" "$cli" distances --pattern sq1 --n 1e6 --source 1 --summary --format json >/dev/null; t1=$(now)
echo "mixgraph CLI whole process sq1 n=1e6 --source 1 (JSON with dist list): $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"

echo "## 3. single source: pow2, n = 2^17, whole process (mixgraph CLI vs NetworkX)"
for r in 1 2 3; do
  t0=$(now); "${pin[@]}" "$cli" distances --pattern pow2 --n 2^17 --source 1 --summary --format json >/dev/null; t1=$(now)
  echo "mixgraph CLI whole process pow2 n=131072 --source 1: $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"
done
t0=$(now); "${pin[@]}" /usr/bin/python3 "$anchors/networkx_bfs.py" 131072 pow2; t1=$(now)
echo "networkx whole process (python start, import, build, BFS): $(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") s"

echo "## 4. all pairs: pow2+cache, n = 2^16 (mixgraph vs Boost.Graph BFS from a subset of sources, extrapolated)"
"${pin[@]}" "$b" allpairs pow2+cache 2^16 256
"${pin[@]}" "$b" allpairs pow2+cache 2^16 64
"${pin[@]}" "$b" bgl-allpairs pow2+cache 2^16 1024
