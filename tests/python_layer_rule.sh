#!/usr/bin/env bash
# The layering of docs/design.md ("Layers"): the Python package (python/) is a front end beside the CLI
# (tools/), not on top of it. No file under python/ includes a header of tools/ (by a tools/ path or by the
# name of a header that lives in tools/), and python/CMakeLists.txt links no CLI target (mixgraph_cli) and
# adds no tools/ include folder. What both front ends need lives in analysis/.
# Usage: tests/python_layer_rule.sh SOURCE_DIR   (ctest: python_layer_rule)
cd "$1" || exit 1
[[ -d python && -d tools ]] || { echo "FAIL: no python/ or tools/ under $1"; exit 1; }
bad=""
# Headers of tools/ by name (tools/x.hpp, tools/sub/y.hpp), so that a bare #include "x.hpp" is caught too.
mapfile -t tool_headers < <(cd tools && find . -name '*.hpp' | sed 's|^\./||' | sort)
[[ ${#tool_headers[@]} -gt 0 ]] || { echo "FAIL: no headers under tools/"; exit 1; }
mapfile -t py_headers < <(cd python && find . -name '*.hpp' -exec basename {} \; | sort -u)
count=0
while IFS= read -r f; do
  count=$((count + 1))
  while IFS= read -r line; do
    inc=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]+)[">].*/\1/' <<<"$line")
    if [[ $inc == tools/* || $inc == */tools/* ]]; then
      bad+="  $f: #include \"$inc\" (a tools/ path)"$'\n'
      continue
    fi
    [[ $inc == */* ]] && continue  # mixgraph/..., pybind11/..., CLI/...: not tools/'s own names
    local_py=0
    for h in "${py_headers[@]}"; do [[ $inc == "$h" ]] && { local_py=1; break; }; done
    [[ $local_py == 1 ]] && continue
    for h in "${tool_headers[@]}"; do
      if [[ $inc == "$h" || $inc == "$(basename "$h")" ]]; then
        bad+="  $f: #include \"$inc\" (tools/$h)"$'\n'
        break
      fi
    done
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$f")
done < <(find python -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
[[ $count -gt 0 ]] || { echo "FAIL: no C++ sources under python/"; exit 1; }
# The build: no CLI target linked, no tools/ folder on the include path (comments left out).
cm=$(sed 's/#.*//' python/CMakeLists.txt)
grep -qw 'mixgraph_cli' <<<"$cm" && bad+="  python/CMakeLists.txt links mixgraph_cli (the CLI)"$'\n'
grep -qE '(SOURCE_DIR[}]?|\.\.)/tools\b' <<<"$cm" && bad+="  python/CMakeLists.txt names a tools/ folder"$'\n'
if [[ -n $bad ]]; then
  echo "FAIL: python/ depends on tools/ (docs/design.md, \"Layers\": both front ends call analysis/):"
  printf '%s' "$bad"
  exit 1
fi
echo "python_layer_rule: the $count C++ files of python/ include nothing of tools/; python/CMakeLists.txt links no CLI target"
