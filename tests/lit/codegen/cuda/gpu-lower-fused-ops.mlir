// RUN: pt2c-opt %s --pt2c-lower-fused-ops-to-gpu | FileCheck %s
// RUN: pt2c-opt %s --pt2c-cuda-kernels-to-nvvm | FileCheck %s --check-prefix=NVVM

// A kernel function made of one prim.attention becomes the bufferized function of one
// launch. Where K (padded) or V fits in shared memory, the tile kernel: a block per 4
// query rows (x: 5 rows -> 2 blocks) and per batch x head (y), 4 warps; shared: the q
// rows (f32), K then V in their own type (K rows padded by one 32-bit word: 8 + 2 f16),
// the scores, 1 / sum per row and the partial weighted sums of 5 key groups (one per key
// here: threads a column of V alone would leave idle take every 5th key) per row and
// column. Operands flagged heads_inner are indexed [b, row, h, column]; the bias's
// size-1 dims index 0; causal masks j > i.
// CHECK-LABEL: func.func private @tile(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: memref<1x5x2x8xf16>, %[[K:[a-z0-9]+]]: memref<1x2x5x8xf16>, %[[B:[a-z0-9]+]]: memref<1x1x5x5xf16>, %[[OUT:[a-z0-9]+]]: memref<1x5x2x8xf16>)
// CHECK-SAME: attributes {pt2c.kernel}
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BH:.*]], %{{.*}}) in (%{{.*}} = %c2{{.*}}, %{{.*}} = %c2{{.*}}, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[QS:.*]] : memref<32xf32, #gpu.address_space<workgroup>>, %[[KV:.*]] : memref<50xf16, #gpu.address_space<workgroup>>, %[[SC:.*]] : memref<20xf32, #gpu.address_space<workgroup>>, %[[INV:.*]] : memref<4xf32, #gpu.address_space<workgroup>>, %[[PART:.*]] : memref<160xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[BI:.*]] = arith.divui %[[BH]]
// CHECK: %[[HI:.*]] = arith.remui %[[BH]]
// CHECK: memref.load %[[Q]][%[[BI]], %{{.*}}, %[[HI]], %{{.*}}] : memref<1x5x2x8xf16>
// CHECK: memref.load %[[K]][%[[BI]], %[[HI]], %{{.*}}, %{{.*}}] : memref<1x2x5x8xf16>
// CHECK: memref.store %{{.*}}, %[[KV]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[KV]]
// CHECK: memref.load %[[B]][%c0{{.*}}, %c0{{.*}}, %{{.*}}, %[[J:.*]]]
// CHECK: arith.cmpi ugt, %[[J]]
// CHECK: memref.store %{{.*}}, %[[SC]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[Q]][%[[BI]], %{{.*}}, %[[HI]], %{{.*}}] : memref<1x5x2x8xf16>
// CHECK: memref.store %{{.*}}, %[[KV]]
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: math.exp
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.store %{{.*}}, %[[INV]]
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[PART]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[PART]]
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[BI]], %{{.*}}, %[[HI]], %{{.*}}]
// CHECK-NOT: prim.
func.func private @tile(%q: tensor<1x5x2x8xf16>, %k: tensor<1x2x5x8xf16>, %b: tensor<1x1x5x5xf16>) -> tensor<1x5x2x8xf16> attributes {pt2c.kernel} {
  %0 = prim.attention %q, %k, %q bias %b, scale = 0.5, causal = true, heads_inner = [true, false, true, true] : tensor<1x5x2x8xf16>, tensor<1x2x5x8xf16>, tensor<1x5x2x8xf16>, tensor<1x1x5x5xf16> -> tensor<1x5x2x8xf16>
  return %0 : tensor<1x5x2x8xf16>
}

