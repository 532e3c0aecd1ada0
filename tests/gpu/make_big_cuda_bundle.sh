#!/usr/bin/env bash
# Build machine side of the models too big to carry: BERT-base fp16 (transformers'
# BertModel, bert-base config, random weights, batch 1, sequence 128) and ViT-B/16 fp16
# (torchvision's vit_b_16, batch 1), compiled for CUDA with --external-weights. Each
# folder is a make_mlp_cuda_bundle.sh folder without the weights file: NAME_cuda.so, its
# recipe NAME_cuda.so.weights.json (and .derived side file, if any), model.py, the
# exporter (pt2c_exporter/), fresh inputs and CPU eager references in data/, bench.py,
# run_mlp_cuda.py, cpp_host; bench_zoo.py at the top.
#   tests/gpu/make_big_cuda_bundle.sh OUT_DIR [--target cuda:...] [NAME...]
# NAME: bert_base_fp16, vit_b16_fp16 (examples/NAME/model.py; default both), or a model of
# the CUDA bench set, tests/gpu/bench_set/NAME.py (llama_gqa_fp16, deit_small_fp16,
# segformer_b0, mobilevit_s, resnet50[_fp16], efficientnet_b0[_fp16]). Then copy
# OUT_DIR to the GPU machine (python3 with torch + CUDA, transformers, torchvision) and run
#   python3 OUT_DIR/bench_zoo.py OUT_DIR --tolerance 1e-2
# which first makes each NAME_cuda.so.weights with `python -m pt2c_exporter weights`
# (checked piece by piece against the recipe), then checks and times each model.
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: make_big_cuda_bundle.sh OUT_DIR [--target cuda:...] [NAME...]"
out=${1:?$usage}
shift
target=cuda
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=${2:?}; shift 2 ;;
    -*) echo "unknown option $1; $usage" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
[ ${#names[@]} -eq 0 ] && names=(bert_base_fp16 vit_b16_fp16)
if [ -e "$out" ] && [ ! -f "$out/bench_zoo.py" ]; then
  echo "$out exists and is not a bundle; choose a new folder" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out"
install -m 755 tests/gpu/bench_zoo.py "$out/bench_zoo.py"
# The models load it from one folder above their model.py.
install -m 644 examples/seeded_weights.py "$out/seeded_weights.py"
install -m 644 tests/gpu/bench_set/bench_models.py "$out/bench_models.py"
for name in "${names[@]}"; do
  model=examples/$name/model.py
  [ -f "$model" ] || model=tests/gpu/bench_set/$name.py
  [ -f "$model" ] || { echo "no examples/$name/model.py or $model" >&2; exit 2; }
  start=$(date +%s)
  if ! tests/gpu/make_mlp_cuda_bundle.sh "$out/$name" --target "$target" --model "$model" \
       --external-weights > "$out/$name.log" 2>&1; then
    echo "$name: FAILED, see $out/$name.log" >&2
    exit 1
  fi
  # An example may build on a sibling's model.py (examples/resnet18_fp16 loads
  # ../resnet18/model.py); the exporter needs it beside, on the GPU machine too.
  for sibling in $(grep -oE '"[A-Za-z0-9_]+" / "model.py"' "$model" | cut -d'"' -f2); do
    install -D -m 644 "examples/$sibling/model.py" "$out/$sibling/model.py"
  done
  grep -E "^pt2c: (link|weights)" "$out/$name.log" || true
  rm "$out/$name.log"
  echo "$name: built in $(( $(date +%s) - start )) s"
done
du -sh "$out"
