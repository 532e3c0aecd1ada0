// prim.nonzero lowers to one sequential pass over the operand (lower/DataDependent.cpp):
// an scf.for carrying the rows and their count, appending an element's row-major
// coordinates where it is nonzero, into rows sized for the bound (the symbol's maximum),
// cast to the dynamic row count the plan binds afterwards.
// RUN: pt2c-opt %s --split-input-file --pt2c-lower-prim-to-linalg --canonicalize | FileCheck %s

// Outside a model (no symbol ranges) the bound of a static operand is its element count.
// CHECK-LABEL: func.func @nonzero_coordinates
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6 : index
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<6x2xi64>
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[I:.*]] = %[[ZERO]] to %[[SIX]] step %{{.*}} iter_args(%[[ROWS:.*]] = %[[EMPTY]], %[[FOUND:.*]] = %[[ZERO]]) -> (tensor<6x2xi64>, index)
// CHECK: %[[COL:.*]] = arith.remui %[[I]]
// CHECK: arith.divui %[[I]]
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%{{.*}}, %[[COL]]]
// CHECK: %[[NZ:.*]] = arith.cmpf une, %[[V]]
// CHECK: scf.if %[[NZ]] -> (tensor<6x2xi64>, index)
// CHECK: tensor.insert %{{.*}} into %[[ROWS]][%[[FOUND]], %{{.*}}]
// CHECK: tensor.insert
// CHECK: arith.addi %[[FOUND]]
// CHECK: } else {
// CHECK: scf.yield %[[ROWS]], %[[FOUND]]
// CHECK: %[[CAST:.*]] = tensor.cast %[[LOOP]]#0 : tensor<6x2xi64> to tensor<?x2xi64>
// CHECK: %[[N:.*]] = arith.index_cast %[[LOOP]]#1 : index to i64
// CHECK: %[[COUNT:.*]] = tensor.from_elements %[[N]] : tensor<i64>
// CHECK: return %[[CAST]], %[[COUNT]]
func.func @nonzero_coordinates(%x: tensor<2x3xf32>) -> (tensor<?x2xi64>, tensor<i64>) {
  %rows, %count = prim.nonzero %x, "u0" : tensor<2x3xf32> -> tensor<?x2xi64>, tensor<i64>
  return %rows, %count : tensor<?x2xi64>, tensor<i64>
}

// -----

// A mask over an earlier selection (u0 rows of 2): rows for u1's bound, a pass over the
// elements the operand has in this run.
// CHECK-LABEL: func.func @nonzero_of_a_selection
// CHECK-SAME: (%[[X:.*]]: tensor<?x2xi1>)
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<12x2xi64>
// CHECK: %[[R:.*]] = tensor.dim %[[X]], %[[ZERO]]
// CHECK: %[[N:.*]] = arith.muli %[[R]], %[[TWO]]
// CHECK: scf.for %{{.*}} = %[[ZERO]] to %[[N]]
// CHECK: tensor.cast %{{.*}} : tensor<12x2xi64> to tensor<?x2xi64>
func.func @nonzero_of_a_selection(%x: tensor<?x2xi1>) -> (tensor<?x2xi64>, tensor<i64>)
    attributes {pt2c.symbols = [{name = "u0", min = 0 : i64, max = 6 : i64, produced},
                                {name = "u1", min = 0 : i64, max = 12 : i64, produced}]} {
  %rows, %count = prim.nonzero %x, "u1" : tensor<?x2xi1> -> tensor<?x2xi64>, tensor<i64>
  return %rows, %count : tensor<?x2xi64>, tensor<i64>
}