// 16 queries or more and 128 keys or more: the chunk kernel, a block per 32 query rows
// (x: 40 rows -> 2 blocks; y: 66 heads, so that the 132 blocks cover an H100's SMs), 4
// warps, the 130 keys walked in 3 chunks of 64 (the third's last 62 past the end: -inf).
// Shared (f32, rows padded by one word): the q rows [32][36 + 1], K transposed
// [36][64 + 1], V [64][36], the scores [32][64 + 1], then the running max, sum and
// rescale per row. Thread t computes the scores of 4 rows and 4 keys and keeps
// O for 4 rows and 3 columns (16 * 3 >= 36) across the chunks.
// CHECK-LABEL: func.func private @chunk(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: memref<1x66x40x36xf32>, %[[K:[a-z0-9]+]]: memref<1x66x130x36xf32>, %[[OUT:[a-z0-9]+]]: memref<1x66x40x36xf32>)
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c2{{.*}}, %{{.*}} = %c66{{.*}}, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%[[QS:.*]] : memref<1184xf32, #gpu.address_space<workgroup>>, %[[KS:.*]] : memref<2340xf32, #gpu.address_space<workgroup>>, %[[VS:.*]] : memref<2304xf32, #gpu.address_space<workgroup>>, %[[SC:.*]] : memref<2080xf32, #gpu.address_space<workgroup>>, %[[MAX:.*]] : memref<32xf32, #gpu.address_space<workgroup>>, %[[SUM:.*]] : memref<32xf32, #gpu.address_space<workgroup>>, %[[SCALE:.*]] : memref<32xf32, #gpu.address_space<workgroup>>)
// CHECK: memref.store %{{.*}}, %[[QS]]
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c192{{.*}} step %c64{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK: memref.store %{{.*}}, %[[KS]]
// CHECK: memref.store %{{.*}}, %[[VS]]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c36{{.*}} step %c1{{.*}} iter_args(
// CHECK-COUNT-4: memref.load %[[QS]]
// CHECK-COUNT-4: memref.load %[[KS]]
// CHECK: arith.cmpi ult, %{{.*}}, %c130
// CHECK: memref.store %{{.*}}, %[[SC]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[MAX]]
// CHECK: memref.load %[[SUM]]
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: math.exp
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.store %{{.*}}, %[[SCALE]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SCALE]]
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c64{{.*}} step %c1{{.*}} iter_args(
// CHECK-COUNT-4: memref.load %[[SC]]
// CHECK-COUNT-3: memref.load %[[VS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SUM]]
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK-NOT: prim.
func.func private @chunk(%q: tensor<1x66x40x36xf32>, %k: tensor<1x66x130x36xf32>) -> tensor<1x66x40x36xf32> attributes {pt2c.kernel} {
  %0 = prim.attention %q, %k, %k, scale = 0.5, causal = false, heads_inner = [false, false, false, false] : tensor<1x66x40x36xf32>, tensor<1x66x130x36xf32>, tensor<1x66x130x36xf32> -> tensor<1x66x40x36xf32>
  return %0 : tensor<1x66x40x36xf32>
}

// The same with 2 heads: 32 rows a block would make 4 blocks for 132 SMs, so 16 rows
// (x: 40 rows -> 3 blocks); the shared q rows [16][36 + 1], the scores [16][64 + 1].
// CHECK-LABEL: func.func private @chunk_few_blocks(
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c3{{.*}}, %{{.*}} = %c2{{.*}}, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1) workgroup(%{{.*}} : memref<592xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<2340xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<2304xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1040xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: prim.
func.func private @chunk_few_blocks(%q: tensor<1x2x40x36xf32>, %k: tensor<1x2x130x36xf32>) -> tensor<1x2x40x36xf32> attributes {pt2c.kernel} {
  %0 = prim.attention %q, %k, %k, scale = 0.5, causal = false, heads_inner = [false, false, false, false] : tensor<1x2x40x36xf32>, tensor<1x2x130x36xf32>, tensor<1x2x130x36xf32> -> tensor<1x2x40x36xf32>
  return %0 : tensor<1x2x40x36xf32>
}

// Keys whose K does not fit in shared memory (4096 x 10 f16): the row kernel, a block per
// query row and per batch x head, 8 warps, a warp per key (shuffles), block-wide
// reductions for the max and the sum.
// CHECK-LABEL: func.func private @rows(
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c3{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<4096xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: gpu.all_reduce  maximumf %{{.*}} uniform
// CHECK: math.exp
// CHECK: gpu.all_reduce  add %{{.*}} uniform
func.func private @rows(%q: tensor<1x1x3x8xf16>, %k: tensor<1x1x4096x8xf16>) -> tensor<1x1x3x8xf16> attributes {pt2c.kernel} {
  %0 = prim.attention %q, %k, %k, scale = 0.5, causal = false, heads_inner = [false, false, false, false] : tensor<1x1x3x8xf16>, tensor<1x1x4096x8xf16>, tensor<1x1x4096x8xf16> -> tensor<1x1x3x8xf16>
  return %0 : tensor<1x1x3x8xf16>
}

// Through the CUDA lowering the driver runs (pt2c-cuda-kernels-to-nvvm): kernels with
// bare pointers, shuffles, barriers.
// NVVM: llvm.func @tile_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// NVVM: nvvm.barrier0
// NVVM: nvvm.shfl.sync  bfly
// NVVM: llvm.func @rows_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// NVVM: nvvm.shfl.sync  bfly

// Layer norm over rows longer than 1024: a block per row of the last dim (the input seen
// as [rows, n]), up to 256 threads striding over the row kept in shared memory, two
// block-wide sums.
// CHECK-LABEL: func.func private @layer_norm(
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<2x3x1100xf16>, %[[W:[a-z0-9]+]]: memref<1100xf16>, %[[OUT:[a-z0-9]+]]: memref<2x3x1100xf16>)
// CHECK-DAG: %[[XR:.*]] = memref.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : memref<2x3x1100xf16> into memref<6x1100xf16>
// CHECK-DAG: %[[OR:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0, 1], [2]]
// CHECK: gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c6, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[XS:.*]] : memref<1100xf32, #gpu.address_space<workgroup>>)
// CHECK: memref.load %[[XR]][%[[ROW]], %{{.*}}]
// CHECK: gpu.all_reduce  add
// CHECK: gpu.all_reduce  add
// CHECK: math.rsqrt
// CHECK: memref.load %[[W]]
// CHECK: arith.truncf
// CHECK: memref.store %{{.*}}, %[[OR]][%[[ROW]], %{{.*}}]
func.func private @layer_norm(%x: tensor<2x3x1100xf16>, %w: tensor<1100xf16>) -> tensor<2x3x1100xf16> attributes {pt2c.kernel} {
  %0 = prim.layer_norm %x weight %w, epsilon = 1.0e-5 : tensor<2x3x1100xf16>, tensor<1100xf16> -> tensor<2x3x1100xf16>
  return %0 : tensor<2x3x1100xf16>
}
// NVVM: llvm.func @layer_norm_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)

// Rows of up to 1024: a warp per row, 4 rows a block (6 rows: 2 blocks, the last warps
// of the second on the last row, storing nothing), the row in registers (40 wide: lane l
// holds columns l and l + 32, the second only on lanes < 8), the sums as shuffles. With
// a residual: x = input + residual rounded to f16 (as the add it replaces).
// CHECK-LABEL: func.func private @layer_norm_residual(
// CHECK-SAME: %[[A:[a-z0-9]+]]: memref<6x40xf16>, %[[R:[a-z0-9]+]]: memref<6x40xf16>, %[[O:[a-z0-9]+]]: memref<6x40xf16>)
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c2{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) {
// Every load comes before the arithmetic.
// CHECK: %[[LOADROW:.*]] = arith.minui %{{.*}}, %c5
// CHECK: memref.load %[[A]][%[[LOADROW]], %{{.*}}]
// CHECK: memref.load %[[R]][%[[LOADROW]], %{{.*}}]
// CHECK: arith.cmpi ult, %{{.*}}, %c40
// CHECK: memref.load %[[A]][%[[LOADROW]], %{{.*}}]
// CHECK: memref.load %[[R]][%[[LOADROW]], %{{.*}}]
// CHECK-NOT: memref.load
// CHECK: %[[SUM:.*]] = arith.addf
// CHECK: %[[H:.*]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK: arith.extf %[[H]] : f16 to f32
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: math.rsqrt
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[O]]
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[O]]
// CHECK-NOT: gpu.barrier
func.func private @layer_norm_residual(%a: tensor<6x40xf16>, %r: tensor<6x40xf16>) -> tensor<6x40xf16> attributes {pt2c.kernel} {
  %0 = prim.layer_norm %a residual %r, epsilon = 1.0e-5 : tensor<6x40xf16>, tensor<6x40xf16> -> tensor<6x40xf16>
  return %0 : tensor<6x40xf16>
}

