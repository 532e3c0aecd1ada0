#!/usr/bin/env bash
# Build machine side of tests/gpu/run_mlp_cuda.py: compiles examples/mlp/model.py (or
# another model.py) for CUDA and packs what the GPU machine needs (no Bazel or pt2c
# there) into one folder.
#   tests/gpu/make_mlp_cuda_bundle.sh OUT_DIR [--target cuda:sm_80,sm_90] [--model PATH]
# Then copy OUT_DIR to the GPU machine and run: python3 OUT_DIR/run_mlp_cuda.py OUT_DIR
# (checks), python3 OUT_DIR/bench.py OUT_DIR (timings against torch).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/lib/paths.sh
out=${1:?usage: make_mlp_cuda_bundle.sh OUT_DIR [--target cuda:...] [--model PATH]}
shift
target=cuda
model=examples/mlp/model.py
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=${2:?}; shift 2 ;;
    --model) model=${2:?}; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
# examples/mlp/model.py -> mlp_cuda.so; other.py -> other_cuda.so
name=$(basename "$model" .py)
[ "$name" = model ] && name=$(basename "$(dirname "$model")")

bazel build //tools/pt2c //examples/cpp_host >/dev/null
mkdir -p "$out/data"
bazel-bin/tools/pt2c/pt2c "$model" --target "$target" -o "$out/${name}_cuda.so"
install -m 755 bazel-bin/examples/cpp_host/cpp_host "$out/cpp_host"
install -m 755 tests/gpu/run_mlp_cuda.py "$out/run_mlp_cuda.py"
# bench.py runs model.py itself (torch eager and torch.compile on the GPU).
install -m 755 tests/gpu/bench.py "$out/bench.py"
install -m 755 tests/gpu/profile_kernels.py "$out/profile_kernels.py"
install -m 644 tools/eager_reference.py "$out/eager_reference.py"
install -m 644 "$model" "$out/model.py"
# Fresh inputs and PyTorch eager (CPU, fp32) outputs for them.
"$PT2C_VENV/bin/python" tools/eager_reference.py "$model" "$out/data" --seed 7
ls -l "$out" "$out/data"
