#!/bin/sh
# Merges the objects of several static archives into one deterministic archive.
# Usage: merge_archives.sh AR OUTPUT INPUT...
# Inputs that are not archives (e.g. a cc_library's other outputs) are ignored; when a
# library has both lib.a and lib.pic.a, the PIC one wins.
set -eu
ar_tool=$1
output=$2
shift 2
case "$ar_tool" in /*) ;; *) ar_tool="$PWD/$ar_tool" ;; esac
case "$output" in /*) ;; *) output="$PWD/$output" ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
index=0
for input in "$@"; do
  case "$input" in
    *.pic.a) ;;
    *.a) [ -e "${input%.a}.pic.a" ] && continue ;;
    *) continue ;;
  esac
  # One directory per archive so that equal member names cannot overwrite each other.
  index=$((index + 1))
  mkdir "$work/$index"
  case "$input" in /*) ;; *) input="$PWD/$input" ;; esac
  (cd "$work/$index" && "$ar_tool" x "$input")
done
# ar keeps member basenames only: a duplicate would silently replace an object.
duplicates=$(cd "$work" && find . -name '*.o' -exec basename {} \; | sort | uniq -d)
if [ -n "$duplicates" ]; then
  echo "merge_archives.sh: duplicate object names: $duplicates" >&2
  exit 1
fi
rm -f "$output"
(cd "$work" && find . -name '*.o' | LC_ALL=C sort | xargs "$ar_tool" rcsD "$output")
