#!/usr/bin/env bash
# Build machine side of tests/gpu/run_mlp_cuda.py: compiles examples/mlp/model.py (or
# another model.py) for CUDA and packs what the GPU machine needs (no Bazel or pt2c
# there) into one folder.
#   tests/gpu/make_mlp_cuda_bundle.sh OUT_DIR [--target cuda:sm_80,sm_90] [--model PATH]
#                                     [--external-weights]
# Then copy OUT_DIR to the GPU machine and run: python3 OUT_DIR/run_mlp_cuda.py OUT_DIR
# (checks), python3 OUT_DIR/bench.py OUT_DIR (timings against torch).
# --external-weights (models too big to carry): the .so is compiled with
# --external-weights and the bundle holds its recipe (NAME_cuda.so.weights.json, and the
# .derived side file if any) and the exporter instead of the weights file; on the GPU
# machine, make it first (bench_zoo.py does):
#   PYTHONPATH=OUT_DIR python3 -m pt2c_exporter weights OUT_DIR/model.py \
#       --recipe OUT_DIR/NAME_cuda.so.weights.json -o OUT_DIR/NAME_cuda.so.weights
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/lib/paths.sh
out=${1:?usage: make_mlp_cuda_bundle.sh OUT_DIR [--target cuda:...] [--model PATH]}
shift
target=cuda
model=examples/mlp/model.py
external=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=${2:?}; shift 2 ;;
    --model) model=${2:?}; shift 2 ;;
    --external-weights) external=(--external-weights); shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
# examples/mlp/model.py -> mlp_cuda.so; other.py -> other_cuda.so
name=$(basename "$model" .py)
[ "$name" = model ] && name=$(basename "$(dirname "$model")")

bazel build //tools/pt2c //examples/cpp_host >/dev/null
mkdir -p "$out/data"
bazel-bin/tools/pt2c/pt2c "$model" --target "$target" "${external[@]}" -o "$out/${name}_cuda.so"
if [ ${#external[@]} -gt 0 ]; then
  # The weights stay here; the GPU machine remakes them from model.py with the exporter.
  rm "$out/${name}_cuda.so.weights"
  mkdir -p "$out/pt2c_exporter"
  install -m 644 compiler/exporter/pt2c_exporter/*.py "$out/pt2c_exporter/"
fi
install -m 755 bazel-bin/examples/cpp_host/cpp_host "$out/cpp_host"
install -m 755 tests/gpu/run_mlp_cuda.py "$out/run_mlp_cuda.py"
# bench.py runs model.py itself (torch eager and torch.compile on the GPU).
install -m 755 tests/gpu/bench.py "$out/bench.py"
install -m 755 tests/gpu/profile_kernels.py "$out/profile_kernels.py"
install -m 755 tests/gpu/creates.py "$out/creates.py"
install -m 644 tools/eager_reference.py "$out/eager_reference.py"
install -m 644 "$model" "$out/model.py"
# Fresh inputs and PyTorch eager (CPU, fp32) outputs for them.
"$PT2C_VENV/bin/python" tools/eager_reference.py "$model" "$out/data" --seed 7
ls -l "$out" "$out/data"
