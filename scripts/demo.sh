#!/usr/bin/env bash
# Newcomer command 1: install what is needed, build, and run the main job, `mixgraph report`, on the
# default patterns; also builds the `mixgraph` Python package and installs it for /usr/bin/python3.
#   bash scripts/demo.sh            (on a fresh Debian 12 machine; uses sudo when not root)
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMIXGRAPH_PYTHON=ON -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build --target mixgraph mixgraph_python
$SUDO cmake --install build --component python
echo
echo "== mixgraph report --out mixgraph-report --force  (pow2, pow2+cache, sq1, sq1+cache, ssm at n = 1024) =="
./build/tools/mixgraph report --out mixgraph-report --force
echo
echo "Open mixgraph-report/report.md, or mixgraph-report/report.ipynb in Jupyter (outputs already rendered)."
echo "From Python (docs/python.md): /usr/bin/python3 -c \"import mixgraph; print(mixgraph.Pattern('pow2', 1 << 20).decode_cost().max())\""
