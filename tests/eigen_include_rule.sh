#!/usr/bin/env bash
# The build-cost rule of docs/testing.md: code includes mixgraph/eigen_dense.hpp (the decompositions compiled
# once, in the library), never <Eigen/Dense>, <Eigen/SVD>, <Eigen/QR> or <Eigen/LU> directly.
# Usage: tests/eigen_include_rule.sh SOURCE_DIR   (ctest: eigen_include_rule)
cd "$1" || exit 1
bad=$(grep -rlE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<Eigen/(Dense|SVD|QR|LU)>' \
  lib tools tests python/src notebooks_export gpu bench 2>/dev/null |
  grep -vE '^(lib/include/mixgraph/eigen_dense\.hpp|lib/src/core/eigen_dense\.cpp)$')
if [ -n "$bad" ]; then
  echo "FAIL: include \"mixgraph/eigen_dense.hpp\" instead of Eigen's decomposition headers in:"
  echo "$bad" | sed 's/^/  /'
  exit 1
fi
echo "eigen_include_rule: every file includes mixgraph/eigen_dense.hpp"
