// RUN: pt2c-opt %s --pt2c-lower-fused-ops-to-gpu | FileCheck %s
// RUN: pt2c-opt %s --pt2c-cuda-kernels-to-nvvm | FileCheck %s --check-prefix=NVVM

// f16/bf16 attention with head sizes that are multiples of 16: the tensor-core kernel
// (AttentionMmaKernel.cpp). Few tiles of 16 query rows (3 x 2 here): a block of 4 warps
// per tile, the warps splitting the keys (70 keys: 3 steps of 32, starting at 32 x the
// warp's split, striding by 128) and merging through shared memory (3 other splits x 32
// lanes x (O's 2 x 4 values + 2 maxes + 2 sums) = 1152 f32). Q pairs are loaded once as
// 32-bit words; S and P @ V run on mma.sync; the softmax is base 2; the result is stored
// as pairs by split 0 only, where the rows are in range.
// CHECK-LABEL: func.func private @split(
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c3{{.*}}, %{{.*}} = %c2{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[PARTIALS:.*]] : memref<1152xf32, #gpu.address_space<workgroup>>)
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<2xf16>
// CHECK: %[[FIRST:.*]] = arith.muli %{{.*}}, %c32
// CHECK: scf.for %{{.*}} = %[[FIRST]] to %c96{{.*}} step %c128
// CHECK: llvm.inline_asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: memref.load %{{.*}}[%c0{{.*}}, %c0{{.*}}, %c0{{.*}}, %{{.*}}] : memref<1x1x1x70xf16>
// CHECK: arith.cmpi uge, %{{.*}}, %c70
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: math.exp2
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<2xf16>
// CHECK: llvm.inline_asm "movmatrix.sync.aligned.m8n8.trans.b16 $0, $1;", "=r,r"
// CHECK: llvm.inline_asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[PARTIALS]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.load %[[PARTIALS]]
// CHECK: math.exp2
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<1>
// CHECK-NOT: prim.
func.func private @split(%q: tensor<1x2x40x16xf16>, %k: tensor<1x2x70x16xf16>, %b: tensor<1x1x1x70xf16>) -> tensor<1x40x2x16xf16> attributes {pt2c.kernel} {
  %0 = prim.attention %q, %k, %k bias %b, scale = 0.25, causal = false, heads_inner = [false, false, false, true] : tensor<1x2x40x16xf16>, tensor<1x2x70x16xf16>, tensor<1x2x70x16xf16>, tensor<1x1x1x70xf16> -> tensor<1x40x2x16xf16>
  return %0 : tensor<1x40x2x16xf16>
}

// Enough tiles (33 heads x 16 = 528) for a warp each: 4 tiles per block (256 rows -> 4
// blocks), every warp walks all keys in steps of 64, nothing shared; bf16 products; the
// causal mask compares the key with the row.
// CHECK-LABEL: func.func private @whole(
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c4{{.*}}, %{{.*}} = %c33{{.*}}, %{{.*}} = %c1{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c256{{.*}} step %c64
// CHECK: llvm.inline_asm "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: arith.cmpi ugt
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<1>
func.func private @whole(%q: tensor<1x33x256x16xbf16>) -> tensor<1x33x256x16xbf16> attributes {pt2c.kernel} {
  %0 = prim.attention %q, %q, %q, scale = 0.25, causal = true, heads_inner = [false, false, false, false] : tensor<1x33x256x16xbf16>, tensor<1x33x256x16xbf16>, tensor<1x33x256x16xbf16> -> tensor<1x33x256x16xbf16>
  return %0 : tensor<1x33x256x16xbf16>
}

// Through the CUDA lowering the driver runs (pt2c-cuda-kernels-to-nvvm): the inline PTX
// survives as is, with bare pointers.
// NVVM: llvm.func @split_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// NVVM: llvm.inline_asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// NVVM: nvvm.barrier0
// NVVM: llvm.func @whole_kernel(
// NVVM: llvm.inline_asm "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
