#!/usr/bin/env bash
# Installs mixgraph's build and test dependencies from Debian 12's packages.
# Usage: scripts/install-deps.sh [--with-python]   (root or sudo; safe to re-run)
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
PKGS=(
  build-essential cmake ninja-build pkg-config
  libboost-graph-dev libeigen3-dev libcli11-dev libgtest-dev libgmock-dev
  nlohmann-json3-dev libmuparser-dev libbenchmark-dev
  libglpk-dev libcairo2-dev libpng-dev libexpat1-dev fonts-dejavu-core
  python3-dev pybind11-dev python3-numpy
  clang-14 libclang-rt-14-dev
  openmpi-bin libopenmpi-dev
)
if [ "${1:-}" = "--with-python" ]; then
  PKGS+=(python3-networkx python3-nbformat jupyter-nbconvert python3-ipykernel
         python3-pandas python3-matplotlib python3-pytest python3-scipy python3-jsonschema
         python3-torch)   # CPU torch for the DLPack/no-copy tests: 157 packages, 48 MB, 7.7 min on a loaded 2-core machine
fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages already installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
