// Runs prim.nms_keep (lower/NonMaxSuppression.cpp) through the CPU pipeline with
// mlir-cpu-runner: torchvision's greedy nms over seven boxes whose scores tie (stable
// order), include a NaN (first, as torch.sort puts it), and a box of zero area.
// RUN: pt2c-opt %s --pt2c-registry-only --pass-pipeline='builtin.module(pt2c-aten-to-prim,pt2c-cpu-kernels-to-llvm)' \
// RUN:   | mlir-cpu-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s

func.func @nms(%boxes: tensor<7x4xf32>, %scores: tensor<7xf32>) -> (tensor<7xi64>, tensor<7xi1>) {
  %order, %kept = prim.nms_keep %boxes, %scores, iou_threshold = 3.000000e-01 : tensor<7x4xf32>, tensor<7xf32> -> tensor<7xi64>, tensor<7xi1>
  return %order, %kept : tensor<7xi64>, tensor<7xi1>
}

func.func private @printI64(i64)
func.func private @printComma()
func.func private @printNewline()

func.func @main() {
  %boxes = arith.constant dense<[[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 11.0, 11.0], [20.0, 20.0, 30.0, 30.0],
                                 [25.0, 25.0, 35.0, 35.0], [0.0, 5.0, 10.0, 15.0], [50.0, 50.0, 50.0, 60.0],
                                 [0.0, 0.0, 10.0, 10.0]]> : tensor<7x4xf32>
  %scores = arith.constant dense<[0.9, 0.8, 0.8, 0.95, 0.8, 0.1, 0x7FC00000]> : tensor<7xf32>
  %order, %kept = call @nms(%boxes, %scores) : (tensor<7x4xf32>, tensor<7xf32>) -> (tensor<7xi64>, tensor<7xi1>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  // Each line: a box index in score order, then 1 if nms keeps it. torchvision.ops.nms
  // gives [6, 3, 2, 5]: box 6 (NaN) suppresses 0 (IoU 1), 1 (0.68) and 4 (0.33 > 0.3);
  // 2 overlaps 3 by 0.14.
  // CHECK: 6, 1
  // CHECK-NEXT: 3, 1
  // CHECK-NEXT: 0, 0
  // CHECK-NEXT: 1, 0
  // CHECK-NEXT: 2, 1
  // CHECK-NEXT: 4, 0
  // CHECK-NEXT: 5, 1
  scf.for %i = %c0 to %c7 step %c1 {
    %box = tensor.extract %order[%i] : tensor<7xi64>
    %k = tensor.extract %kept[%i] : tensor<7xi1>
    %flag = arith.extui %k : i1 to i64
    func.call @printI64(%box) : (i64) -> ()
    func.call @printComma() : () -> ()
    func.call @printI64(%flag) : (i64) -> ()
    func.call @printNewline() : () -> ()
  }
  return
}
