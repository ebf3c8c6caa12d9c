#!/usr/bin/env bash
# verify --n-max 2^24 (the option's bound) for every claim, one at a time: each must finish (no hang: a
# generous 300 s limit per claim, for loaded machines; unloaded each takes seconds), exit 0 and give a
# verdict that is not an ERROR; the checks whose work grows faster than n must say that they clamped n to
# their limit, and the others must not.
# Usage: tests/cli_verify_limits.sh path/to/mixgraph      (run by ctest as cli_verify_limits, label slow)
set -u
M=$(realpath "$1")
py=/usr/bin/python3
limited=" fagnou.prop4.4 fagnou.cache-rank-bound fagnou.cache-chain fagnou.prop4.2 fagnou.prop4.12 fagnou.prop4.12.steps ghodsi.heads \
ghodsi.rank-gap fagnou.eq1-eq2 fagnou.weight-sharing "
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
fails=0
ids=$("$M" verify --list --format csv | tail -n +2 | cut -d, -f1)
[[ -n $ids ]] || { echo "FAIL: verify --list gave no claim"; exit 1; }
for id in $ids; do
  start=$(date +%s)
  timeout 300 "$M" verify --claim "$id" --n-max 16777216 --format json >"$OUT" 2>/dev/null
  rc=$?
  secs=$(($(date +%s) - start))
  if [[ $rc != 0 ]]; then
    echo "FAIL $id: exit $rc after ${secs} s"
    fails=$((fails + 1))
    continue
  fi
  want=no
  [[ $limited == *" $id "* ]] && want=yes
  if ! msg=$("$py" - "$OUT" "$id" "$want" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["claims"][0]
clamped = "--n-max 16777216 clamped to " in c["checked"] and "this check's limit" in c["checked"]
if c["id"] != sys.argv[2] or c["status"] == "ERROR":
    print(f'{c["status"]}: {c["error"]}')
    sys.exit(1)
if clamped != (sys.argv[3] == "yes"):
    print(f'clamped = {clamped}, expected {sys.argv[3]}: checked = {c["checked"]}')
    sys.exit(1)
print(f'{c["status"]}, {c["seconds"]:.1f} s; checked: {c["checked"][-90:]}')
EOF
  ); then
    echo "FAIL $id: $msg"
    fails=$((fails + 1))
  else
    echo "ok   $id: $msg"
  fi
done
echo "$fails failure(s)"
[[ $fails == 0 ]]
