#!/usr/bin/env bash
# The main job on the example: compile examples/mlp/model.py to a .so, then run it from
# the C++ example program (no Python involved) and print the error against PyTorch eager.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/lib/paths.sh
bazel build //tools/pt2c //examples/cpp_host 2>&1 | grep -E "ERROR|error:" >&2 || true
mkdir -p build/demo
bazel-bin/tools/pt2c/pt2c examples/mlp/model.py -o build/demo/mlp.so
"$PT2C_VENV/bin/python" tools/eager_reference.py examples/mlp/model.py build/demo --seed 42
bazel-bin/examples/cpp_host/cpp_host build/demo/mlp.so --input build/demo/input0.npy \
  --output-dir build/demo --reference build/demo/ref0.npy --tolerance 1e-5
