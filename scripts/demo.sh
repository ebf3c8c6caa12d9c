#!/usr/bin/env bash
# Newcomer command 1: install what is needed, build, and run the main job, `mixgraph report`, on the
# default patterns.
#   bash scripts/demo.sh            (on a fresh Debian 12 machine; uses sudo when not root)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target mixgraph
echo
echo "== mixgraph report --out mixgraph-report --force  (pow2, pow2+cache, sq1, sq1+cache, ssm at n = 1024) =="
./build/tools/mixgraph report --out mixgraph-report --force
echo
echo "Open mixgraph-report/report.md, or mixgraph-report/report.ipynb in Jupyter (outputs already rendered)."
