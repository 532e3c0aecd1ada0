// RUN: pt2c-opt %s -split-input-file -pt2c-symbolic-shapes -verify-diagnostics | FileCheck %s
// RUN: pt2c-opt %s -split-input-file -pt2c-prim-to-kernels -verify-diagnostics | FileCheck %s --check-prefix=KERNELS

// prim.argsort's indices have its operand's shape (SameOperandsAndResultShape), and
// topk's first k (a count the run knows, here the dynamic dim k) follow the iota. The
// sort is a kernel of its own, the elementwise producer of its operand fused in.
// CHECK-LABEL: func.func @sorted(
// CHECK: prim.argsort {{.*}}pt2c.result_dims = {{\[}}["n"]]
// CHECK: prim.gather {{.*}}pt2c.result_dims = {{\[}}["k"]]
// CHECK: prim.gather {{.*}}pt2c.result_dims = {{\[}}["k"]]
// KERNELS: func.func private @sorted_kernel_{{[0-9]+}}(%{{.*}}: tensor<?xf32>) -> tensor<?xi64>
// KERNELS-NEXT: prim.neg
// KERNELS-NEXT: prim.argsort
// KERNELS-NEXT: return
// KERNELS-LABEL: func.func @sorted(
// KERNELS: call @sorted_kernel_{{[0-9]+}}(%arg0) {{.*}}: (tensor<?xf32>) -> tensor<?xi64>
func.func @sorted(%x: tensor<?xf32> {pt2c.input = "x", pt2c.dims = ["n"]},
                  %y: tensor<?xf32> {pt2c.input = "y", pt2c.dims = ["k"]}) -> (tensor<?xf32>, tensor<?xi64>)
    attributes {pt2c.symbols = [{name = "n", min = 1 : i64, max = 64 : i64, input = "x", dim = 0 : i64},
                                {name = "k", min = 1 : i64, max = 4 : i64, input = "y", dim = 0 : i64}]} {
  %neg = prim.neg %x : tensor<?xf32>
  %order = prim.argsort %neg descending : tensor<?xf32> -> tensor<?xi64>
  %k = prim.symbol "k", 1
  %first = prim.iota 0 sizes(%k) : tensor<?xi64>
  %top = prim.gather %order, %first, axis = 0 : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %values = prim.gather %x, %top, axis = 0 : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
  return %values, %top : tensor<?xf32>, tensor<?xi64>
}
