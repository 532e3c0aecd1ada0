#!/bin/sh
# Checks a linked model.so: NEEDED lists only libc/libm/libdl/libpthread, and the dynamic
# symbol table exports exactly the pt2c C ABI.
# Usage: check_model_so.sh MODEL.so
set -eu
model=$1
status=0

needed=$(readelf -d "$model" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for library in $needed; do
  case "$library" in
    libc.so.6 | libm.so.6 | libdl.so.2 | libpthread.so.0) ;;
    *) echo "FAIL: $model needs $library"; status=1 ;;
  esac
done

exported=$(nm -D --defined-only "$model" | awk '{print $3}' | LC_ALL=C sort | tr '\n' ' ')
expected="pt2c_abi_version pt2c_context_create pt2c_context_destroy \
pt2c_context_last_output_shape pt2c_context_read_state \
pt2c_context_reset_state pt2c_context_run pt2c_context_run_method pt2c_context_write_state \
pt2c_dtype_size pt2c_last_error pt2c_model_create \
pt2c_model_create_with_weights pt2c_model_destroy pt2c_model_device pt2c_model_dynamic_dim_info pt2c_model_find_graph \
pt2c_model_graph_info pt2c_model_graph_input_info pt2c_model_graph_output_info \
pt2c_model_graph_output_shape pt2c_model_input_info pt2c_model_last_output_shape \
pt2c_model_num_dynamic_dims pt2c_model_num_graphs \
pt2c_model_num_inputs pt2c_model_num_outputs pt2c_model_num_states pt2c_model_output_info \
pt2c_model_output_shape pt2c_model_read_state pt2c_model_reset_state pt2c_model_run \
pt2c_model_run_device pt2c_model_run_method pt2c_model_state_info pt2c_model_write_state \
pt2c_num_threads pt2c_set_num_threads "
if [ "$exported" != "$expected" ]; then
  echo "FAIL: $model exports: $exported"
  echo "      expected:       $expected"
  status=1
fi

# Calls between ABI functions must stay inside the model when several are loaded.
if ! readelf -d "$model" | grep -q SYMBOLIC; then
  echo "FAIL: $model was not linked with -Bsymbolic"
  status=1
fi
[ $status -eq 0 ] && echo "OK: NEEDED = $needed; exports = the pt2c ABI"
exit $status
