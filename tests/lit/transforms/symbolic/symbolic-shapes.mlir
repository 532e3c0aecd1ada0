// RUN: pt2c-opt %s -split-input-file -pt2c-symbolic-shapes -verify-diagnostics | FileCheck %s
// RUN: pt2c-opt %s -split-input-file -pt2c-prim-to-kernels -verify-diagnostics | FileCheck %s --check-prefix=KERNELS

// Sizes of [batch, seq, 16] flow through elementwise ops, a reshape whose size is
// index arithmetic on prim.dim_size, a transpose, a dot_general and a reduce; every
// dynamic result is annotated, and prim.dim_size becomes arithmetic on prim.symbol.
// CHECK-LABEL: func.func @attention_sizes(
// CHECK-NOT: prim.dim_size
// CHECK-DAG: %[[B:.*]] = prim.symbol "batch", 0
// CHECK-DAG: %[[S:.*]] = prim.symbol "seq", 1
// CHECK: %[[N:.*]] = arith.muli %[[B]], %[[S]] : index
// CHECK: prim.reshape %{{.*}} sizes(%[[N]]) {pt2c.result_dims = {{\[}}["batch*seq", "16"]]}
// CHECK: prim.transpose {{.*}}pt2c.result_dims = {{\[}}["16", "batch*seq"]]
// CHECK: prim.dot_general {{.*}}pt2c.result_dims = {{\[}}["batch*seq", "batch*seq"]]
// CHECK: prim.reduce {{.*}}pt2c.result_dims = {{\[}}["batch*seq"]]
// KERNELS-LABEL: func.func private @attention_sizes_kernel_{{[0-9]+}}(
// KERNELS-SAME: pt2c.kernel_dims = {{\[}}
// KERNELS-SAME: pt2c.symbol_names = ["batch", "seq"]
func.func @attention_sizes(%x: tensor<?x?x16xf32> {pt2c.input = "x", pt2c.dims = ["batch", "seq", "16"]})
    -> tensor<?xf32> attributes {pt2c.symbols = [
      {name = "batch", min = 1 : i64, max = 8 : i64, input = "x", dim = 0 : i64},
      {name = "seq", min = 2 : i64, max = 32 : i64, input = "x", dim = 1 : i64}]} {
  %e = prim.exp %x : tensor<?x?x16xf32>
  %b = prim.dim_size %e, 0 : tensor<?x?x16xf32>
  %s = prim.dim_size %e, 1 : tensor<?x?x16xf32>
  %n = arith.muli %b, %s : index
  %flat = prim.reshape %e sizes(%n) : tensor<?x?x16xf32> -> tensor<?x16xf32>
  %t = prim.transpose %flat, permutation = [1, 0] : tensor<?x16xf32> -> tensor<16x?xf32>
  %scores = prim.dot_general %flat, %t, batch = [] x [], contract = [1] x [0] : (tensor<?x16xf32>, tensor<16x?xf32>) -> tensor<?x?xf32>
  %zero = prim.constant dense<0.0> : tensor<f32>
  %sum = prim.reduce SUM, %scores, %zero, dims = [1] : tensor<?x?xf32>, tensor<f32> -> tensor<?xf32>
  return %sum : tensor<?xf32>
}

// -----