// A constant operand becomes a global of the kernel, 16-byte aligned like the arena's
// buffers (the tensor-core attention kernel reads element pairs as 32-bit words).
// CHECK-LABEL: memref.global "private" constant @ln_constant_weight_constant : memref<40xf16> = dense<2.000000e+00> {alignment = 16 : i64}
// CHECK-LABEL: func.func private @ln_constant_weight(
// CHECK: memref.get_global @ln_constant_weight_constant : memref<40xf16>
func.func private @ln_constant_weight(%x: tensor<6x40xf16>) -> tensor<6x40xf16> attributes {pt2c.kernel} {
  %w = prim.constant dense<2.0> : tensor<40xf16>
  %0 = prim.layer_norm %x weight %w, epsilon = 1.0e-5 : tensor<6x40xf16>, tensor<40xf16> -> tensor<6x40xf16>
  return %0 : tensor<6x40xf16>
}

// RMS norm ({rms}): one warp-level sum (of squares, nothing centred), the scaled value
// rounded to f16 and widened back before the weight multiplies it.
// CHECK-LABEL: func.func private @rms_norm(
// CHECK: gpu.launch
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK: math.rsqrt
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
func.func private @rms_norm(%x: tensor<6x32xf16>, %w: tensor<32xf16>) -> tensor<6x32xf16> attributes {pt2c.kernel} {
  %0 = prim.layer_norm %x weight %w, epsilon = 1.0e-6 {rms} : tensor<6x32xf16>, tensor<32xf16> -> tensor<6x32xf16>
  return %0 : tensor<6x32xf16>
}
// NVVM: llvm.func @rms_norm_kernel(

