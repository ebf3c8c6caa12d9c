#!/usr/bin/env bash
# Regenerates docs/claims.md from `mixgraph verify --format json` at each claim's default range.
#   bash scripts/update-claims-doc.sh [path/to/mixgraph]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/tools/mixgraph}
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
"$bin" verify --format json | /usr/bin/python3 scripts/claims_doc.py "$commit" > docs/claims.md.tmp
mv docs/claims.md.tmp docs/claims.md
echo "wrote docs/claims.md"
