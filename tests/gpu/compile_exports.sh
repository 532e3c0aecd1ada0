#!/usr/bin/env bash
# Build machine side of tests/gpu/export_with_torch.sh: compiles every artifact of its
# tarball with this checkout's pt2c and runs each .so (examples/cpp_host, no Python) on
# the inputs made there, against the eager outputs of the torch that exported it.
#   tests/gpu/compile_exports.sh EXPORTS.tar.gz [--tolerance 1e-4]
# Prints one line per model and `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
tarball=${1:?usage: compile_exports.sh EXPORTS.tar.gz [--tolerance T]}
tolerance=1e-4
[ "${2:-}" = --tolerance ] && tolerance=${3:?}
bazel build //tools/pt2c //examples/cpp_host >/dev/null 2>&1 || { echo "bazel build failed"; exit 1; }
work=$(mktemp -d)
tar -C "$work" -xzf "$tarball"
cat "$work/versions.txt"
[ -f "$work/exporter_tests.log" ] && tail -n 1 "$work/exporter_tests.log" | sed 's/^/exporter tests there: /'
passed=0
failed=0
for artifact in "$work"/*/model.pt2c; do
  dir=$(dirname "$artifact")
  name=$(basename "$dir")
  cmd=(bazel-bin/examples/cpp_host/cpp_host "$dir/model.so" --output-dir "$dir/out"
       --tolerance "$tolerance")
  for i in $(ls "$dir/data" | grep -oE '^input[0-9]+' | grep -oE '[0-9]+' | sort -n); do
    cmd+=(--input "$dir/data/input$i.npy")
  done
  for i in $(ls "$dir/data" | grep -oE '^ref[0-9]+' | grep -oE '[0-9]+' | sort -n); do
    cmd+=(--reference "$dir/data/ref$i.npy")
  done
  if bazel-bin/tools/pt2c/pt2c compile "$artifact" -q -o "$dir/model.so" 2> "$dir/compile.log" &&
     "${cmd[@]}" > "$dir/run.log" 2>&1; then
    echo "PASS $name: $(grep -h 'rel =' "$dir/run.log" | sed 's/.*rel = /rel /' | tr '\n' ' ')"
    passed=$((passed + 1))
  else
    echo "FAIL $name"; cat "$dir/compile.log" "$dir/run.log" 2>/dev/null | tail -n 5
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
