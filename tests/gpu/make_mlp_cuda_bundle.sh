#!/usr/bin/env bash
# Build machine side of tests/gpu/run_mlp_cuda.py: compiles examples/mlp/model.py for
# CUDA and packs what the GPU machine needs (no Bazel or pt2c there) into one folder.
#   tests/gpu/make_mlp_cuda_bundle.sh OUT_DIR [--target cuda:sm_80,sm_90]
# Then copy OUT_DIR to the GPU machine and run: python3 OUT_DIR/run_mlp_cuda.py OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/lib/paths.sh
out=${1:?usage: make_mlp_cuda_bundle.sh OUT_DIR [--target cuda:...]}
shift
target=cuda
if [ "${1:-}" = "--target" ]; then target=${2:?}; fi

bazel build //tools/pt2c //examples/cpp_host >/dev/null
mkdir -p "$out/data"
bazel-bin/tools/pt2c/pt2c examples/mlp/model.py --target "$target" -o "$out/mlp_cuda.so"
install -m 755 bazel-bin/examples/cpp_host/cpp_host "$out/cpp_host"
install -m 755 tests/gpu/run_mlp_cuda.py "$out/run_mlp_cuda.py"
# Fresh inputs and PyTorch eager (CPU, fp32) outputs for them.
"$PT2C_VENV/bin/python" tools/eager_reference.py examples/mlp/model.py "$out/data" --seed 7
ls -l "$out" "$out/data"
