// Data-dependent sizes (decompose/DataDependent.cpp): aten.nonzero's row count is the
// trace's data-dependent symbol (pt2c.symbols entry with `produced`), which prim.nonzero
// names so that the plan binds it to the count the op returns.
// RUN: pt2c-opt %s --split-input-file --pt2c-decompose-aten-to-prim -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @nonzero_rows
// CHECK-SAME: (%[[X:[^:]*]]: tensor<3x4xf32>
// CHECK: %[[ROWS:.*]], %{{.*}} = prim.nonzero %[[X]], "u0" : tensor<3x4xf32> -> tensor<?x2xi64>, tensor<i64>
// CHECK: return %[[ROWS]]
func.func @nonzero_rows(%x: tensor<3x4xf32> {pt2c.input = "x"}) -> tensor<?x2xi64>
    attributes {pt2c.symbols = [{name = "u0", min = 0 : i64, max = 12 : i64, produced}]} {
  %0 = "aten.nonzero"(%x) {pt2c.result_dims = [["u0", "2"]]} : (tensor<3x4xf32>) -> tensor<?x2xi64>
  return %0 : tensor<?x2xi64>
}

// -----

// A row count the trace did not make a symbol (an artifact of an older exporter) has no
// value the run could bind.
func.func @nonzero_without_symbol(%x: tensor<5xi1> {pt2c.input = "x"}) -> tensor<?x1xi64> {
  // expected-error @+1 {{nonzero's row count is not a data-dependent size of the trace}}
  %0 = "aten.nonzero"(%x) : (tensor<5xi1>) -> tensor<?x1xi64>
  return %0 : tensor<?x1xi64>
}