// A size that shrinks as a dimension grows cannot be planned at the maxima.
func.func @shrinking(%x: tensor<?xf32> {pt2c.input = "x", pt2c.dims = ["n"]}) -> tensor<?xf32>
    attributes {pt2c.symbols = [{name = "n", min = 1 : i64, max = 8 : i64, input = "x", dim = 0 : i64}]} {
  %c10 = arith.constant 10 : index
  %n = prim.dim_size %x, 0 : tensor<?xf32>
  %left = arith.subi %c10, %n : index
  %zero = prim.constant dense<0.0> : tensor<f32>
  // expected-error @+1 {{result dim 0 has size 10 - n, which may shrink as a dynamic dimension grows}}
  %y = prim.broadcast_in_dim %zero, dims = [] sizes(%left) : tensor<f32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// A dynamic input without pt2c.dims cannot be sized.
// expected-error @+1 {{argument 0 has dynamic dims but no pt2c.dims naming them}}
func.func @unnamed(%x: tensor<?xf32> {pt2c.input = "x"}) -> tensor<?xf32>
    attributes {pt2c.symbols = [{name = "n", min = 1 : i64, max = 8 : i64, input = "x", dim = 0 : i64}]} {
  return %x : tensor<?xf32>
}

// -----

// A data-dependent size: prim.nonzero's row count is the symbol it names, and it flows
// on like any other (the doubled rows keep it); the nonzero gets a kernel of its own
// that returns the count too, which the plan binds the symbol to.
// CHECK-LABEL: func.func @data_dependent_rows(
// CHECK: prim.nonzero {{.*}}pt2c.result_dims = {{\[}}["u0", "2"], []]
// CHECK: prim.add {{.*}}pt2c.result_dims = {{\[}}["u0", "2"]]
// KERNELS-LABEL: func.func @data_dependent_rows(
// KERNELS: %[[ROWS:.*]]:2 = call @data_dependent_rows_kernel_{{[0-9]+}}(%{{.*}}) {{.*}}: (tensor<3x4xf32>) -> (tensor<?x2xi64>, tensor<i64>)
// KERNELS: call @data_dependent_rows_kernel_{{[0-9]+}}(%[[ROWS]]#0)
func.func @data_dependent_rows(%x: tensor<3x4xf32> {pt2c.input = "x"}) -> tensor<?x2xi64>
    attributes {pt2c.symbols = [{name = "u0", min = 0 : i64, max = 12 : i64, produced}]} {
  %zero = prim.constant dense<0.0> : tensor<3x4xf32>
  %positive = prim.compare GT, %x, %zero : tensor<3x4xf32>
  %rows, %count = prim.nonzero %positive, "u0" : tensor<3x4xi1> -> tensor<?x2xi64>, tensor<i64>
  %twice = prim.add %rows, %rows : tensor<?x2xi64>
  return %twice : tensor<?x2xi64>
}

// -----

// A clamp of a data-dependent size (the exporter's c0 = min(u0, 2), a `derived` symbol)
// is a symbol like any other in sizes; index arithmetic that takes a minimum is min().
// CHECK-LABEL: func.func @clamped_rows(
// CHECK: prim.nonzero {{.*}}pt2c.result_dims = {{\[}}["u0", "1"], []]
// CHECK: prim.broadcast_in_dim {{.*}}pt2c.result_dims = {{\[}}["c0"]]
// CHECK: prim.broadcast_in_dim {{.*}}pt2c.result_dims = {{\[}}["min(u0, 2)"]]
// KERNELS-LABEL: func.func private @clamped_rows_kernel_{{[0-9]+}}(
// KERNELS-SAME: pt2c.symbol_names = ["u0", "c0"]
func.func @clamped_rows(%x: tensor<5xf32> {pt2c.input = "x"}) -> (tensor<?x1xi64>, tensor<?xf32>, tensor<?xf32>)
    attributes {pt2c.symbols = [{name = "u0", min = 0 : i64, max = 5 : i64, produced},
                                {name = "c0", min = 0 : i64, max = 2 : i64, derived = "min(u0, 2)"}]} {
  %zero = prim.constant dense<0.0> : tensor<5xf32>
  %positive = prim.compare GT, %x, %zero : tensor<5xf32>
  %rows, %count = prim.nonzero %positive, "u0" : tensor<5xi1> -> tensor<?x1xi64>, tensor<i64>
  %one = prim.constant dense<1.0> : tensor<f32>
  %c0 = prim.symbol "c0", 1
  %kept = prim.broadcast_in_dim %one, dims = [] sizes(%c0) : tensor<f32> -> tensor<?xf32>
  %u0 = prim.symbol "u0", 0
  %c2 = arith.constant 2 : index
  %clamped = arith.minsi %u0, %c2 : index
  %also = prim.broadcast_in_dim %one, dims = [] sizes(%clamped) : tensor<f32> -> tensor<?xf32>
  return %rows, %kept, %also : tensor<?x1xi64>, tensor<?xf32>, tensor<?xf32>
}

// -----

// A data-dependent size whose nonzero is gone (dead code: the model returns nothing that
// depends on it) leaves the symbol list with its clamp; the symbols after it move up, and
// prim.symbol's index with them.
// CHECK-LABEL: func.func @dead_data_dependent_size(
// CHECK-SAME: pt2c.symbols = [{max = 5 : i64, min = 0 : i64, name = "u1", produced}, {derived = "min(u1, 2)", max = 2 : i64, min = 0 : i64, name = "c1"}]
// CHECK: prim.symbol "c1", 1
// KERNELS-LABEL: func.func private @dead_data_dependent_size_kernel_{{[0-9]+}}(
// KERNELS-SAME: pt2c.symbol_names = ["u1", "c1"]
func.func @dead_data_dependent_size(%x: tensor<5xf32> {pt2c.input = "x"}) -> (tensor<?x1xi64>, tensor<?xf32>)
    attributes {pt2c.symbols = [{name = "u0", min = 0 : i64, max = 5 : i64, produced},
                                {name = "c0", min = 0 : i64, max = 2 : i64, derived = "min(u0, 2)"},
                                {name = "u1", min = 0 : i64, max = 5 : i64, produced},
                                {name = "c1", min = 0 : i64, max = 2 : i64, derived = "min(u1, 2)"}]} {
  %zero = prim.constant dense<0.0> : tensor<5xf32>
  %positive = prim.compare GT, %x, %zero : tensor<5xf32>
  %rows, %count = prim.nonzero %positive, "u1" : tensor<5xi1> -> tensor<?x1xi64>, tensor<i64>
  %one = prim.constant dense<1.0> : tensor<f32>
  %c1 = prim.symbol "c1", 3
  %kept = prim.broadcast_in_dim %one, dims = [] sizes(%c1) : tensor<f32> -> tensor<?xf32>
  return %rows, %kept : tensor<?x1xi64>, tensor<?xf32>
}

// -----

// nms over a selection (u0 boxes scoring above 0): prim.nms_keep's order and mask have
// u0 entries, the nonzero of the mask binds u1, and the kept indices are u1.
// CHECK-LABEL: func.func @nms_over_a_selection(
// CHECK: prim.nms_keep {{.*}}pt2c.result_dims = {{\[}}["u0"], ["u0"]]
// CHECK: prim.nonzero {{.*}}"u1" {pt2c.result_dims = {{\[}}["u1", "1"], []]
// CHECK: prim.gather {{.*}}pt2c.result_dims = {{\[}}["u1"]]
func.func @nms_over_a_selection(%boxes: tensor<8x4xf32> {pt2c.input = "boxes"},
                                %scores: tensor<8xf32> {pt2c.input = "scores"}) -> tensor<?xi64>
    attributes {pt2c.symbols = [{name = "u0", min = 0 : i64, max = 8 : i64, produced},
                                {name = "u1", min = 0 : i64, max = 8 : i64, produced}]} {
  %zero = prim.constant dense<0.0> : tensor<8xf32>
  %positive = prim.compare GT, %scores, %zero : tensor<8xf32>
  %rows, %n = prim.nonzero %positive, "u0" : tensor<8xi1> -> tensor<?x1xi64>, tensor<i64>
  %u0 = prim.symbol "u0", 0
  %picked = prim.reshape %rows sizes(%u0) : tensor<?x1xi64> -> tensor<?xi64>
  %b = prim.gather %boxes, %picked, axis = 0 : tensor<8x4xf32>, tensor<?xi64> -> tensor<?x4xf32>
  %s = prim.gather %scores, %picked, axis = 0 : tensor<8xf32>, tensor<?xi64> -> tensor<?xf32>
  %order, %kept = prim.nms_keep %b, %s, iou_threshold = 5.000000e-01 : tensor<?x4xf32>, tensor<?xf32> -> tensor<?xi64>, tensor<?xi1>
  %positions, %count = prim.nonzero %kept, "u1" : tensor<?xi1> -> tensor<?x1xi64>, tensor<i64>
  %u1 = prim.symbol "u1", 1
  %flat = prim.reshape %positions sizes(%u1) : tensor<?x1xi64> -> tensor<?xi64>
  %keep = prim.gather %order, %flat, axis = 0 : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  return %keep : tensor<?xi64>
}
