#!/usr/bin/env bash
# Formats pt2c's C and C++ sources with the style in .clang-format (clang-format 19).
#   tools/format.sh            rewrite every tracked .c/.cpp/.h/.hpp file in place
#   tools/format.sh --check    change nothing; list the files that differ, exit 1 if any
#   tools/format.sh FILE...    format (or with --check, check) only these files
# third_party/ is not ours and is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT=${CLANG_FORMAT:-$(command -v clang-format-19 || echo /usr/lib/llvm-19/bin/clang-format)}
[ -x "$CLANG_FORMAT" ] || { echo "format.sh: clang-format 19 not found (tools/setup.sh installs clang-format-19)" >&2; exit 2; }

check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- '*.c' '*.cpp' '*.h' '*.hpp' ':!third_party/')
fi

if [ "$check" -eq 0 ]; then
  "$CLANG_FORMAT" -i --style=file "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$CLANG_FORMAT" --style=file --dry-run --Werror "$f" > /dev/null 2>&1; then
    echo "not formatted: $f (run tools/format.sh $f)"
    bad=$((bad + 1))
  fi
done
echo "format: ${#files[@]} files checked, $bad not formatted"
[ "$bad" -eq 0 ]
