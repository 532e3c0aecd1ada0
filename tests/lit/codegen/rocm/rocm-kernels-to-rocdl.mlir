// RUN: pt2c-opt %s --pt2c-rocm-kernels-to-rocdl | FileCheck %s

// The ROCm lowering (compiler/codegen/rocm/RocdlLowering.h): CUDA's kernels down to the
// gpu dialect, then ROCDL. f16 attention with 16-wide heads, which CUDA runs on tensor
// cores (inline PTX mma.sync), takes the tile kernel: a block of 4 32-lane warps per 4
// query rows, the warps' xor shuffles as ds_bpermute (kept within each 32-lane half of a
// 64-lane wave by the shuffle's width). Kernels take one bare pointer per buffer (q
// is passed once for q and v) and their block size is known.
// CHECK: gpu.module @pt2c_kernels
// CHECK-NOT: llvm.inline_asm
// CHECK: llvm.func @attention_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME: rocdl.flat_work_group_size = "128,128", rocdl.kernel
// CHECK: rocdl.workitem.id.x
// CHECK: rocdl.barrier
// CHECK: rocdl.mbcnt.lo
// CHECK: rocdl.ds_bpermute
func.func private @attention(%q: tensor<1x40x2x16xf16>, %k: tensor<1x2x40x16xf16>) -> tensor<1x40x2x16xf16> attributes {pt2c.kernel} {
  %0 = prim.attention %q, %k, %q, scale = 0.25, causal = true, heads_inner = [true, false, true, true] : tensor<1x40x2x16xf16>, tensor<1x2x40x16xf16>, tensor<1x40x2x16xf16> -> tensor<1x40x2x16xf16>
  return %0 : tensor<1x40x2x16xf16>
}

// Math without a device library: erf (GELU) and tanh are polynomials, pow is exp and log
// (polynomials too); what ROCDL still calls (fabs, floor, pow's fmod, rsqrt) are
// __ocml_* functions that AmdgpuCompiler defines as LLVM intrinsics and instructions
// (DeviceFunctions.h). No math op is left.
// CHECK: llvm.func @__ocml_rsqrt_f32(f32) -> f32
// CHECK: llvm.func @math_kernel(
// CHECK-NOT: math.
// CHECK-NOT: __ocml_erf
// CHECK-NOT: __ocml_tanh
// CHECK-NOT: __ocml_pow
// CHECK: llvm.call @__ocml_fmod_f32
// CHECK: llvm.call @__ocml_rsqrt_f32
func.func private @math(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> attributes {pt2c.kernel} {
  %0 = prim.erf %x : tensor<64xf32>
  %1 = prim.tanh %0 : tensor<64xf32>
  %2 = prim.pow %1, %y : tensor<64xf32>
  %3 = prim.rsqrt %2 : tensor<64xf32>
  return %3 : tensor<64xf32>
}

// bf16 arithmetic computes in f32 (ROCDL keeps bf16 values as i16 and would otherwise
// emit an i16 fadd), rounded back to bf16 by integer ops (arith's bf16 expansion).
// CHECK: llvm.func @bf16_add_kernel(
// CHECK: llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK-NOT: llvm.fadd %{{.*}} : i16
// CHECK: llvm.return
func.func private @bf16_add(%x: tensor<64xbf16>, %y: tensor<64xbf16>) -> tensor<64xbf16> attributes {pt2c.kernel} {
  %0 = prim.add %x, %y : tensor<64xbf16>
  return %0 : tensor<64xbf16>
}