// Attention over a packed q/k/v projection [1, len, 3, H, dim] (parts = [0, 1, 2]): the
// one buffer is indexed [b, row, part, h, column], part 0 for the queries, 1 for the
// keys, 2 for the values; nothing is copied out first.
// CHECK-LABEL: func.func private @packed_parts(
// CHECK-SAME: %[[P:.*]]: memref<1x5x3x2x8xf32>
// CHECK: memref.load %[[P]][%{{.*}}, %{{.*}}, %c0{{.*}}, %{{.*}}, %{{.*}}] : memref<1x5x3x2x8xf32>
// CHECK: memref.load %[[P]][%{{.*}}, %{{.*}}, %c1{{.*}}, %{{.*}}, %{{.*}}] : memref<1x5x3x2x8xf32>
// CHECK: memref.load %[[P]][%{{.*}}, %{{.*}}, %c2{{.*}}, %{{.*}}, %{{.*}}] : memref<1x5x3x2x8xf32>
func.func private @packed_parts(%p: tensor<1x5x3x2x8xf32>) -> tensor<1x5x2x8xf32> attributes {pt2c.kernel} {
  %0 = prim.attention %p, %p, %p, scale = 0.25, causal = false, heads_inner = [true, true, true, true], parts = [0, 1, 2] : tensor<1x5x3x2x8xf32>, tensor<1x5x3x2x8xf32>, tensor<1x5x3x2x8xf32> -> tensor<1x5x2x8xf32>
  return %0 : tensor<1x5x2x8xf32>
}
