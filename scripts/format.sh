#!/usr/bin/env bash
# Formats the C++ sources with clang-format and the repository's .clang-format;
#   scripts/format.sh           rewrites the files in place
#   scripts/format.sh --check   changes nothing, lists the files that differ, exits 1 if any does
# CLANG_FORMAT names the program (default: clang-format-14, else clang-format).
set -euo pipefail
cd "$(dirname "$0")/.."
cf=${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}
if [ -z "$cf" ]; then
  echo "format.sh: clang-format not found (Debian: apt-get install clang-format-14)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu')
if [ "${1:-}" = --check ]; then
  bad=0
  for f in "${files[@]}"; do
    if ! "$cf" --style=file "$f" | cmp -s - "$f"; then echo "not formatted: $f"; bad=1; fi
  done
  [ $bad = 0 ] && echo "format.sh: ${#files[@]} files formatted as .clang-format says ($("$cf" --version))"
  exit $bad
fi
"$cf" --style=file -i "${files[@]}"
