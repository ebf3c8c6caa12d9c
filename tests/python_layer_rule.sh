#!/usr/bin/env bash
# The layering of docs/design.md ("Layers"): the two front ends, the CLI (tools/) and the Python package
# (python/), stand side by side over the query layer (analysis/). No file under python/ includes a header of
# tools/, and no file under analysis/ one of tools/ or python/ (by a path through that folder, or by the bare
# name of a header that lives only there); python/CMakeLists.txt links no CLI target (mixgraph_cli) and puts no
# tools/ folder on the include path.
# Usage: tests/python_layer_rule.sh SOURCE_DIR   (ctest: python_layer_rule)
cd "$1" || exit 1
[[ -d python && -d tools && -d analysis ]] || { echo "FAIL: no python/, tools/ or analysis/ under $1"; exit 1; }
bad=""
count=0
headers() { (cd "$1" && find . -name '*.hpp' -o -name '*.h' -o -name '*.cuh') | xargs -r -n1 basename | sort -u; }
# check DIR UPPER...: the C++ files of DIR include nothing of the folders UPPER.
check() {
  local dir=$1 up inc f
  shift
  local own
  own=$(headers "$dir")
  while IFS= read -r f; do
    count=$((count + 1))
    while IFS= read -r inc; do
      for up in "$@"; do
        if [[ $inc == "$up"/* || $inc == */"$up"/* ]]; then
          bad+="  $f: #include \"$inc\" (a $up/ path)"$'\n'
        elif [[ $inc != */* ]] && ! grep -qxF "$inc" <<<"$own" && grep -qxF "$inc" <<<"$(headers "$up")"; then
          bad+="  $f: #include \"$inc\" (a header of $up/)"$'\n'
        fi
      done
    done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]+)[">].*/\1/p' "$f")
  done < <(find "$dir" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
}
check python tools
check analysis tools python
[[ $count -gt 0 ]] || { echo "FAIL: no C++ sources under python/ or analysis/"; exit 1; }
# The build: no CLI target linked, no tools/ folder on the include path (comments left out).
cm=$(sed 's/#.*//' python/CMakeLists.txt)
grep -qw 'mixgraph_cli' <<<"$cm" && bad+="  python/CMakeLists.txt links mixgraph_cli (the CLI)"$'\n'
grep -qE '(SOURCE_DIR[}]?|\.\.)/tools\b' <<<"$cm" && bad+="  python/CMakeLists.txt names a tools/ folder"$'\n'
if [[ -n $bad ]]; then
  echo "FAIL: a front end or the query layer reaches into tools/ (docs/design.md, \"Layers\"):"
  printf '%s' "$bad"
  exit 1
fi
echo "python_layer_rule: the $count C++ files of python/ and analysis/ include nothing of tools/ (nor analysis/ of" \
  "python/); python/CMakeLists.txt links no CLI target"
