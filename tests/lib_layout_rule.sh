#!/usr/bin/env bash
# The layout rule of docs/design.md ("The library by area"): lib/src holds area folders only, and every source
# is named after a header it implements, public (lib/include/mixgraph/) or private (lib/src/<area>/): the
# header's name itself or the header's name followed by "_" (distances.hpp: distances_allpairs.cpp, ...).
# Usage: tests/lib_layout_rule.sh SOURCE_DIR   (ctest: lib_layout_rule)
cd "$1/lib" || exit 1
headers=$(find include/mixgraph src -name '*.hpp' -exec basename {} .hpp \; | sort -u)
bad=""
flat=$(find src -maxdepth 1 -type f -name '*.[ch]pp')
[[ -z $flat ]] || bad+="  outside an area folder: $(echo $flat)"$'\n'
count=0
while IFS= read -r f; do
  count=$((count + 1))
  b=$(basename "$f" .cpp)
  ok=0
  for h in $headers; do
    if [[ $b == "$h" || $b == "${h}"_* ]]; then ok=1; break; fi
  done
  [[ $ok == 1 ]] || bad+="  lib/$f names no header"$'\n'
done < <(find src -name '*.cpp' | sort)
[[ $count -gt 0 ]] || { echo "FAIL: no sources under lib/src"; exit 1; }
if [[ -n $bad ]]; then
  echo "FAIL: lib/src breaks the layout rule (docs/design.md, \"The library by area\"):"
  printf '%s' "$bad"
  exit 1
fi
echo "lib_layout_rule: the $count sources of lib/src sit in area folders, each named after its header"
