#!/usr/bin/env bash
# Build machine side of the fused attention kernels' GPU check: compiles
# tests/gpu/attention/attention_cases.py for CUDA in float16 and bfloat16 into one bundle
# folder each (make_mlp_cuda_bundle.sh: the .so, inputs, PyTorch eager outputs).
#   tests/gpu/make_attention_bundles.sh OUT_DIR
# On the GPU machine, from the repository root:
#   python3 OUT_DIR/float16/run_mlp_cuda.py OUT_DIR/float16 --tolerance 1e-2
#   python3 OUT_DIR/bfloat16/run_mlp_cuda.py OUT_DIR/bfloat16 --tolerance 1e-2
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: make_attention_bundles.sh OUT_DIR}
for dtype in float16 bfloat16; do
  PT2C_DTYPE=$dtype tests/gpu/make_mlp_cuda_bundle.sh "$out/$dtype" \
    --model tests/gpu/attention/attention_cases.py >/dev/null
  echo "$out/$dtype: $(du -sh "$out/$dtype" | cut -f1)"
done
