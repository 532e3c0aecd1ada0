// RUN: pt2c-opt %s --pt2c-lower-attention-to-gpu | FileCheck %s
// RUN: pt2c-opt %s --pass-pipeline='builtin.module(pt2c-lower-attention-to-gpu,func.func(pt2c-sink-into-gpu-launches),gpu-kernel-outlining,gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm{index-bitwidth=64 use-bare-ptr-memref-call-conv=1},reconcile-unrealized-casts))' | FileCheck %s --check-prefix=NVVM

// A kernel function made of one prim.attention becomes the bufferized function of one
// launch: a block per query row (x) and per batch x head (y), 4 warps, the q row, the
// scores and the output partial sums in shared memory. Operands flagged heads_inner are
// indexed [b, row, h, column]; the bias's size-1 dims index 0; causal masks j > i.
// CHECK-LABEL: func.func private @attention(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: memref<1x5x2x8xf16>, %[[K:[a-z0-9]+]]: memref<1x2x5x8xf16>, %[[B:[a-z0-9]+]]: memref<1x1x5x5xf16>, %[[OUT:[a-z0-9]+]]: memref<1x5x2x8xf16>)
// CHECK-SAME: attributes {pt2c.kernel}
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK: gpu.launch blocks(%[[I:.*]], %[[BH:.*]], %{{.*}}) in (%{{.*}} = %[[C5]], %{{.*}} = %[[C2]], %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C128]], %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[QS:.*]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[PS:.*]] : memref<5xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[BI:.*]] = arith.divui %[[BH]]
// CHECK: %[[HI:.*]] = arith.remui %[[BH]]
// CHECK: memref.load %[[Q]][%[[BI]], %[[I]], %[[HI]], %{{.*}}] : memref<1x5x2x8xf16>
// CHECK: gpu.barrier
// CHECK: memref.load %[[K]][%[[BI]], %[[HI]], %[[J:.*]], %{{.*}}] : memref<1x2x5x8xf16>
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.load %[[B]][%c0, %c0, %[[I]], %[[J]]]
// CHECK: arith.cmpi ugt, %[[J]], %[[I]]
// CHECK: memref.store %{{.*}}, %[[PS]][%[[J]]]
// CHECK: gpu.all_reduce  maximumf %{{.*}} uniform
// CHECK: math.exp
// CHECK: gpu.all_reduce  add %{{.*}} uniform
// CHECK: memref.load %[[Q]][%[[BI]], %{{.*}}, %[[HI]], %{{.*}}] : memref<1x5x2x8xf16>
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[BI]], %[[I]], %[[HI]], %[[T]]]
// CHECK-NOT: prim.

// After outlining and the NVVM conversion: one kernel, bare pointers, shuffles.
// NVVM: gpu.module @attention_kernel
// NVVM: llvm.func @attention_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// NVVM: nvvm.shfl.sync  bfly
// NVVM: nvvm.barrier0
func.func private @attention(%q: tensor<1x5x2x8xf16>, %k: tensor<1x2x5x8xf16>, %b: tensor<1x1x5x5xf16>) -> tensor<1x5x2x8xf16> attributes {pt2c.kernel} {
  %0 = prim.attention %q, %k, %q bias %b, scale = 0.5, causal = true, heads_inner = [true, false, true, true] : tensor<1x5x2x8xf16>, tensor<1x2x5x8xf16>, tensor<1x5x2x8xf16>, tensor<1x1x5x5xf16> -> tensor<1x5x2x8xf16>
  return %0 : tensor<1x5x2x8xf16>
}
