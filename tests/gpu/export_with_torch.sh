#!/usr/bin/env bash
# Exports model.py files with whatever torch this machine's python3 has (the GPU machine's
# torch 2.11, say) and packs the artifacts with fresh inputs and that torch's eager
# outputs into one tarball; tests/gpu/compile_exports.sh compiles and checks them on the
# build machine. Needs no Bazel and no pt2c binary: only this checkout, python3 with
# torch (and transformers for the transformers examples), and the generated
# pt2c_pb2.py (PT2C_PB2_DIR; copy bazel-bin/ir/artifact/pt2c_pb2.py along).
#   tests/gpu/export_with_torch.sh OUT.tar.gz [--exporter-tests] MODEL.py...
# --exporter-tests first runs tests/exporter under this torch (its log goes in the tarball).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: export_with_torch.sh OUT.tar.gz [--exporter-tests] MODEL.py...}
shift
: "${PT2C_PB2_DIR:?set PT2C_PB2_DIR to the folder holding pt2c_pb2.py}"
PY=${PYTHON:-python3}
work=$(mktemp -d)
"$PY" -c 'import sys, torch; print(f"python {sys.version.split()[0]}, torch {torch.__version__}")' \
  | tee "$work/versions.txt"
"$PY" -c 'import transformers; print(f"transformers {transformers.__version__}")' \
  >> "$work/versions.txt" 2>/dev/null

if [ "${1:-}" = --exporter-tests ]; then
  shift
  PT2C_PB2_DIR=$PT2C_PB2_DIR "$PY" -m pytest -q -p no:cacheprovider tests/exporter \
    > "$work/exporter_tests.log" 2>&1
  tail -n 3 "$work/exporter_tests.log"
fi

status=0
for model in "$@"; do
  # examples/bert/model.py -> bert
  name=$(basename "$model" .py)
  [ "$name" = model ] && name=$(basename "$(dirname "$model")")
  mkdir -p "$work/$name"
  start=$(date +%s.%N)
  if PYTHONPATH="compiler/exporter:$PT2C_PB2_DIR" "$PY" -m pt2c_exporter "$model" \
       -o "$work/$name/model.pt2c" > "$work/$name/export.log" 2>&1 &&
     "$PY" tools/eager_reference.py "$model" "$work/$name/data" --seed 7 \
       >> "$work/$name/export.log" 2>&1; then
    echo "$name: exported in $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }") s"
  else
    echo "$name: FAILED (see $name/export.log in the tarball)"; tail -n 5 "$work/$name/export.log"
    status=1
  fi
done
tar -C "$work" -czf "$out" .
echo "wrote $out"
exit $status
