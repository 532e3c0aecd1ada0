#!/usr/bin/env bash
# Build machine side of tests/gpu/bench_zoo.py: the zoo of tests/e2e/test_cuda_zoo.py
# compiled for CUDA, one make_mlp_cuda_bundle.sh folder per model (NAME_cuda.so,
# model.py, fresh inputs and PyTorch eager CPU fp32 references in data/, cpp_host,
# run_mlp_cuda.py, bench.py), plus bench_zoo.py at the top.
#   tests/gpu/make_zoo_cuda_bundle.sh OUT_DIR [--max-mib 60] [--target cuda:...]
#                                     [--external-weights] [NAME...]
# Without names, the models whose .so is small (the bundle must travel: models with big
# weights are left out). A model that would take the bundle past --max-mib is left out
# too and listed in OUT_DIR/SKIPPED.txt. Then copy OUT_DIR to the GPU machine and run
#   python3 OUT_DIR/bench_zoo.py OUT_DIR [NAME...]
# --external-weights: the models' weights stay here (make_mlp_cuda_bundle.sh
# --external-weights); bench_zoo.py remakes them from model.py on the GPU machine. Only
# the parameters and buffers stay: weights the compiler folded (a CNN's convolutions with
# their batch norm: 42.6 of resnet18's 44.6 MiB) travel in the .derived side file, which
# counts against --max-mib.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/lib/paths.sh
usage="usage: make_zoo_cuda_bundle.sh OUT_DIR [--max-mib N] [--target cuda:...] [--external-weights] [NAME...]"
out=${1:?$usage}
shift
max_mib=60
target=cuda
names=()
external=()
while [ $# -gt 0 ]; do
  case "$1" in
    --max-mib) max_mib=${2:?}; shift 2 ;;
    --external-weights) external=(--external-weights); shift ;;
    --target) target=${2:?}; shift 2 ;;
    -*) echo "unknown option $1; $usage" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
if [ ${#names[@]} -eq 0 ]; then
  # Smallest first; together about 55 MiB with sm_80 + sm_90 cubins.
  names=(mlp gpt_block transformer bert gpt2 llama gru_initial_state lstm_bidirectional
         squeezenet1_1 mobilenet_v3_small timm_convnext_atto mobilenet_v2)
fi
if [ -e "$out" ] && [ ! -f "$out/bench_zoo.py" ]; then
  echo "$out exists and is not a zoo bundle; choose a new folder" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out"
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
"$PT2C_VENV/bin/python" tests/e2e/test_cuda_zoo.py --write-models "$models" "${names[@]}" >/dev/null
install -m 755 tests/gpu/bench_zoo.py "$out/bench_zoo.py"
: > "$out/SKIPPED.txt"
for name in "${names[@]}"; do
  start=$(date +%s)
  if ! tests/gpu/make_mlp_cuda_bundle.sh "$out/$name" --target "$target" "${external[@]}" \
       --model "$models/$name/model.py" > "$out/$name.log" 2>&1; then
    echo "$name: FAILED, see $out/$name.log" >&2
    exit 1
  fi
  rm "$out/$name.log"
  so_mib=$(( $(stat -c %s "$out/$name/${name}_cuda.so") / 1048576 ))
  total_mib=$(( $(du -sb "$out" | cut -f1) / 1048576 ))
  if [ "$total_mib" -gt "$max_mib" ]; then
    rm -rf "${out:?}/$name"
    echo "$name: left out, its .so is $so_mib MiB (the bundle's limit is $max_mib MiB)" \
      | tee -a "$out/SKIPPED.txt"
    continue
  fi
  echo "$name: $so_mib MiB .so, built in $(( $(date +%s) - start )) s; bundle $total_mib MiB"
done
# What the models' model.py files load from beside their folders (resnet18_fp16 reads
# ../resnet18/model.py), for bench.py's torch runs on the GPU machine.
for extra in "$models"/*; do
  base=$(basename "$extra")
  case " ${names[*]} " in *" $base "*) continue ;; esac
  cp -r "$extra" "$out/$base"
done
du -sh "$out"
