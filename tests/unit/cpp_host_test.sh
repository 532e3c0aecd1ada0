#!/bin/sh
# examples/cpp_host against tiny_model.so (y = (x + w) * 2): a passing run that writes
# outputs, a reference mismatch, and an input the model rejects.
# Usage: cpp_host_test.sh CPP_HOST MODEL.so TESTDATA_DIR
set -u
host=$1 model=$2 data=$3
out=${TEST_TMPDIR:-/tmp}/cpp_host_out
fail() { echo "FAIL: $*"; exit 1; }

"$host" "$model" --input "$data/tiny_model_x.npy" --output-dir "$out" \
  --reference "$data/tiny_model_y.npy" >"$out.log" 2>&1 || { cat "$out.log"; fail "good run"; }
grep -q "0 x: f32 \[2, 3\]" "$out.log" || fail "inputs not printed"
grep -q "output 0 (y): max|diff| = 0, max|ref| = 23, rel = 0" "$out.log" || fail "comparison line"
cmp -s "$out/0_y.npy" "$data/tiny_model_y.npy" || fail "0_y.npy differs from numpy's file"

if "$host" "$model" --input "$data/tiny_model_x.npy" --reference "$data/tiny_model_x.npy" \
  >"$out.log" 2>&1; then fail "a wrong reference passed"; fi
grep -q "rel = .*FAILED" "$out.log" || fail "no FAILED comparison"

if "$host" "$model" --input "$data/tiny_model_x_i64.npy" >/dev/null 2>"$out.err"; then
  fail "an i64 input was accepted"
fi
grep -q "error: input 0 ('x'): expected dtype f32, got i64" "$out.err" || fail "dtype message"
echo "OK"
