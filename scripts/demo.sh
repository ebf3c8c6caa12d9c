#!/usr/bin/env bash
# Newcomer command 1: install what is needed, build, and run the main job on a default pattern.
#   bash scripts/demo.sh            (on a fresh Debian 12 machine; uses sudo when not root)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --target mixgraph
echo
echo "== mixgraph pattern --pattern pow2 --n 4096 =="
./build/tools/mixgraph pattern --pattern pow2 --n 4096
echo
echo "== the same with its cache-efficient variant =="
./build/tools/mixgraph pattern --pattern pow2+cache --n 4096
