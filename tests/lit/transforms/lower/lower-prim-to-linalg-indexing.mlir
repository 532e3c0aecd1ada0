// RUN: pt2c-opt %s --split-input-file --pt2c-lower-prim-to-linalg | FileCheck %s

// prim.reduce: a generic whose loops are the operand's dims, reduction iterators on
// the reduced ones, accumulating into a destination filled with the init value.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reduce_max
// CHECK: %[[INIT:.*]] = arith.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<2x?x4xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?xf32>
// CHECK: %[[V:.*]] = tensor.extract %[[INIT]][] : tensor<f32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[V]] : f32) outs(%[[E]] : tensor<?xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[KEPT]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x?x4xf32>) outs(%[[F]] : tensor<?xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: arith.maximumf %[[ACC]], %[[X]] : f32
func.func @reduce_max(%x: tensor<2x?x4xf32>) -> tensor<?xf32> {
  %init = prim.constant dense<0xFF800000> : tensor<f32>
  %0 = prim.reduce MAX, %x, %init, dims = [0, 2] : tensor<2x?x4xf32>, tensor<f32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_kinds
// CHECK: arith.addf
// CHECK: arith.muli
// CHECK: arith.minsi
// CHECK: arith.ori
func.func @reduce_kinds(%x: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>) -> (tensor<f32>, tensor<i32>, tensor<i32>, tensor<i1>) {
  %zero = prim.constant dense<0.0> : tensor<f32>
  %one = prim.constant dense<1> : tensor<i32>
  %false = prim.constant dense<false> : tensor<i1>
  %0 = prim.reduce SUM, %x, %zero, dims = [0] : tensor<4xf32>, tensor<f32> -> tensor<f32>
  %1 = prim.reduce PROD, %i, %one, dims = [0] : tensor<4xi32>, tensor<i32> -> tensor<i32>
  %2 = prim.reduce MIN, %i, %one, dims = [0] : tensor<4xi32>, tensor<i32> -> tensor<i32>
  %3 = prim.reduce OR, %p, %false, dims = [0] : tensor<4xi1>, tensor<i1> -> tensor<i1>
  return %0, %1, %2, %3 : tensor<f32>, tensor<i32>, tensor<i32>, tensor<i1>
}

// -----

// prim.gather: a generic over the result reading the indices at the batch and
// gathered loops; the body clamps the index into [0, size - 1] and extracts.
// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[T:.*]]: tensor<10x8xf32>, %[[IDS:.*]]: tensor<2x5xi64>)
// CHECK: %[[SIZE:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<10x8xf32>
// CHECK: %[[LAST:.*]] = arith.subi %[[SIZE]], %{{.*}} : index
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[IDS]] : tensor<2x5xi64>)
// CHECK: ^bb0(%[[I:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[C:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK: %[[LO:.*]] = arith.maxsi %[[C]], %{{.*}} : index
// CHECK: %[[HI:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: tensor.extract %[[T]][%[[HI]], %[[COL]]] : tensor<10x8xf32>
func.func @embedding(%table: tensor<10x8xf32>, %ids: tensor<2x5xi64>) -> tensor<2x5x8xf32> {
  %0 = prim.gather %table, %ids, axis = 0 : tensor<10x8xf32>, tensor<2x5xi64> -> tensor<2x5x8xf32>
  return %0 : tensor<2x5x8xf32>
}

// -----

// With batch dims, the indices are read at the batch loops too (torch.gather).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @take_along_last_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x7xf32>, %[[J:.*]]: tensor<2x3xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[J]] : tensor<2x3xi32>)
// CHECK: %[[HI:.*]] = arith.minsi
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: tensor.extract %[[X]][%[[ROW]], %[[HI]]] : tensor<2x7xf32>
func.func @take_along_last_dim(%x: tensor<2x7xf32>, %j: tensor<2x3xi32>) -> tensor<2x3xf32> {
  %0 = prim.gather %x, %j, axis = 1 {batch_dims = 1 : i64} : tensor<2x7xf32>, tensor<2x3xi32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// prim.slice: a linalg.copy (loops after bufferization) reading a strided view; a
// bare extract_slice would bufferize to a memref.copy between strided views, which
// lowers to a call of MLIR's runtime (memrefCopy).
// CHECK-LABEL: func.func @slice
// CHECK: %[[VIEW:.*]] = tensor.extract_slice %{{.*}}[1, 1] [2, 3] [1, 3] : tensor<4x10xf32> to tensor<2x3xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[C:.*]] = linalg.copy ins(%[[VIEW]] : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: return %[[C]]
func.func @slice(%x: tensor<4x10xf32>) -> tensor<2x3xf32> {
  %0 = prim.slice %x, start = [1, 1], limit = [3, 9], strides = [1, 3] : tensor<4x10xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// prim.concatenate: one destination, each operand copied into its part at the
// running offset (computed at run time where a size is dynamic); extract_slice, copy,
// insert_slice bufferizes to a copy into a view of the destination.
// CHECK-LABEL: func.func @concatenate
// CHECK-SAME: (%[[X:.*]]: tensor<4x?xf32>, %[[Y:.*]]: tensor<?x?xf32>)
// CHECK: %[[XCOLS:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<4x?xf32>
// CHECK: %[[YROWS:.*]] = tensor.dim %[[Y]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[YCOLS:.*]] = tensor.dim %[[Y]], %{{.*}} : tensor<?x?xf32>
// CHECK: %[[ROWS:.*]] = arith.addi %{{.*}}, %[[YROWS]] : index
// CHECK: %[[E:.*]] = tensor.empty(%[[ROWS]], %[[XCOLS]]) : tensor<?x?xf32>
// CHECK: %[[P0:.*]] = tensor.extract_slice %[[E]][0, 0] [4, %[[XCOLS]]] [1, 1]
// CHECK: %[[C0:.*]] = linalg.copy ins(%[[X]] : tensor<4x?xf32>) outs(%[[P0]] : tensor<4x?xf32>)
// CHECK: %[[A:.*]] = tensor.insert_slice %[[C0]] into %[[E]][0, 0] [4, %[[XCOLS]]] [1, 1]
// CHECK: %[[P1:.*]] = tensor.extract_slice %[[A]][4, 0] [%[[YROWS]], %[[YCOLS]]] [1, 1]
// CHECK: %[[C1:.*]] = linalg.copy ins(%[[Y]] : tensor<?x?xf32>) outs(%[[P1]] : tensor<?x?xf32>)
// CHECK: tensor.insert_slice %[[C1]] into %[[A]][4, 0] [%[[YROWS]], %[[YCOLS]]] [1, 1]
func.func @concatenate(%x: tensor<4x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = prim.concatenate %x, %y dim = 0 : (tensor<4x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @iota
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[N:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: arith.sitofp %[[N]] : i64 to f32
func.func @iota() -> tensor<3x4xf32> {
  %0 = prim.iota 1 : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
